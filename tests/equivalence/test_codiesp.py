"""CodiEsp D/P and X against the plain reference of ``tests/oracles/codiesp.py``, on random
adversarial files read by the real readers.

The generator is built to hit the D/P scan and make it decline: ASCII files (the scan, with LF
or CRLF line ends, mixed too) and files with multi-byte UTF-8, a ``\\r`` not at a line's end,
blank lines or a missing final newline (the parser); document ids
and codes from ``tests/equivalence/ids.py`` (1-40 bytes, shared prefixes, last-byte variants,
numeric-looking forms such as ``007``, ``+7``, `` 7``) and codes of 1-12 bytes with exactly 8
and 9, upper case, non-ASCII letters whose lower case differs (``Ä``, the Kelvin sign, ``İ``);
duplicates, documents on one side only, interleaved documents, ranks past the depth, chunk
sizes from 16 bytes to 1 MiB (lines across chunk boundaries), more distinct codes than the
scan's first table holds, and a file past the 1 MiB chunk.  Every option is drawn at random.
Counts, scores, per-document counts and warnings must be equal (MAP, a float sum, to 1e-12).

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import math
import os
import random
import re
from pathlib import Path

import pytest

from annoscore.align.documents import MissingDocs
from annoscore.formats import codiesp, codiesp_scan
from annoscore.metrics.codiesp import CodiespDetails
from annoscore.report import codiesp as report_codiesp
from annoscore.report.codiesp import RULE, render_explainable, render_ranked
from annoscore.result import Result
from annoscore.tasks.codiesp import (
    ExplainableOptions,
    RankedOptions,
    TieOrder,
    ToleranceMode,
    score_codiesp_d,
    score_codiesp_x,
)
from tests.equivalence.ids import choose, id_pool, split_sides
from tests.oracles import codiesp as oracle

SCALE = float(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))
RANKED_CASES = max(1, int(1000 * SCALE))
EXPLAINABLE_CASES = max(1, int(800 * SCALE))
BATCH = 50
FORBIDDEN = '\t\n\r"'
SPECIAL_CODES = (
    "K1",
    "\u212a1",
    "k1",
    "Äb",
    "äb",
    "İx",
    "i̇x",
    "ß1",
    "SS1",
    "ABCDEFGH",
    "abcdefghi",
)


def warnings_of(result: Result) -> list[oracle.Warning]:
    return [
        (w.code, w.message.replace("{count}", str(w.count)), w.examples) for w in result.warnings
    ]


def same_float(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


def write_lines(
    path: Path, lines: list[str], rng: random.Random, plain: bool = False, stray: bool = False
) -> None:
    """``lines`` with random line ends (LF, CRLF, or both mixed line by line), blank lines
    (not when ``plain``: the files the scan reads have none) and sometimes no final line end;
    with ``stray``, now and then a ``\\r`` that is not a line's last (text to the parser, which
    drops one ``\\r`` before a line's ``\\n`` only)."""
    ends = rng.choice([["\n"], ["\n"], ["\n"], ["\r\n"], ["\n", "\r\n"]])
    out = []
    for line in lines:
        if rng.random() < 0.02 and not plain:
            out.append(rng.choice(["", "  ", " \t "]) + "\n")
        if stray and rng.random() < 0.1:
            line += rng.choice(["\r\r", "\rx"])
        out.append(line + rng.choice(ends))
    if out and rng.random() < 0.2:
        out[-1] = out[-1].rstrip("\n").removesuffix("\r")
    path.write_bytes("".join(out).encode("utf-8"))


def code_pool(rng: random.Random, size: int, wide: bool, max_bytes: int = 12) -> list[str]:
    """Codes of 1-12 bytes (8 and 9 often), some upper-cased, some special letters."""
    pool = id_pool(rng, size, max_bytes=max_bytes, forbidden=FORBIDDEN, wide=wide, numeric=False)
    out = []
    for code in pool:
        r = rng.random()
        out.append(code.upper() if r < 0.2 else code)
        if r > 0.85:
            out.append(code.swapcase())
    if wide and rng.random() < 0.5:
        out += rng.sample(SPECIAL_CODES, 4)
    return list(dict.fromkeys(out))


