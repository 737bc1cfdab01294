"""``annoscore muc`` named entity and coreference on their two SGML files cut before ``<DOC>``
tags (:mod:`annoscore.scale.cut_muc`), details and warnings made one run's
(:mod:`annoscore.tasks.muc_chunks`).  Random adversarial corpora scored with ``--jobs`` 1, 2 and
3: identical bytes (JSON with documents, the text report, the score report with its document
pages, the summary, the map history and the partitions), warnings and errors included.

The corpora: documents on one side only, the response in another order, texts that differ
outside the tags, tags outside every section, attributes the configuration does not define,
``<DOC>`` in lower case, numbers spelled otherwise on the two sides (``12-3``, ``123``), text
between documents, and where a naive byte split would cut a document: ``<DOC>`` tags inside
comments (``<!-- </DOC><DOC><DOCNO>5</DOCNO> -->``), inside another tag's attribute value,
``<DOCUMENT>`` tags; and in broken ones a byte-order mark, a document number used twice, a
document left open, a comment left open, a ``<DOC>`` inside a document.  Coreference adds
optional markables, MINs that are not in the text and REF alternatives.  Most clean corpora
are checked to be really cut.  ``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of
corpora (default 1).
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

import annoscore
import annoscore.scale as scale
from annoscore.errors import InputError
from annoscore.report import muc as report
from annoscore.report import muc_history
from annoscore.report.generic import render
from annoscore.result import Result
from annoscore.scale.cut_muc import split_sgml
from annoscore.tasks.registry import TASKS
from tests.scale.test_lines import MULTIPLIER, _jobs

CASES = max(4, int(10 * MULTIPLIER))

NE_CONFIG = """:scoring_task named_entity
:doc_sections HL TXT
:class_defs
    "enamex  enamex  scored  0"
    "timex   timex   scored  0"
:slot_defs
    "enamex  type    type    scored    4  set"
    "enamex  text    text    scored    4  string"
    "enamex  status  status  unscored  4  set"
    "enamex  alt     alt     unscored  4  string"
    "timex   type    type    scored    4  set"
    "timex   text    text    scored    4  string"
    "timex   status  status  unscored  4  set"
    "timex   alt     alt     unscored  4  string"
