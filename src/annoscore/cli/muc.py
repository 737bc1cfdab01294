"""``annoscore muc CONFIG``: the MUC scorer, its five tasks (TE, TR, ST templates; NE, CO SGML)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from annoscore.cli.common import (
    OutputFormat,
    choice,
    cyclic_gc_paused,
    guarded,
)
from annoscore.cli.options import Choice, Output, scoring_command
from annoscore.cli.writing import OutputFiles, add_inputs, check_output_early
from annoscore.errors import InputError
from annoscore.result import Result, Undefined
from annoscore.tasks.muc import (
    CoreferenceOptions,
    MucOptions,
    NamedEntityOptions,
    ScenarioOptions,
    TemplateOptions,
)

if TYPE_CHECKING:
    from annoscore.formats.muc_config import MucConfig
    from annoscore.scale.spool import FileBytes

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


UNDEFINED = {"*": Undefined.null, "0": Undefined.zero, **{u.value: u for u in Undefined}}
"""``--undefined``: MUC's own spellings (``*``, the rule; ``0``, the manual's pages) and the
values of the ``undefined`` option (:class:`~annoscore.tasks.muc.MucOptions`)."""


def _option_help(name: str) -> str:
    from annoscore.options import fields

    return next(" ".join(f.setting.help.split()) for f in fields(MucOptions) if f.name == name)


@guarded
@scoring_command
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
    no_files: Annotated[
        bool,
        typer.Option("--no-files", help="Write no report files, whatever the configuration says."),
    ] = False,
    undefined: Annotated[
        str, typer.Option("--undefined", help=_option_help("undefined"), **choice(tuple(UNDEFINED)))
    ] = "*",
    totals_only: Annotated[
        bool, typer.Option("--totals-only", help="Print only the totals page.")
    ] = False,
    *,
    options: Annotated[
        Choice, TemplateOptions, ScenarioOptions, NamedEntityOptions, CoreferenceOptions
    ],
    out: Output,
) -> None:
    """``annoscore muc`` (see :data:`HELP`)."""
    from annoscore.formats.files import filled
    from annoscore.metrics.muc import MucDetails
    from annoscore.report import muc as report
    from annoscore.report import muc_history as history_report
    from annoscore.tasks.muc import load_config, task_name
    from annoscore.tasks.muc_chunks import rendering
    from annoscore.tasks.registry import get

    def run() -> None:
        nonlocal key, response
        if totals_only and out.per_doc and out.format is OutputFormat.text:
            raise InputError(
                "--per-doc has no effect with --totals-only (the totals page only); drop one "
                "of them"
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
        if partitions is not None and cfg.scoring_task != "coreference":
            raise InputError(
                f"--partitions has no effect with :scoring_task {cfg.scoring_task} "
                "(only with coreference)"
            )
        scored = get(task_name(cfg.scoring_task))
        chosen = options.of(
            scored.options_class(),
            f":scoring_task {cfg.scoring_task}",
            config=config,
            undefined=UNDEFINED[undefined],
        )
        if config is None and (key is None or response is None):
            raise InputError("without a configuration file give --key and --response")
        # named by a configuration read from a URL: read whole from the URL's folder
        key = filled(key or cfg.file("key_file"))
        response = filled(response or cfg.file("response_file"))
        add_inputs(key, response)  # besides the configuration itself
        history_asked = history is not None or cfg.flag("dump_map_history")
        written = {} if no_files else _report_files(cfg, summary, history, partitions)
        if out.format is OutputFormat.html or (out.format is OutputFormat.json and history_asked):
            # pages that read the alignments: the chunks send them
            result = scored.score_with(key, response, chosen)
        else:  # the chunks (--jobs N) write their documents' reports, the alignments stay there
            with rendering(report.rendered(written)):
                result = scored.score_with(key, response, chosen)
        details = result.details
        assert isinstance(details, MucDetails)
        reports: dict[bool, str] = {}  # the score report (with document pages or not), made once

        def score_text(shown: Result, document_pages: bool = True) -> str:
            if shown.matrix is not result.matrix or shown.counts is not result.counts:
                return report.score_report(shown, document_pages)
            if document_pages not in reports:
                reports[document_pages] = report.score_report(result, document_pages)
            return reports[document_pages]

        check_output_early(out.output)
        wanted = [True] if "score_report_file" in cfg.given else []  # the score reports made
        if out.format is OutputFormat.text:
            wanted.append(not totals_only)
        if not no_files:
            with OutputFiles() as files:  # every file written (or the first error) on leaving
                spooled = details.rendered is not None
                with _fed_aside(spooled, files, result, written):
                    for pages in wanted:  # made while the chunks' texts are copied out
                        score_text(result, pages)
                if "score_report_file" in cfg.given:
                    files.write(cfg.file("score_report_file"), [score_text(result)])
        if out.format is OutputFormat.json and history_asked:
            result = result.with_extra(
                map_history=history_report.to_json(history_report.map_history(details))
            )

        def text(shown: Result) -> str:  # the score report file's text when it was written
            return score_text(shown, document_pages=not totals_only)

        # the span analysis of a page (named entity), its tags read again
        out.emit(result, text, scored.report_sides(key, response, chosen, result))

    # The collector is paused while the command reads, scores and writes, and lifted only once
    # run's objects are freed (lifted inside, it would walk them all once more: 0.1-0.2 s).
    with cyclic_gc_paused():
        run()


def _report_files(
    cfg: MucConfig, summary: Path | None, history: Path | None, partitions: Path | None
) -> dict[str, Path]:
    """The report files written besides the score report, by kind (``partitions``,
    ``summary``, ``history``: :func:`annoscore.report.muc.rendered`), in the order written:
    each named on the command line, else as the configuration says."""
    files: dict[str, Path] = {}
    if cfg.scoring_task == "coreference" and (
        partitions is not None or "partition_file" in cfg.given
    ):
        files["partitions"] = partitions or cfg.file("partition_file")
    if summary is not None or "report_summary_file" in cfg.given:
        files["summary"] = summary or cfg.file("report_summary_file")
    if history is not None or cfg.flag("dump_map_history"):
        files["history"] = history or cfg.file("map_history_file")
    return files


@contextlib.contextmanager
def _fed_aside(
    aside: bool, files: OutputFiles, result: Result, written: dict[str, Path]
) -> Iterator[None]:
    """The report files ``written`` (:func:`_report_files`) written to ``files`` in their
    order: with ``aside`` (the chunks' texts, bytes read from their files:
    :func:`_report_pieces`), fed from a thread of their own while the block runs
    (``annoscore muc --jobs N``: the parent makes the score report while the texts are
    copied, where it made it after them; named entity, 1,000 documents, 150 MB of map
    history: 0.3 s of the parent's serial part), else before it.  The feeding thread
    reads, the writing thread writes (:class:`~annoscore.cli.writing.OutputFiles`): both wait
    in system calls, and take the interpreter's lock for a moment between them; the switch
    interval is made short meanwhile, so that neither waits the 5 ms the block's Python code
    may otherwise hold the lock.  An error of the feeding is raised on leaving."""
    import sys
    import threading

    if not aside:
        for kind, path in written.items():
            files.write(path, _report_pieces(result, kind))
        yield
        return
    failed: list[BaseException] = []

    def feed() -> None:
        try:
            for kind, path in written.items():
                files.write(path, _report_pieces(result, kind))
        except BaseException as error:  # raised on leaving
            failed.append(error)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(min(interval, SWITCH_INTERVAL))
    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    try:
        yield
    finally:
        feeder.join()
        sys.setswitchinterval(interval)
    if failed:
        raise failed[0]


SWITCH_INTERVAL = 0.0002
"""The interpreter's switch interval (seconds) while the chunks' texts are fed aside
(:func:`_fed_aside`)."""


def _report_pieces(result: Result, kind: str) -> Iterable[str | bytes | FileBytes]:
    """The text of the report file of ``kind`` (:func:`_report_files`): the chunks' texts
    copied as they wrote them (``--jobs N``), else made here of the alignments."""
    from annoscore.metrics.muc import MucDetails
    from annoscore.report import muc as report
    from annoscore.report import muc_history as history_report

    details = result.details
    assert isinstance(details, MucDetails)
    if details.rendered is not None:  # written per document by the chunks
        return report.encoded_pieces(details, kind, *(("{\n", "}\n") if kind == "history" else ()))
    if kind == "partitions":
        return [report.partition_file(details)]
    if kind == "summary":
        return [report.report_summary(result)]
    return history_report.map_history_chunks(details)


def register(app: typer.Typer) -> None:
    app.command("muc", help=HELP, epilog=EPILOG)(muc)