def interleave(rng: random.Random, queues: dict[str, list[str]], grouped: bool) -> list[str]:
    """The lines of each document in order, documents one after another or interleaved."""
    if grouped:
        return [line for lines in queues.values() for line in lines]
    pending = [list(lines) for lines in queues.values() if lines]
    out = []
    while pending:
        k = rng.randrange(len(pending))
        out.append(pending[k].pop(0))
        if not pending[k]:
            pending.pop(k)
    return out


# --- D and P ---------------------------------------------------------------------------------


def ranked_case(rng: random.Random, folder: Path, size: str) -> oracle.RankedSettings:
    """Write gold.tsv, pred.tsv and codes.tsv into ``folder``; return the settings."""
    plain = rng.random() < 0.5  # files the scan reads: ASCII, codes of 1-8 bytes
    wide = rng.random() < 0.4 and not plain
    numeric = rng.random() < 0.3 and size != "big"
    n_docs = {"small": rng.randint(1, 8), "many-codes": 20, "big": 2000}[size]
    docs = id_pool(rng, n_docs, forbidden=FORBIDDEN, wide=wide, numeric=numeric)
    if plain:
        docs = [d for d in docs if not d.startswith(" ")] or ["S1"]
    if rng.random() < 0.2:  # long ids among short ones, differing in their last byte only
        stem = "".join(rng.choice("ABCDEFGH") for _ in range(rng.randint(40, 600)))
        docs += [stem + "x", stem + "y", stem[:-1]]
    if numeric and rng.random() < 0.5:  # every id of a side numeric-looking
        docs = [d for d in docs if oracle.as_number(d) is not None] or ["007", "7", "+7"]
    gold_docs, pred_docs = split_sides(rng, docs)
    if not gold_docs:
        gold_docs = [docs[0]]
    if rng.random() < 0.25:  # every document on both sides (in one order when grouped)
        pred_docs = list(gold_docs)
    n_codes = {"small": rng.randint(1, 12), "many-codes": 600, "big": 400}[size]
    codes = code_pool(rng, n_codes, wide, 8 if plain else 12)
    valid = [c.lower() for c in codes if rng.random() < 0.7] + ["zz.9"]
    valid_lines = [
        (c.upper() if rng.random() < 0.2 else c) + ("\tes\ten" if rng.random() < 0.3 else "")
        for c in valid
    ]
    write_lines(folder / "codes.tsv", valid_lines, rng)
    per_gold = {"small": 4, "many-codes": 40, "big": 10}[size]
    per_pred = {"small": 7, "many-codes": 60, "big": 100}[size]
    gold = {
        d: [f"{d}\t{c}" for c in choose(rng, codes, rng.randint(1, per_gold))] for d in gold_docs
    }
    pred = {
        d: [f"{d}\t{c}" for c in choose(rng, codes, rng.randint(0, per_pred))] for d in pred_docs
    }
    stray = rng.random() < 0.2  # in files the scan reads too: its codes hold a \r then
    write_lines(folder / "gold.tsv", interleave(rng, gold, rng.random() < 0.5), rng, plain, stray)
    write_lines(folder / "pred.tsv", interleave(rng, pred, rng.random() < 0.6), rng, plain, stray)
    return oracle.RankedSettings(
        missing_docs=rng.choice(["ignore", "zero"]),
        extra_docs=rng.choice(["zero", "ignore"]),
        filter_gold=rng.random() < 0.3,
        depth=rng.choice([1000, 1000, None, 1, 2, 3, 5]),
        lowercase=rng.random() < 0.8,
        tie_order=rng.choice(["file", "file", "code"]),
    )