"""

WORDS = ["Ann", "Bob", "Acme", "said", "the", "of", "Paris", "in", "March", "é", "ü", "&amp;"]
NE_TYPES = [("ENAMEX", "PERSON"), ("ENAMEX", "ORGANIZATION"), ("TIMEX", "DATE")]


@pytest.fixture(autouse=True)
def _small_files_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)
    monkeypatch.setattr(scale.cut_muc, "MUC_MIN_BYTES", 0)


def _ne_text(rng: random.Random, words: list[str], tagged: bool) -> str:
    """Words with some of them tagged (in the key: ``tagged``; the response tags others)."""
    out = []
    for word in words:
        roll = rng.random()
        if roll < 0.35:
            name, kind = rng.choice(NE_TYPES)
            extra = rng.choice(["", "", ' STATUS="OPT"', ' COLOR="red"', f' ALT="{word}"'])
            if not tagged and rng.random() < 0.3:
                kind = rng.choice(NE_TYPES)[1]
            out.append(f'<{name} TYPE="{kind}"{extra}>{word}</{name}>')
        else:
            out.append(word)
    return " ".join(out)


def _co_text(rng: random.Random, words: list[str]) -> str:
    """Words with COREF markables (some optional, some with a MIN not in their text, some with
    REF alternatives)."""
    out = []
    ids: list[int] = []
    for k, word in enumerate(words):
        if rng.random() < 0.4:
            attributes = f'ID="{k}"'
            if ids and rng.random() < 0.7:
                ref = rng.choice(ids)
                attributes += f' TYPE="IDENT" REF="{ref}"'
                if rng.random() < 0.1:
                    attributes = attributes[:-1] + f'|{rng.choice(ids)}"'  # an alternative
            if rng.random() < 0.15:
                attributes += ' STATUS="OPT"'
            if rng.random() < 0.1:
                attributes += ' MIN="nowhere"'
            ids.append(k)
            out.append(f"<COREF {attributes}>{word}</COREF>")
        else:
            out.append(word)
    return " ".join(out)


def _document(
    rng: random.Random, task: str, number: str, words: list[str], key: bool, clean: bool
) -> str:
    doc = rng.choice(["DOC", "DOC", "doc"]) if clean or rng.random() < 0.8 else "DOC"
    if task == "ne":
        head = _ne_text(rng, words[:3], key)
        body = _ne_text(rng, words[3:], key)
        if rng.random() < 0.1:  # a tag outside every section
            body += ' </TXT><ENAMEX TYPE="PERSON">Out</ENAMEX><TXT>'
        sections = f"<HL> {head} </HL>\n<TXT>\n{body}\n</TXT>"
    else:
        sections = f"<TEXT>\n{_co_text(rng, words)}\n</TEXT>"
    comment = ""
    if rng.random() < 0.1:
        comment = "<!-- a note: </DOC><DOC><DOCNO> 99 </DOCNO> -->\n"
    return f"<{doc}>\n<DOCNO> {number} </DOCNO>\n{comment}{sections}\n</{doc}>\n"


def _between(rng: random.Random) -> str:
    """What may stand between two documents (ignored by the reader)."""
    return rng.choice(
        [
            "",
            "",
            "\n",
            "a line of text between documents\n",
            '<NOTE a="<DOC>">\n',
            "<DOCUMENT>x</DOCUMENT>\n",
            "<!-- <DOC> -->\n",
        ]
    )


def _corpus(rng: random.Random, root: Path, task: str, clean: bool) -> dict[str, Any]:
    count = rng.choice([rng.randint(2, 14), rng.randint(15, 40)])
    numbers = [str(n) for n in rng.sample(range(1, 10_000), count)]
    texts = {n: [rng.choice(WORDS) for _ in range(rng.randint(3, 14))] for n in numbers}
    key_numbers = [n for n in numbers if rng.random() < 0.9] or numbers[:1]
    response_numbers = [n for n in numbers if rng.random() < 0.85]
    if rng.random() < 0.3:
        rng.shuffle(response_numbers)
    sides = []
    for side, chosen in ((True, key_numbers), (False, response_numbers)):
        parts = []
        for number in chosen:
            words = list(texts[number])
            if not side and rng.random() < 0.1:  # a text that differs outside the tags
                words[rng.randrange(len(words))] = "changed"
            spelled = number
            if not side and len(number) > 1 and rng.random() < 0.2:
                spelled = number[0] + "-" + number[1:]  # the same number spelled otherwise
            parts.append(_between(rng) + _document(rng, task, spelled, words, side, clean))
        sides.append(parts)
    if not clean:
        broken = sides[1] if sides[1] and rng.random() < 0.5 else sides[0]
        k = rng.randrange(len(broken))
        kind = rng.choice(["bom", "twice", "open", "comment", "nested"])
        if kind == "bom":
            broken.insert(0, "\ufeff")
        elif kind == "twice":
            broken.append(broken[k])  # a number used twice
        elif kind == "open":
            broken[k] = broken[k].replace("</DOC>", "", 1).replace("</doc>", "", 1)
        elif kind == "comment":
            broken.insert(k, "<!-- not closed\n")
        else:
            broken[k] = broken[k].replace("\n", "\n<DOC>\n", 1)  # a <DOC> inside a document
    for name, parts in zip(("key.sgml", "response.sgml"), sides, strict=True):
        (root / name).write_text("".join(parts), encoding="utf-8")
    options: dict[str, Any] = {}
    if task == "ne":
        (root / "ne.config").write_text(NE_CONFIG, encoding="utf-8")
        options["config"] = root / "ne.config"
    else:
        options["metric"] = rng.choice([("muc",), ("muc", "bcub"), ("all",)])
    if rng.random() < 0.2:
        options["undefined"] = "zero"
    return options


KINDS = ("summary", "history", "partitions")
"""The reports the chunks of ``annoscore muc --jobs N`` write per document."""
RENDERED: list[bool] = []
"""Whether each result made with :data:`KINDS` asked for was written per document."""


def _output(
    task: str, gold: Path, system: Path, jobs: int, rendered: bool = False, **options: Any
) -> str:
    """Every layout of a run's result (:func:`_output_of`); ``rendered``: with the chunks
    writing their documents' reports, as ``annoscore muc`` has them
    (:func:`annoscore.tasks.muc_chunks.rendering`)."""
    from annoscore.tasks.muc_chunks import rendering

    try:
        if rendered:
            with rendering(report.rendered(KINDS)):
                result = annoscore.score(task, gold, system, jobs=jobs, **options)
                RENDERED.append(result.details.rendered is not None)  # type: ignore[union-attr]
                _encoded_pieces_are_the_reports(result)
        else:
            result = annoscore.score(task, gold, system, jobs=jobs, **options)
    except InputError as error:
        return f"error: {error}"
    return _output_of(result)


def _encoded_pieces_are_the_reports(result: Result) -> None:
    """The bytes ``annoscore muc`` writes of the texts the chunks wrote are the reports'."""
    details = result.details
    if details.rendered is None:  # type: ignore[union-attr]
        return
    wholes = {
        "summary": report.report_summary(result),
        "history": muc_history.map_history_tcl(details),  # type: ignore[arg-type]
    }
    if details.coref is not None:  # type: ignore[union-attr]
        wholes["partitions"] = report.partition_file(details)  # type: ignore[arg-type]
    for kind, whole in wholes.items():
        head, tail = ("{\n", "}\n") if kind == "history" else ("", "")
        pieces = report.encoded_pieces(details, kind, head, tail)  # type: ignore[arg-type]
        written = b"".join(p if isinstance(p, bytes) else b"".join(p.blocks()) for p in pieces)
        assert written == whole.encode("utf-8", "backslashreplace"), kind


