"""``annoscore muc CONFIG``: the MUC scorer, its five tasks (TE, TR, ST templates; NE, CO SGML)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from annoscore.cli.common import (
    BootstrapOption,
    ConfidenceOption,
    FormatOption,
    OutputFiles,
    OutputFormat,
    OutputOption,
    PerDocOption,
    SeedOption,
    add_inputs,
    check_output_early,
    cyclic_gc_paused,
    emit,
    guarded,
)
from annoscore.errors import InputError
from annoscore.result import Result

HELP = (
    "Score MUC files as the MUC scoring software does, from its configuration file "
    "(:scoring_task, :class_defs, :slot_defs, :premodifiers, :doc_sections, ...): template "
    "files for template element, template relation and scenario template; SGML files for named "
    "entity and coreference. Prints the score report (one page per document, then the totals; "
    "for coreference one line per document and the TOTALS line); writes the report summary, map "
    "history and (coreference) partition files the configuration asks for."
)
EPILOG = (
    "Example: annoscore muc te.config --key key.tpl --response response.tpl --format json\n\n"
    "annoscore muc ne.config --summary ne.summary\n\n"
    "annoscore muc --task co --key key.sgml --response rsp.sgml --metric muc,bcub,ceafe\n\n"
    "JSON scores are the ALL SLOTS row: recall, precision, f_pr, f_2pr, f_p2r; counts its "
    "pos act cor par inc mis spu non, plus obj:CLASS:*, slot:CLASS:SLOT:*, text_filter:* (ST), "
    "subtask:CLASS:SLOT:VALUE:* and section:NAME:* (NE). Coreference: recall, precision, f_pr, "
    "f_2pr, f_p2r (and f1, the metric's own F) of the first --metric and METRIC_recall, ... of "
    "each; counts METRIC_recall_num, ..., "
    "key_classes, response_classes and markables:cor|mis|spu|opt."
)


def register(app: typer.Typer) -> None:
    @app.command("muc", help=HELP, epilog=EPILOG)
    @guarded
    def muc(
        config: Annotated[
            Path | None,
            typer.Argument(
                help="The scorer's main configuration file (optional for --task ne or co: "
                "the manual's defaults)."
            ),
        ] = None,
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
                help="template_element, template_relation, scenario_template, named_entity or "
                "coreference (or te, tr, st, ne, co); overrides :scoring_task.",
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
        partitions: Annotated[
            Path | None,
            typer.Option(
                "--partitions",
                help="Coreference: write the partition file here (else as :partition_file).",
            ),
        ] = None,
        metric: Annotated[
            str,
            typer.Option(
                "--metric",
                help="Coreference: the metrics, comma-separated (muc, bcub, ceafe, ceafm, blanc, "
                "lea, mentions or all); the first gives recall/precision/f1 and the text report.",
            ),
        ] = "muc",
        strict_text: Annotated[
            bool,
            typer.Option(
                "--strict-text",
                help="NE and CO: a response whose text differs from the key's outside the tags "
                "is an error (default: a warning naming the document and offset).",
            ),
        ] = False,
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
        bootstrap: BootstrapOption = 0,
        confidence: ConfidenceOption = 0.95,
        seed: SeedOption = 12345,
    ) -> None:
        with cyclic_gc_paused():  # see its docstring; lifted once everything is written
            _run(
                config=config,
                key=key,
                response=response,
                task=task,
                summary=summary,
                history=history,
                partitions=partitions,
                metric=metric,
                strict_text=strict_text,
                no_files=no_files,
                text_filter=text_filter,
                undefined=undefined,
                totals_only=totals_only,
                fmt=fmt,
                output=output,
                per_doc=per_doc,
                bootstrap=bootstrap,
                confidence=confidence,
                seed=seed,
            )


_ONLY: dict[str, tuple[str, ...]] = {
    "--metric": ("coreference",),
    "--partitions": ("coreference",),
    "--strict-text": ("named_entity", "coreference"),
}
"""The options that only some scoring tasks read, and those tasks.  (``--text-filter`` is left
to the score function, which takes it for every template task and records ``text_filter:none``
in the signature of the tasks it does not apply to.)"""


def _check_options(
    scoring_task: str, metric: str, partitions: Path | None, strict_text: bool
) -> None:
    """An option the scoring task does not read is an error (exit 2), as in ``spans`` and
    ``pharmaconer``: it would otherwise be silently ignored, the number not what was asked."""
    given = {
        "--metric": metric != "muc",
        "--partitions": partitions is not None,
        "--strict-text": strict_text,
    }
    for flag, tasks in _ONLY.items():
        if given[flag] and scoring_task not in tasks:
            raise InputError(
                f"{flag} has no effect with :scoring_task {scoring_task} "
                f"(only with {' and '.join(tasks)})"
            )


def _run(
    *,
    config: Path | None,
    key: Path | None,
    response: Path | None,
    task: str | None,
    summary: Path | None,
    history: Path | None,
    partitions: Path | None,
    metric: str,
    strict_text: bool,
    no_files: bool,
    text_filter: str,
    undefined: str,
    totals_only: bool,
    fmt: OutputFormat,
    output: Path | None,
    per_doc: bool,
    bootstrap: int,
    confidence: float,
    seed: int,
) -> None:
    from annoscore.report import muc as report
    from annoscore.report import muc_history as history_report
    from annoscore.tasks.muc import load_config, score_muc_any

    if undefined not in ("*", "0"):
        raise InputError(f"--undefined {undefined!r}: expected '*' or '0'")
    if totals_only and per_doc and fmt is OutputFormat.text:
        raise InputError(
            "--per-doc has no effect with --totals-only (the totals page only); drop one of them"
        )
    if no_files:
        named = [
            flag
            for flag, path in (
                ("--summary", summary),
                ("--map-history", history),
                ("--partitions", partitions),
            )
            if path is not None
        ]
        if named:
            raise InputError(
                f"--no-files writes no report file, yet {' and '.join(named)} names one; "
                "drop one of them"
            )
    cfg = load_config(config, task)
    _check_options(cfg.scoring_task, metric, partitions, strict_text)
    if config is None and (key is None or response is None):
        raise InputError("without a configuration file give --key and --response")
    result = score_muc_any(
        cfg, key, response, text_filter=text_filter, metrics=metric, strict_text=strict_text
    )
    details = result.details
    assert isinstance(details, report.MucDetails)
    dump_history = cfg.flag("dump_map_history")
    add_inputs(details.key_path, details.response_path)  # besides the configuration itself
    reports: dict[bool, str] = {}  # the score report (with document pages or not), made once

    def score_text(scored: Result, document_pages: bool = True) -> str:
        if scored.matrix is not result.matrix or scored.counts is not result.counts:
            return report.score_report(scored, undefined, document_pages)
        if document_pages not in reports:
            reports[document_pages] = report.score_report(result, undefined, document_pages)
        return reports[document_pages]

    check_output_early(output)
    if not no_files:
        with OutputFiles() as files:  # every file written (or the first error) on leaving
            if details.coref is not None and (
                partitions is not None or "partition_file" in cfg.given
            ):
                files.write(
                    partitions or cfg.file("partition_file"), [report.partition_file(details)]
                )
            if summary is not None or "report_summary_file" in cfg.given:
                files.write(
                    summary or cfg.file("report_summary_file"), [report.report_summary(result)]
                )
            if history is not None or dump_history:
                files.write(
                    history or cfg.file("map_history_file"),
                    history_report.map_history_chunks(details),
                )
            if "score_report_file" in cfg.given:
                files.write(cfg.file("score_report_file"), [score_text(result)])
    if fmt is OutputFormat.json and (dump_history or history is not None):
        result = result.with_extra(
            map_history=history_report.to_json(history_report.map_history(details))
        )

    def text(scored: Result) -> str:  # the score report file's text when it was written
        return score_text(scored, document_pages=not totals_only)

    emit(
        result,
        fmt,
        output,
        text,
        per_doc=per_doc,
        bootstrap=bootstrap,
        confidence=confidence,
        seed=seed,
    )