def ranked_options(
    codes: Path, settings: oracle.RankedSettings, measures: tuple[str, ...] = ()
) -> RankedOptions:
    """The options of ``settings`` (the oracle's) for the code under test."""
    return RankedOptions(
        codes=codes,
        missing_docs=MissingDocs(settings.missing_docs),
        extra_docs=MissingDocs(settings.extra_docs),
        filter_gold=settings.filter_gold,
        depth=settings.depth,
        lowercase=settings.lowercase,
        tie_order=TieOrder(settings.tie_order),
        measures=measures,
    )


def check_tables(result: Result, text: str, case: str) -> None:
    """The text layout's per-document tables (made from one scoring per distinct row of counts:
    :meth:`Result.units_of`, in pieces of ``BLOCK`` documents) are the plain loop's, each gold
    document scored from :attr:`Result.documents`; ``text`` was rendered before those were made
    (with ``--per-doc``'s table of average precision, of every document, for D).  The F1
    script's tables and micro averages are the text of X whole, and end D's before its
    ``P|R|F1`` line."""
    details = result.details
    assert isinstance(details, CodiespDetails)
    tables = [(key, title, sorted(details.gold_documents)) for key, title in
              (("precision", "Precision"), ("recall", "Recall"), ("f1", "F-score"))]  # fmt: skip
    if "map" in result.scores:
        tables.append(("map", "Average precision", sorted(result.documents)))
    block: list[str] = []
    for key, title, documents in tables:
        lines = [RULE, f"Clinical case name\t\t\t{title}", RULE]
        for doc in documents:
            unit = result.documents.get(doc)
            value = None if unit is None else unit.scores.get(key)
            lines += [f"{doc}\t\t{'-' if value is None else round(value, 3)}", RULE]
        assert "\n".join(lines) + "\n\n" in text, (case, key)
        if key != "map":
            name = "F-score" if key == "f1" else title.lower()
            micro = result.scores.get(key)
            block += [*lines, "", f"Micro-average {name} = {_plain(micro)}", ""]
    block += [RULE, "MICRO-AVERAGE STATISTICS:", RULE]
    for name, key in (("precision", "precision"), ("recall", "recall"), ("F-score", "f1")):
        block += [f"Micro-average {name} = {_plain(result.scores.get(key))}", ""]
    tail = "\n".join(block) + "\n"
    if "map" in result.scores:
        last = "|".join(_plain(result.scores.get(k)) for k in ("precision", "recall", "f1"))
        assert text.endswith(f"{tail}{last}\n"), case
    else:
        assert text == tail, case


def _plain(value: float | None) -> str:
    return "-" if value is None else str(round(value, 3))


def check_ranked(folder: Path, settings: oracle.RankedSettings, case: str) -> None:
    gold, pred, codes = folder / "gold.tsv", folder / "pred.tsv", folder / "codes.tsv"
    options = ranked_options(codes, settings)
    result = score_codiesp_d(gold, pred, options)
    check_tables(result, render_ranked(result.shown(documents=True)), case)
    expected = oracle.score_ranked(gold, pred, codes, settings)
    assert same_float(result.scores["map"], expected.scores["map"]), case
    for key in ("precision", "recall", "f1"):
        assert result.scores[key] == expected.scores[key], (case, key)
    for key in ("tp", "fp", "fn", "queries"):
        assert result.counts[key] == expected.counts[key], (case, key)
    assert same_float(result.counts["ap_sum"], expected.counts["ap_sum"]), case
    documents = result.document_counts()
    assert list(documents) == list(expected.documents), case
    for doc, want in expected.documents.items():
        got = documents[doc]
        for key, value in want.items():
            assert same_float(float(got[key]), float(value)), (case, doc, key)
    assert warnings_of(result) == expected.warnings, case