def _output_of(result: Result) -> str:
    """Every layout of a MUC result: JSON with documents, the text report, the score report
    with and without document pages, the summaries, the map history, the partitions."""
    task = result.task
    shown = result.shown(documents=True, types=True, averages=True)
    text = TASKS[task].text_renderer()
    out = [render(shown, "json"), text(result) if text is not None else ""]
    details = result.details
    out += [report.report_summary(result)]  # (coreference's or named entity's own)
    if task.startswith("muc-") and task != "muc-coreference":
        out += [report.score_report(result, True), report.score_report(result, False)]
        out += list(muc_history.map_history_chunks(details, 3))  # type: ignore[arg-type]
    else:
        out += [report.partition_file(details)]  # type: ignore[arg-type]
        out += list(muc_history.map_history_chunks(details, 3))  # type: ignore[arg-type]
    return "\n".join(out)


def _same(
    task: str, gold: Path, system: Path, jobs: tuple[int, ...] = (2, 3), **options: Any
) -> str:
    """One run's output, checked equal with each number of ``jobs`` (random cases take turns:
    :func:`tests.scale.test_lines._jobs`), the chunks sending their alignments (the API) or
    their documents' reports (the command line; the API reads the files whole:
    :func:`test_the_api_reads_muc_files_whole`)."""
    one = _output(task, gold, system, 1, **options)
    for n in jobs:
        assert _output(task, gold, system, n, True, **options) == one, (task, n, options)
    return one


def test_the_api_reads_muc_files_whole(tmp_path: Path, exact: list[bool]) -> None:
    # the details of annoscore.score hold every alignment: chunks would send them, and the
    # parent's unpickling costs more than the cut saves; one run, as with one job
    rng = random.Random("muc-api")
    options = _corpus(rng, tmp_path, "ne", True)
    result = annoscore.score(
        "muc-named-entity", tmp_path / "key.sgml", tmp_path / "response.sgml", jobs=2, **options
    )
    assert not exact and result.details.documents  # type: ignore[union-attr]


@pytest.mark.parametrize("task", ["ne", "co"])
def test_random_muc_sgml_files_give_the_same_bytes(
    task: str, tmp_path: Path, exact: list[bool]
) -> None:
    name = {"ne": "muc-named-entity", "co": "muc-coreference"}[task]
    rng = random.Random(f"muc-cuts-{task}")
    RENDERED.clear()
    clean_cut = clean_total = errors = 0
    for case in range(CASES):
        root = tmp_path / str(case)
        root.mkdir()
        clean = case % 2 == 0
        options = _corpus(rng, root, task, clean)
        exact.clear()
        one = _same(name, root / "key.sgml", root / "response.sgml", _jobs(case), **options)
        errors += one.startswith("error")
        if clean and not one.startswith("error"):
            clean_total += 1
            clean_cut += bool(exact) and all(exact)
    assert clean_cut >= clean_total // 2 and clean_total >= CASES // 3, (clean_cut, clean_total)
    assert errors, "no broken corpus gave an error"
    assert sum(RENDERED) >= clean_cut, "the cut results were not written per document"


