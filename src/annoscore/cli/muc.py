"""``annoscore muc CONFIG``: the MUC scorer for TE, TR and ST template files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from annoscore.cli.common import (
    FormatOption,
    OutputFormat,
    OutputOption,
    PerDocOption,
    emit,
    guarded,
)
from annoscore.errors import InputError

HELP = (
    "Score MUC template files (template element, template relation, scenario template) as the "
    "MUC scoring software does, from its configuration file (:class_defs, :slot_defs, "
    ":premodifiers, ...). Prints the score report (one page per document, then the totals); "
    "writes the report summary and map history files the configuration asks for."
)
EPILOG = (
    "Example: annoscore muc te.config --key key.tpl --response response.tpl --format json\n\n"
    "JSON scores are the ALL SLOTS row: recall, precision, f_pr, f_2pr, f_p2r; counts its "
    "pos act cor par inc mis spu non, plus obj:CLASS:*, slot:CLASS:SLOT:* and text_filter:*."
)


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot write: {error.strerror}", path) from None


def register(app: typer.Typer) -> None:
    @app.command("muc", help=HELP, epilog=EPILOG)
    @guarded
    def muc(
        config: Annotated[Path, typer.Argument(help="The scorer's main configuration file.")],
        key: Annotated[
            Path | None, typer.Option("--key", "-k", help="Key file (overrides :key_file).")
        ] = None,
        response: Annotated[
            Path | None,
            typer.Option("--response", "-r", help="Response file (overrides :response_file)."),
        ] = None,
        task: Annotated[
            str | None,
            typer.Option(
                "--task",
                help="template_element, template_relation or scenario_template (or te, tr, st); "
                "overrides :scoring_task.",
            ),
        ] = None,
        summary: Annotated[
            Path | None,
            typer.Option("--summary", help="Write the report summary here (else as configured)."),
        ] = None,
        history: Annotated[
            Path | None,
            typer.Option("--map-history", help="Write the map history here (else as configured)."),
        ] = None,
        no_files: Annotated[
            bool,
            typer.Option(
                "--no-files", help="Write no report files, whatever the configuration says."
            ),
        ] = False,
        text_filter: Annotated[
            str,
            typer.Option(
                help="ST text filtering: 'agreement' (the manual: one COR or INC per document) "
                "or 'relevance' (MUC-6: COR/MIS/SPU/NON)."
            ),
        ] = "agreement",
        undefined: Annotated[
            str,
            typer.Option(
                help="What an undefined percentage prints in the score report: '*' or '0' "
                "(as on the manual's pages)."
            ),
        ] = "*",
        totals_only: Annotated[
            bool, typer.Option("--totals-only", help="Print only the totals page.")
        ] = False,
        fmt: FormatOption = OutputFormat.text,
        output: OutputOption = None,
        per_doc: PerDocOption = False,
    ) -> None:
        from annoscore.tasks.muc import cyclic_gc_paused

        with cyclic_gc_paused():  # see its docstring; lifted once everything is written
            _run(
                config=config,
                key=key,
                response=response,
                task=task,
                summary=summary,
                history=history,
                no_files=no_files,
                text_filter=text_filter,
                undefined=undefined,
                totals_only=totals_only,
                fmt=fmt,
                output=output,
                per_doc=per_doc,
            )


def _run(
    *,
    config: Path,
    key: Path | None,
    response: Path | None,
    task: str | None,
    summary: Path | None,
    history: Path | None,
    no_files: bool,
    text_filter: str,
    undefined: str,
    totals_only: bool,
    fmt: OutputFormat,
    output: Path | None,
    per_doc: bool,
) -> None:
    from annoscore.report import muc as report
    from annoscore.tasks.muc import MucDetails, load_config, score_muc

    if undefined not in ("*", "0"):
        raise InputError(f"--undefined {undefined!r}: expected '*' or '0'")
    cfg = load_config(config, task)
    result = score_muc(cfg, key, response, text_filter=text_filter, per_doc=per_doc)
    details = result.details
    assert isinstance(details, MucDetails)
    dump_history = cfg.flag("dump_map_history")
    if not no_files:
        if summary is not None or "report_summary_file" in cfg.given:
            _write(summary or cfg.file("report_summary_file"), report.report_summary(result))
        if history is not None or dump_history:
            _write(history or cfg.file("map_history_file"), report.map_history_tcl(details))
        if "score_report_file" in cfg.given:
            _write(cfg.file("score_report_file"), report.score_report(result, undefined))
    if fmt is OutputFormat.json and (dump_history or history is not None):
        result.extra["map_history"] = report.to_json(report.map_history(details))

    def text(res: object) -> str:
        return report.score_report(result, undefined, document_pages=not totals_only)

    emit(result, fmt, output, text=text)