@pytest.mark.parametrize("batch", range(max(1, RANKED_CASES // BATCH)))
def test_ranked_equals_the_reference(
    batch: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for k in range(BATCH):
        seed = 1000 * batch + k
        rng = random.Random(seed)
        size = "many-codes" if k == BATCH - 1 else "small"
        monkeypatch.setattr(codiesp_scan, "_CHUNK", rng.choice([16, 40, 64, 200, 1000, 1 << 20]))
        monkeypatch.setattr(report_codiesp, "BLOCK", (1, 2, 3, 1 << 16)[seed % 4])
        folder = tmp_path / str(k)
        folder.mkdir()
        settings = ranked_case(rng, folder, size)
        check_ranked(folder, settings, f"seed {seed} {settings}")


@pytest.mark.parametrize("seed", range(1, 1 + max(1, int(SCALE))))
def test_ranked_past_the_chunk_equals_the_reference(seed: int, tmp_path: Path) -> None:
    """Files past the 1 MiB chunk, read in whole chunks."""
    rng = random.Random(seed)
    settings = ranked_case(rng, tmp_path, "big")
    assert (tmp_path / "pred.tsv").stat().st_size > codiesp_scan._CHUNK
    check_ranked(tmp_path, settings, f"big seed {seed}")


def test_the_generator_reaches_the_scan_and_the_parser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both parts of the reader run on the generated files (the test would be empty if every
    file declined, or if none did)."""
    ran = dict.fromkeys(("scan", "parser", "scan, Windows line ends", "scan, a \\r as text"), 0)
    scan = codiesp._scan_code_rows

    def counted(*args):  # type: ignore[no-untyped-def]
        rows = scan(*args)
        ran["scan" if rows is not None else "parser"] += 1
        data = args[1].read_bytes()
        if rows is not None and b"\r\n" in data:
            ran["scan, Windows line ends"] += 1
        if rows is not None and re.search(rb"\r(?!\n)", data):
            ran["scan, a \\r as text"] += 1
        return rows

    monkeypatch.setattr(codiesp, "_scan_code_rows", counted)
    for seed in range(60):
        folder = tmp_path / str(seed)
        folder.mkdir()
        ranked_case(random.Random(seed), folder, "small")
        score_codiesp_d(
            folder / "gold.tsv", folder / "pred.tsv", RankedOptions(codes=folder / "codes.tsv")
        )
    assert min(ran.values()) > 2 and ran["scan"] > 20 and ran["parser"] > 20, ran


def test_the_generator_reaches_both_pairings_of_documents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Documents alike on both sides, in one order (``_index`` takes them as they are) and
    otherwise (they are paired): the generator makes both."""
    from annoscore.align import codes as aligned

    paired = {"alike": 0, "paired": 0}
    pair = aligned.pair_documents

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        paired["paired"] += 1
        return pair(*args, **kwargs)

    index = aligned._index

    def indexed(gold, pred, *args):  # type: ignore[no-untyped-def]
        paired["alike"] += gold.documents == pred.documents
        return index(gold, pred, *args)

    monkeypatch.setattr(aligned, "pair_documents", counted)
    monkeypatch.setattr(aligned, "_index", indexed)
    for seed in range(80):
        folder = tmp_path / str(seed)
        folder.mkdir()
        settings = ranked_case(random.Random(seed), folder, "small")
        check_ranked(folder, settings, f"seed {seed}")
    assert paired["alike"] > 8 and paired["paired"] > 20, paired


# --- X ---------------------------------------------------------------------------------------


def position(rng: random.Random, start: int, end: int) -> str:
    if rng.random() < 0.15:
        middle = rng.randint(start, end)
        return f"{start} {middle};{middle} {end}"
    return f"{start} {end}"


def explainable_case(rng: random.Random, folder: Path) -> oracle.XSettings:
    wide = rng.random() < 0.5
    docs = id_pool(rng, rng.randint(1, 6), forbidden=FORBIDDEN, wide=wide)
    gold_docs, pred_docs = split_sides(rng, docs)
    if not gold_docs:
        gold_docs = [docs[0]]
    codes = code_pool(rng, rng.randint(1, 8), wide)
    valid = [c.lower() for c in codes if rng.random() < 0.7] + ["zz.9"]
    split = rng.randint(0, len(valid))
    write_lines(folder / "codes-D.tsv", valid[:split] or ["zz.9"], rng)
    write_lines(folder / "codes-P.tsv", valid[split:] or ["zz.8"], rng)
    labels = ("DIAGNOSTICO", "PROCEDIMIENTO")
    references: list[tuple[str, str, str, int, int]] = []
    gold: dict[str, list[str]] = {}
    for doc in gold_docs:
        for code in choose(rng, codes, rng.randint(1, 4)):
            start = rng.randint(0, 60)
            end = start + rng.randint(0, 15)
            label = rng.choice(labels)
            references.append((doc, label, code, start, end))
            gold.setdefault(doc, []).append(
                f"{doc}\t{label}\t{code}\tref text\t{position(rng, start, end)}"
            )
    pred: dict[str, list[str]] = {}
    for doc in pred_docs:
        for _ in range(rng.randint(0, 5)):
            near = [r for r in references if r[0] == doc]
            if near and rng.random() < 0.7:
                _, label, code, start, end = rng.choice(near)
                if rng.random() < 0.3:
                    code = code.swapcase() if rng.random() < 0.5 else code
                start = max(0, start - rng.randint(-3, 13))
                end = end + rng.randint(-3, 13)
                label = label if rng.random() < 0.7 else rng.choice(labels)
            else:
                code = rng.choice(codes)
                start = rng.randint(0, 60)
                end = start + rng.randint(0, 20)
                label = rng.choice(labels)
            pred.setdefault(doc, []).append(
                f"{doc}\t{position(rng, start, max(start, end))}\t{label}\t{code}"
            )
    write_lines(folder / "gold.tsv", interleave(rng, gold, rng.random() < 0.5), rng)
    write_lines(folder / "pred.tsv", interleave(rng, pred, rng.random() < 0.5), rng)
    return oracle.XSettings(
        tolerance=rng.choice([10, 10, 0, 1, 5, 12]),
        mode=rng.choice(["contain", "contain", "symmetric"]),
        check_label=rng.random() < 0.3,
        filter_gold=rng.random() < 0.3,
        lowercase=rng.random() < 0.8,
    )


@pytest.mark.parametrize("batch", range(max(1, EXPLAINABLE_CASES // BATCH)))
def test_explainable_equals_the_reference(
    batch: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for k in range(BATCH):
        seed = 1000 * batch + k
        monkeypatch.setattr(report_codiesp, "BLOCK", (1, 2, 3, 1 << 16)[seed % 4])
        rng = random.Random(seed)
        folder = tmp_path / str(k)
        folder.mkdir()
        s = explainable_case(rng, folder)
        gold, pred = folder / "gold.tsv", folder / "pred.tsv"
        codes_d, codes_p = folder / "codes-D.tsv", folder / "codes-P.tsv"
        options = ExplainableOptions(
            codes_d=codes_d,
            codes_p=codes_p,
            tolerance=s.tolerance,
            tolerance_mode=ToleranceMode(s.mode),
            check_label=s.check_label,
            filter_gold=s.filter_gold,
            lowercase=s.lowercase,
        )
        result = score_codiesp_x(gold, pred, options)
        check_tables(result, render_explainable(result), f"seed {seed}")
        scores, counts, documents, warnings = oracle.score_explainable(
            gold, pred, codes_d, codes_p, s
        )
        case = f"seed {seed} {s}"
        assert dict(result.scores) == scores, case
        assert {k: result.counts[k] for k in ("tp", "fp", "fn")} == counts, case
        got = {
            d: {k: c[k] for k in ("tp", "fp", "fn")} for d, c in result.document_counts().items()
        }
        assert list(got) == list(documents) and got == documents, case
        assert warnings_of(result) == warnings, case