@pytest.mark.parametrize("task", ["ne", "co"])
def test_the_lines_of_sgml_chunks_are_not_counted(
    task: str, tmp_path: Path, exact: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    # what the chunks of named entity and coreference say names no line: the parent counts no
    # line before the workers start, and the chunks that warned (a text that differs) are not
    # scored again with their lines counted; the output is one run's all the same
    def counted(path: str, offsets: Any) -> list[int]:
        raise AssertionError(f"the lines of {path} were counted")

    monkeypatch.setattr(scale.cut_lines, "_lines_before", counted)
    name = {"ne": "muc-named-entity", "co": "muc-coreference"}[task]
    rng = random.Random(f"muc-lines-{task}")
    warned = 0
    for case in range(6):
        root = tmp_path / str(case)
        root.mkdir()
        options = _corpus(rng, root, task, True)
        exact.clear()
        one = _same(name, root / "key.sgml", root / "response.sgml", (2,), **options)
        warned += bool(exact) and all(exact) and "response text differs" in one
    assert warned, "no cut run warned"


def test_a_naive_byte_split_would_cut_a_muc_document(tmp_path: Path) -> None:
    # the middle byte falls inside the second document, whose comment holds a <DOC> tag: the
    # cut moves to the third document's tag
    def document(number: int, words: int, comment: str = "") -> str:
        body = " ".join(f'<ENAMEX TYPE="PERSON">w{k}</ENAMEX>' for k in range(words))
        return f"<DOC>\n<DOCNO> {number} </DOCNO>\n<TXT>\n{comment}{body}\n</TXT>\n</DOC>\n"

    inner = "<!-- " + "</DOC><DOC><DOCNO> 9 </DOCNO> " * 4 + "-->\n"
    text = document(1, 2) + document(2, 40, inner + inner) + document(3, 2)
    for name in ("key.sgml", "response.sgml"):
        (tmp_path / name).write_text(text, encoding="utf-8")
    data = text.encode()
    middle = len(data) // 2
    assert data.rfind(b"<DOCNO> 2 ", 0, middle) >= 0 and data.find(b"<DOCNO> 3 ", middle) > middle
    chunks = split_sgml(tmp_path / "key.sgml", tmp_path / "response.sgml", 2)
    assert chunks is not None and len(chunks) == 2
    assert data[chunks[1].gold_range[0] :].startswith(b"<DOC>\n<DOCNO> 3 ")
    assert chunks[1].system_range == chunks[1].gold_range


def test_a_document_number_far_from_its_tag_is_found() -> None:
    """The system search finds a document whose number stands more than the 64 KB it looks
    back first from its tag (then it looks back :data:`~annoscore.scale.cut_muc.LOOK` bytes,
    and no further)."""
    from annoscore.scale.cut_muc import LOOK, SgmlDocuments

    far = b"<DOC>\n<HL>" + b"x " * 50_000 + b"</HL>\n<DOCNO> 7 </DOCNO>\n</DOC>\n"
    data = b"<DOC>\n<DOCNO> 6 </DOCNO>\n</DOC>\n" + far
    documents = SgmlDocuments()
    key = b"<DOCNO> 7 </DOCNO>"
    assert documents.find(data, key, 0) == data.index(b"<DOC>\n<HL>")
    assert documents.boundary(data, 1) == (data.index(b"<DOC>\n<HL>"), key)
    beyond = b"<DOC>\n<HL>" + b"x " * LOOK + b"</HL>\n<DOCNO> 8 </DOCNO>\n</DOC>\n"
    assert documents.find(beyond, b"<DOCNO> 8 </DOCNO>", 0) == -1  # too far: no cut there


def test_a_cut_inside_a_comment_is_the_result_of_one_run(
    tmp_path: Path, exact: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a cutter that took the <DOC> in the comment: the chunk before it ends inside the
    # comment, an error, so one run scores the input (and its result is the same)
    import annoscore.scale.cut_muc as cut_muc

    text = "".join(
        f'<DOC><DOCNO>{n}</DOCNO><TXT><ENAMEX TYPE="PERSON">A</ENAMEX>'
        f"<!-- <DOC><DOCNO>{n}</DOCNO> --></TXT></DOC>\n"
        for n in range(1, 9)
    )
    (tmp_path / "key.sgml").write_text(text, encoding="utf-8")
    (tmp_path / "response.sgml").write_text(text, encoding="utf-8")
    (tmp_path / "ne.config").write_text(NE_CONFIG, encoding="utf-8")
    original = cut_muc.SgmlDocuments.boundary

    def in_the_comment(self: Any, data: Any, at: int) -> tuple[int, bytes] | None:
        found = original(self, data, at)
        if found is None:
            return None
        comment = data.find(b"<!-- <DOC>", found[0])
        return None if comment < 0 else (comment + 5, found[1])

    monkeypatch.setattr(cut_muc.SgmlDocuments, "boundary", in_the_comment)
    monkeypatch.setattr(cut_muc.SgmlDocuments, "find", lambda self, data, key, after: (
        -1 if (c := data.find(b"<!-- <DOC>", after + 1)) < 0 else c + 5))  # fmt: skip
    options = {"config": tmp_path / "ne.config"}
    one = _same("muc-named-entity", tmp_path / "key.sgml", tmp_path / "response.sgml", **options)
    assert not one.startswith("error")
    assert exact and not any(exact)  # cut, not used


CO_CONFIG = """:scoring_task coreference
:doc_sections TEXT
"""


@pytest.mark.parametrize("task", ["ne", "co", "st"])
def test_the_muc_command_writes_the_same_files_with_jobs(
    task: str, tmp_path: Path, cli: Any, exact: list[bool]
) -> None:
    # every file and output of annoscore muc, its chunks writing their documents' reports
    # (the text outputs), or one run (JSON with the map history reads the alignments)
    seed = {"ne": 2, "co": 1, "st": 1}[task]  # corpora whose cut is exact (most are not)
    rng = random.Random(f"muc-command-{task}-{seed}")
    if task == "st":
        _template_corpus(rng, tmp_path, True)
        config = TEMPLATE_CONFIG + ":key_file key.tpl\n:response_file response.tpl\n"
    else:
        _corpus(rng, tmp_path, task, True)
        config = (NE_CONFIG if task == "ne" else CO_CONFIG) + (
            ":key_file key.sgml\n:response_file response.sgml\n"
        )
    config += (
        ":score_report_file out.report\n:report_summary_file out.summary\n"
        ":dump_map_history yes\n:map_history_file out.history\n"
    )
    names = ["report", "summary", "history"]
    if task == "co":
        config += ":partition_file out.partitions\n"
        names.append("partitions")
    (tmp_path / "muc.config").write_text(config, encoding="utf-8")
    for extra in ((), ("--format", "json", "--per-doc"), ("--totals-only",)):
        outputs = []
        exact.clear()
        for jobs in ("1", "2", "3"):
            done = cli("muc", tmp_path / "muc.config", "--jobs", jobs, *extra)
            assert done.exit_code == 0, done.output
            files = [(tmp_path / f"out.{n}").read_text() for n in names]
            outputs.append((done.stdout, done.stderr, files))
            for n in names:
                (tmp_path / f"out.{n}").unlink()
        assert outputs[1] == outputs[0] and outputs[2] == outputs[0], extra
        if "json" in extra:  # JSON with the map history reads the alignments: one run
            assert not exact
        else:
            assert exact and all(exact), extra  # cut and combined


TEMPLATE_CONFIG = """:scoring_task scenario_template
:class_defs
    "A  a  scored  0"
    "B  b  scored  40"
    "R  r  scored  -1"
    "TEMPLATE  template  scored  0"
:slot_defs
    "TEMPLATE  CONTENT  content  scored  1  R"
    "A  NAME  name  scored  1  string"
    "A  TYPE  type  scored  4  set"
    "B  NAME  name  scored  1  string"
    "B  KIND  kind  scored  1  set"
    "R  ARG  arg  scored  1  A"
    "R  ARG2  arg2  scored  1  B"
    "R  KIND  kind  scored  1  set"
:premodifiers the a
:corporate_designators inc co
"""


def _template_corpus(rng: random.Random, root: Path, clean: bool) -> None:
    from tests.equivalence.ids import id_pool, split_sides
    from tests.equivalence.muc_cases import _SlotSpec, _template_file

    classes = {
        "A": [_SlotSpec("NAME", "string"), _SlotSpec("TYPE", "set")],
        "B": [_SlotSpec("NAME", "string"), _SlotSpec("KIND", "set")],
        "R": [_SlotSpec("ARG", "pointer", "A"), _SlotSpec("ARG2", "pointer", "B")],
        "TEMPLATE": [_SlotSpec("CONTENT", "pointer", "R")],
    }
    pool = id_pool(rng, rng.randint(3, 30), forbidden="<> \t", numeric=True)
    key_documents, response_documents = split_sides(rng, [p for p in pool if p])
    if rng.random() < 0.3:
        rng.shuffle(response_documents)
    common = rng.random() < 0.5
    key = _template_file(rng, classes, key_documents, True, common, "scenario_template")
    response = _template_file(rng, classes, response_documents, False, common, "x")
    if not clean:
        roll = rng.random()
        if roll < 0.3:
            key = "\ufeff" + key
        elif roll < 0.6 and key_documents:
            first = f"<A-{key_documents[0]}-1> :="
            key += f'\n<A-{key_documents[0]}-9> :=\n  NAME: "again"\n' if first in key else ""
    (root / "key.tpl").write_text(key, encoding="utf-8", newline="")
    (root / "response.tpl").write_text(response, encoding="utf-8", newline="")
    (root / "te.config").write_text(TEMPLATE_CONFIG, encoding="utf-8")


@pytest.mark.parametrize(
    "task", ["muc-template-element", "muc-template-relation", "muc-scenario-template"]
)
def test_random_muc_template_files_give_the_same_bytes(
    task: str, tmp_path: Path, exact: list[bool]
) -> None:
    rng = random.Random(f"muc-cuts-{task}")
    RENDERED.clear()
    clean_cut = clean_total = 0
    for case in range(CASES):
        root = tmp_path / str(case)
        root.mkdir()
        clean = case % 2 == 0
        _template_corpus(rng, root, clean)
        options: dict[str, Any] = {"config": root / "te.config"}
        if task == "muc-scenario-template":
            options["text_filter"] = rng.choice(["agreement", "relevance"])
        exact.clear()
        one = _same(task, root / "key.tpl", root / "response.tpl", _jobs(case), **options)
        if clean and not one.startswith("error"):
            clean_total += 1
            clean_cut += bool(exact) and all(exact)
    assert clean_cut >= clean_total // 3 and clean_total >= CASES // 3, (clean_cut, clean_total)
    assert sum(RENDERED) >= clean_cut, "the cut results were not written per document"


def test_spooled_texts_are_the_texts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Texts a chunk writes to its file (:class:`~annoscore.scale.spool.Spooled`) read back
    as they were, sent through a pickle as the file's name (the receiver opens the file and
    removes its name), joined in chunk order or in another, a lone surrogate kept aside and
    written as every output writes it."""
    import os
    import pickle

    from annoscore.metrics.muc import Rendered
    from annoscore.scale import spool

    first = spool.Spooled.written(str(tmp_path), {"a": ["x\n", "", "é\n"], "b": ["y\n"]})
    second = spool.Spooled.written(str(tmp_path), {"a": ["\udcff\n", "z\n"], "b": ["w"]})
    assert list(first["a"]) == [b"x\n", b"", "é\n".encode()] and list(first["b"]) == [b"y\n"]
    assert list(second["a"]) == ["\udcff\n", b"z\n"]
    sent = pickle.loads(pickle.dumps(second))
    assert len(os.listdir(tmp_path)) == 1  # the name of the file received is removed
    joined = spool.Spooled.joined([first["a"], sent["a"]])
    assert len(joined) == 5
    assert _bytes(joined) == "x\né\n\\udcff\nz\n".encode()
    again = spool.Spooled.joined([first["a"], sent["a"]], [4, 0, 3, 2, 1])
    assert list(again) == [b"z\n", b"x\n", "\udcff\n", "é\n".encode(), b""]
    assert _bytes(again) == "z\nx\n\\udcff\né\n".encode()
    assert Rendered({"a": again}).strings("a").__next__() == "z\n"
    monkeypatch.setattr(spool, "BLOCK", 2)  # blocks smaller than a text
    assert _bytes(joined) == "x\né\n\\udcff\nz\n".encode()


def test_spooled_bytes_keep_their_file_open(tmp_path: Path) -> None:
    """The pieces of a spool file waiting in a writer's queue keep the file open when nothing
    else holds it: its descriptor is not closed, nor its number given to another file."""
    import gc
    import os

    from annoscore.scale import spool

    pieces = list(spool.Spooled.written(str(tmp_path), {"a": ["x\n", "yz\n"]})["a"].encoded())
    gc.collect()
    os.open(tmp_path / "other", os.O_CREAT | os.O_RDWR)  # the number a closed file would free
    (piece,) = pieces
    assert os.pread(piece.fd, piece.stop - piece.start, piece.start) == b"x\nyz\n"


@pytest.mark.parametrize("failing", [None, "at once", "midway"])
def test_outputs_copy_another_files_bytes(
    failing: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An output file takes a stretch of another file's bytes in the kernel (``os.sendfile``);
    where that fails before a byte is copied, read in blocks instead (the same bytes), and
    where it fails midway, an error (never a half-copied output)."""
    import errno
    import os

    from annoscore.cli.writing import OutputFiles
    from annoscore.scale.spool import FileBytes

    source = tmp_path / "source"
    source.write_bytes(bytes(range(256)) * 100)
    sendfile = os.sendfile
    calls: list[int] = []

    def flaky(out: int, fd: int, at: int, count: int) -> int:
        calls.append(at)
        if failing == "at once" or (failing == "midway" and len(calls) > 1):
            raise OSError(errno.EINVAL, "no sendfile here")
        return sendfile(out, fd, at, min(count, 1000))

    monkeypatch.setattr(os, "sendfile", flaky)
    fd = os.open(source, os.O_RDONLY)
    try:
        pieces = [b"head", FileBytes(fd, 10, 25_010), b"tail"]
        if failing == "midway":
            with pytest.raises(InputError, match="no sendfile here"), OutputFiles() as files:
                files.write(tmp_path / "out", pieces)
            assert not (tmp_path / "out").exists()
            return
        with OutputFiles() as files:
            files.write(tmp_path / "out", pieces)
    finally:
        os.close(fd)
    assert (tmp_path / "out").read_bytes() == b"head" + source.read_bytes()[10:25_010] + b"tail"
    assert len(calls) == (1 if failing else 25)


def _bytes(spooled: Any) -> bytes:
    """The bytes an output file gets of ``spooled``: its stretches of files copied by
    :class:`~annoscore.cli.writing.OutputFiles` (a file's, then standard output's way)."""
    from annoscore.cli.writing import OutputFiles

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "out"
        with OutputFiles() as files:
            files.write(path, spooled.encoded())
        whole = path.read_bytes()
    pieces = spooled.encoded()
    assert whole == b"".join(p if isinstance(p, bytes) else b"".join(p.blocks()) for p in pieces)
    return whole


@pytest.mark.parametrize("failing", ["every", "some"])
def test_chunks_that_cannot_write_their_texts_send_their_alignments(
    failing: str, tmp_path: Path, exact: list[bool]
) -> None:
    """A chunk whose file cannot be written (``/dev/shm`` full: an :class:`OSError`) sends its
    alignments instead: every chunk so, they are joined as the API's are; some, the input is
    scored in one run; the same bytes either way."""
    from annoscore.tasks.muc_chunks import rendering

    written = report.rendered(KINDS)

    def render(details: Any) -> Any:
        first = details.documents[0].document if details.documents else ""
        if failing == "every" or first.endswith(("1", "3", "5", "7", "9")):
            raise OSError(28, "No space left on device")
        return written(details)

    rng = random.Random(f"muc-full-{failing}")
    combined = alone = 0
    for case in range(max(3, CASES // 2)):
        root = tmp_path / str(case)
        root.mkdir()
        options = _corpus(rng, root, "ne", True)
        gold, system = root / "key.sgml", root / "response.sgml"
        one = _output("muc-named-entity", gold, system, 1, **options)
        exact.clear()
        try:
            with rendering(render):
                result = annoscore.score("muc-named-entity", gold, system, jobs=2, **options)
        except InputError as error:
            assert one == f"error: {error}"
            continue
        assert _output_of(result) == one
        if failing == "every":
            assert result.details.rendered is None  # type: ignore[union-attr]
        combined += exact == [True]
        alone += exact == [False]
    # every chunk sending its alignments: joined; some: one run (some corpora's chunks all fail)
    assert combined if failing == "every" else alone, (combined, alone)


@pytest.mark.parametrize("task", ["named_entity", "coreference", "scenario_template"])
def test_a_cut_imports_what_its_chunks_import_before_the_workers_start(
    task: str, tmp_path: Path
) -> None:
    # a module a chunk imports is imported by every worker, and the reduce imports some of
    # them again in the parent: the cut imports them first, in the parent (a fresh process:
    # this one imported them already); one chunk scored in it then imports no module
    script = f"""
import sys
from pathlib import Path
from annoscore.scale import run
from annoscore.tasks.muc import NamedEntityOptions, CoreferenceOptions, ScenarioOptions
from annoscore.tasks.muc_chunks import muc_cut, rendering
from annoscore.report.muc import rendered
import annoscore.report.muc_history  # what the command line imports before it scores
import annoscore.scale.reduce  # what score_lines imports before its workers start
import annoscore.scale.cut_muc as cut_muc
import annoscore.scale.cut_lines as cut_lines
cut_muc.MUC_MIN_BYTES = cut_lines.MIN_LINE_BYTES = 0
task, root = {task!r}, Path({str(tmp_path)!r})
options = {{"named_entity": NamedEntityOptions, "coreference": CoreferenceOptions}}.get(
    task, ScenarioOptions
)(config=root / "muc.config")
suffix = "tpl" if task == "scenario_template" else "sgml"
gold, system = root / f"key.{{suffix}}", root / f"response.{{suffix}}"
with rendering(rendered(("summary",))), run.using(2):
    splitter = muc_cut(task)(gold, system, options)
    chunks = splitter(gold, system, 2)
    assert chunks is not None and len(chunks) > 1, chunks
    before = set(sys.modules)
    from annoscore.scale import _line_part
    part = _line_part("muc-" + task.replace("_", "-"), options, False, True, None, chunks[0])
    assert part.result is not None
    print(sorted(m for m in set(sys.modules) - before if m.startswith("annoscore")))
"""
    rng = random.Random(f"muc-imports-{task}")
    if task == "scenario_template":
        _template_corpus(rng, tmp_path, True)
        (tmp_path / "muc.config").write_text(TEMPLATE_CONFIG, encoding="utf-8")
    else:
        options = _corpus(rng, tmp_path, "ne" if task == "named_entity" else "co", True)
        config = NE_CONFIG if task == "named_entity" else ":scoring_task coreference\n"
        (tmp_path / "muc.config").write_text(config, encoding="utf-8")
        del options
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout


def test_the_objects_a_cut_run_keeps_per_process_outlive_it(tmp_path: Path) -> None:
    # the caches a MUC cut run keeps in each process (kept_per_process, the parsed attributes)
    # are held past the run, not freed by the command's process after the last chunk came
    # back (formats.muc_config.once_per_run); the next cut run's replace them
    from annoscore.formats.files import read_once
    from annoscore.formats.muc_config import HELD_PAST_RUN
    from annoscore.report.muc_history import map_history_tcl
    from annoscore.tasks.muc import NamedEntityOptions, score_muc_named_entity

    options = _corpus(random.Random("muc-held"), tmp_path, "ne", True)
    function = score_muc_named_entity.__wrapped__  # the chunk's own function: not cut again
    gold, system = tmp_path / "key.sgml", tmp_path / "response.sgml"
    kinds = ("named entity slots", "named entity aligner", "map history")
    held: list[list[Any]] = []
    for _ in range(2):
        with read_once():
            map_history_tcl(function(gold, system, NamedEntityOptions(**options)).details)
            made = [HELD_PAST_RUN[("annoscore.muc.kept", kind)] for kind in kinds]
        assert all(len(m) == 1 for m in made), made  # one object a kind, shared by the chunks
        assert [HELD_PAST_RUN[("annoscore.muc.kept", kind)] for kind in kinds] == made
        held.append(made)
    assert all(a is not b for a, b in zip(*held, strict=True))  # the second run's, anew
