"""The MUC report writers' fast paths pinned to straightforward renderings, on random data.

- :func:`score_report` reads each document's page from the count matrix and writes each
  distinct row once; :func:`reference_report` writes every row of every document's
  :class:`Counts` with :func:`score_row` and :func:`f_measure_lines`.
- The map history writer (caches by record identity and by value, tallies packed in one
  integer, SGML ids checked all at once) must write :func:`to_tcl` of :func:`map_history`,
  also for ids that need braces or escapes, template-style pairs (no offsets) and optional
  objects.
- The named entity report summary keeps each distinct line; :func:`reference_ne_summary`
  makes every pair's line afresh.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from pathlib import Path

import pytest

from annoscore.align.muc_records import (
    ClassAlignment,
    DocumentAlignment,
    FillPair,
    ObjectPair,
    SlotPair,
)
from annoscore.counts import Counts
from annoscore.formats.muc_config import ClassDef, SlotDef
from annoscore.metrics.muc import MucDetails
from annoscore.metrics.tallies import Tally
from annoscore.report.muc import (
    _page_plan,
    f_measure_lines,
    report_summary,
    score_page,
    score_report,
    score_row,
)
from annoscore.report.muc_history import (
    _packed,
    _plain_words,
    _tcl_word,
    _unpacked,
    map_history,
    map_history_chunks,
    map_history_tcl,
)
from annoscore.result import Result
from annoscore.tasks.muc import load_config
from annoscore.templates import TemplateFill, TemplateObject, TemplateSlot
from tests.muc_random import NeShape, ne_files
from tests.muc_scoring import score_configured
from tests.oracles.tcl import to_tcl

CONFIG = """:scoring_task named_entity
:key_file key.sgml
:response_file response.sgml
:doc_sections HL TXT
"""


def _corpus(rng: random.Random, folder: Path, undefined: str = "null") -> Result:
    """Score a random named entity key and response written to ``folder``."""
    shape = NeShape(
        documents=(1, 5),
        tags=(0, 12),
        numbers=("7", "9301", "12", "55", "880", "3"),
        added_tag='<ENAMEX TYPE="PERSON">',
    )
    key, rsp = ne_files(rng, shape)
    (folder / "key.sgml").write_text(key, encoding="utf-8")
    (folder / "response.sgml").write_text(rsp, encoding="utf-8")
    (folder / "muc.config").write_text(CONFIG, encoding="utf-8")
    return score_configured(folder / "muc.config", undefined=undefined)


# ------------------------------------------------------------------ score report
def reference_row(label: str, t: Tally, undefined: str) -> str:
    """A score row with each percentage rounded half up from exact fractions."""

    def percent(num: Fraction, den: int) -> str:
        if den == 0:
            return f"{undefined:>4}"
        return f"{math.floor(100 * num / den + Fraction(1, 2)):4d}"

    counted = t.cor + t.par + t.inc
    credit = t.cor + Fraction(t.par, 2)
    substituted = t.inc + Fraction(t.par, 2)
    return (
        f"{label[:12]:<12}{t.pos:6d}{t.act:6d}|{t.cor:4d}{t.par:4d}{t.inc:5d}|"
        f"{t.mis:4d}{t.spu:5d}{t.non:5d}|"
        + percent(credit, t.pos)
        + percent(credit, t.act)
        + percent(Fraction(t.mis), t.pos)
        + percent(Fraction(t.spu), t.act)
        + percent(substituted, counted)
        + percent(substituted + t.mis + t.spu, counted + t.mis + t.spu)
    )


def reference_page(details: MucDetails, counts: Counts, undefined: str) -> list[str]:
    """Every line of a page, row by row."""
    lines: list[str] = []
    for entry in _page_plan(details):
        if isinstance(entry, str):
            lines.append(entry)
        else:
            label, prefix = entry
            lines.append(reference_row(label, Tally.from_counts(counts, prefix), undefined))
    total = Tally.from_counts(counts)
    return [*lines, reference_row("ALL SLOTS", total, undefined), *f_measure_lines(total)]


def reference_report(result: Result, undefined: str, document_pages: bool) -> str:
    details = result.details
    pages: list[list[str]] = []
    if document_pages:
        for doc, counts in result.document_counts().items():
            pages.append([f"Document {doc}", *reference_page(details, counts, undefined)])
    title = f"TOTAL SCORES ({len(result.matrix.documents)} documents)"
    pages.append([title, *reference_page(details, result.counts, undefined)])
    return "\f\n".join("\n".join(page) + "\n" for page in pages)


@pytest.mark.parametrize("seed", range(5))
def test_score_report_equals_the_row_by_row_pages(seed: int, tmp_path: Path) -> None:
    for undefined, shown in (("null", "*"), ("zero", "0")):
        result = _corpus(random.Random(seed), tmp_path, undefined)
        for document_pages in (True, False):
            expected = reference_report(result, shown, document_pages)
            assert score_report(result, document_pages) == expected


def test_score_rows_and_pages_of_random_tallies(tmp_path: Path) -> None:
    rng = random.Random(7)
    result = _corpus(rng, tmp_path)
    details = result.details
    assert isinstance(details, MucDetails)
    keys = sorted(result.counts.keys())
    for _ in range(200):
        t = Tally(*(rng.choice([0, 0, 1, 2, 3, 7, 150, 99999]) for _ in range(6)))
        for undefined in ("*", "0"):
            assert score_row(" a long label here", t, undefined) == reference_row(
                " a long label here", t, undefined
            )
    for _ in range(20):
        counts = Counts({k: rng.choice([0, 1, 2, 5, 40]) for k in keys if rng.random() < 0.7})
        assert score_page(details, counts, "*") == reference_page(details, counts, "*")


# ------------------------------------------------------------------ map history
def _history_of_mappings(details: MucDetails) -> str:
    return "{\n" + "".join(to_tcl(doc) + "\n" for doc in map_history(details)) + "}\n"


@pytest.mark.parametrize("seed", range(5))
def test_map_history_equals_the_tcl_of_its_mappings(seed: int, tmp_path: Path) -> None:
    result = _corpus(random.Random(seed), tmp_path)
    details = result.details
    assert isinstance(details, MucDetails)
    written = map_history_tcl(details)
    assert written == _history_of_mappings(details)
    assert "".join(map_history_chunks(details, documents=2)) == written


def _synthetic_details(rng: random.Random, folder: Path) -> MucDetails:
    """Alignment records no reader makes: odd ids, template-style pairs, shared records."""
    config = load_config(None, "ne")
    ids = ["A-1", "", "a b", "x{y", "}{", "t\\", "é-2", "p\u3000q", "ok-3", "s;t", "$v"]
    statuses = ["cor", "par", "inc", "mis", "spu", "non", "uns", "opt", "rem", "odd one"]
    texts = ["Acme", "the Acme Corp.", "", "{brace", "x y", "PERSON"]
    definitions = [
        SlotDef("enamex", "type", "type", True, 1.0, "set"),
        SlotDef("enamex", "text", "text", True, 1.0, "string"),
        SlotDef("enamex", "ref", "ref", False, 1.0, "pointer"),
    ]
    class_def = ClassDef("enamex", "enamex", True, 0.0)

    def fill() -> TemplateFill | None:
        if rng.random() < 0.3:
            return None
        return TemplateFill(rng.choice(texts), is_pointer=rng.random() < 0.2)

    def slot_record(definition: SlotDef) -> SlotPair:
        slot = TemplateSlot(definition.name, optional=rng.random() < 0.2)
        fills = [
            FillPair(rng.choice(statuses), fill(), fill()) for _ in range(rng.choice([0, 1, 1, 2]))
        ]
        return SlotPair(
            definition,
            slot if rng.random() < 0.8 else None,
            None,
            fills,
            slot_non=rng.choice([0, 0, 1]),
            key_alternative=rng.choice([0, 1]),
            response_alternative=rng.choice([0, 2]),
        )

    shared_records = [[slot_record(d) for d in definitions] for _ in range(4)]
    shared_slots = [slot_record(d) for d in definitions]

    def obj(sgml: bool) -> TemplateObject | None:
        """An SGML task's object (offsets, a section) or a template file's (neither)."""
        if rng.random() < 0.2:
            return None
        start = rng.randint(0, 50) if sgml else -1
        return TemplateObject(
            rng.choice(ids),
            "ENAMEX",
            "1",
            "1",
            (),
            optional=rng.random() < 0.2,
            section=rng.choice(["", "TXT", "H L"]) if sgml else "",
            start=start,
            end=start + 3 if sgml else -1,
        )

    documents: list[DocumentAlignment] = []
    for number in range(rng.randint(1, 4)):
        classes: list[ClassAlignment] = []
        for _ in range(rng.randint(0, 2)):
            pairs: list[ObjectPair] = []
            for _ in range(rng.randint(0, 8)):
                sgml = rng.random() < 0.7
                if rng.random() < 0.5:
                    records = rng.choice(shared_records)
                else:
                    records = [
                        rng.choice([slot_record(d), shared_slots[k]])
                        for k, d in enumerate(definitions)
                    ]
                f_score = rng.choice([None, 100.0, 50.0, 33.333])
                pairs.append(
                    ObjectPair(rng.choice(statuses), obj(sgml), obj(sgml), records, f_score)
                )
            classes.append(ClassAlignment(class_def, pairs))
        text_filter = rng.choice([None, "cor", "a b"])
        documents.append(DocumentAlignment(rng.choice(ids) or str(number), classes, text_filter))
    return MucDetails(config, documents)


@pytest.mark.parametrize("seed", range(30))
def test_map_history_of_odd_records_equals_the_tcl_of_its_mappings(
    seed: int, tmp_path: Path
) -> None:
    details = _synthetic_details(random.Random(seed), tmp_path)
    assert map_history_tcl(details) == _history_of_mappings(details)


def test_plain_words_are_those_tcl_writes_as_they_are() -> None:
    rng = random.Random(3)
    alphabet = 'ab-1.{}[]$"\\; \t\x1c\x85\xa0\u3000é_'
    for _ in range(2000):
        words = [
            "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4)))
            for _ in range(rng.randint(0, 4))
        ]
        assert _plain_words(words) == all(_tcl_word(w) == w and w for w in words), words


def test_packed_tallies_add_as_tuples() -> None:
    rng = random.Random(5)
    for _ in range(500):
        a = tuple(rng.randint(0, 10**6) for _ in range(6))
        b = tuple(rng.randint(0, 10**6) for _ in range(6))
        assert _unpacked(_packed(a) + _packed(b)) == tuple(x + y for x, y in zip(a, b, strict=True))


# ------------------------------------------------------------------ report summary
def reference_ne_summary(details: MucDetails) -> str:
    """Every pair's line made afresh (the chosen fill: the first tallied, else the first)."""

    def chosen(slot: SlotPair | None, side: str) -> tuple[str, str]:
        found: list[tuple[str, str]] = []
        for fill in slot.fills if slot is not None else []:
            value = fill.key if side == "key" else fill.response
            if value is not None:
                found.append((fill.status, value.text))
        tallied = [f for f in found if f[0] != "non"]
        named = [f for f in found if f[1]]
        return (tallied or named or [("", "")])[0]

    out: list[str] = []
    for alignment in details.documents:
        out += ["-" * 105, f"Document {alignment.document}"]
        out += [f"{'TAG':<11}{'TYPE':<5}{'TEXT':<5}{'KEY_TYPE':<13}{'RSP_TYPE':<13}"]
        out[-1] += f"{'KEY_TEXT':<50}RSP_TEXT"
        out.append("-" * 105)
        groups: tuple[list[str], list[str], list[str]] = ([], [], [])
        for cls in alignment.classes:
            for pair in cls.pairs:
                slots = {s.definition.name.lower(): s for s in pair.slots}
                kind, text = slots.get("type"), slots.get("text")
                (type_v, key_type), (text_v, key_text) = chosen(kind, "key"), chosen(text, "key")
                (rtype_v, rsp_type), (rtext_v, rsp_text) = (
                    chosen(kind, "response"),
                    chosen(text, "response"),
                )
                group = 0
                if pair.key is None:
                    type_v, text_v, group = rtype_v, rtext_v, 2
                elif pair.response is None:
                    group = 1
                    if pair.status == "non":
                        type_v = text_v = "opt"
                owner = pair.key or pair.response
                assert owner is not None
                groups[group].append(
                    f"{owner.class_name.upper():<11}{type_v or 'non':<5}{text_v or 'non':<5}"
                    f'{key_type:<13}{rsp_type:<13}{chr(34) + key_text + chr(34):<50}"{rsp_text}"'
                )
        out += [*groups[0], *groups[1], *groups[2]]
    return "\n".join(out) + "\n" if out else ""


@pytest.mark.parametrize("seed", range(5))
def test_named_entity_summary_equals_fresh_lines(seed: int, tmp_path: Path) -> None:
    result = _corpus(random.Random(seed), tmp_path)
    details = result.details
    assert isinstance(details, MucDetails)
    assert report_summary(result) == reference_ne_summary(details)
