"""Differential tests of the brat reader and of generic span scoring in every mode (issue 24).

Random adversarial brat folders are written to a temporary folder and scored through the real
readers and :func:`~annoscore.tasks.spans.score_spans`; the plain references of
``tests/oracles/brat.py`` and ``tests/oracles/spans.py`` read and score the same files one
mention at a time.  Counts (per document and per type), scores and warnings must be equal, and a
refused folder must be refused at the same file and line.

The generator aims at every fast path and threshold: document ids and type names from
``tests/equivalence/ids.py`` (1 to 80 bytes, multi-byte UTF-8, shared prefixes, last-byte
variants, numeric-looking), type names past the scan's 64 bytes and its 16-name fast numbering,
entity ids the scan takes and ones it declines, discontinuous spans, duplicates, repeated ids,
text after a space, byte-order marks, CRLF, blank lines, entity texts that differ from the
``.txt``, offsets with leading zeros or too large for the packed keys, documents on one side
only, files past the scan's chunk size; and, per case, the scorers' thresholds lowered at
random (the scan's chunk and its type numbering, the array path's row and token chunks, the
Hopcroft-Karp switch, the dense-cluster methods, the assignment solver's scipy and sparse
switches), so that small cases take the paths large inputs take.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import math
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from annoscore.errors import InputError
from annoscore.formats.brat import read_brat_corpus
from annoscore.tasks.spans import SpanOptions, score_spans
from tests.equivalence.ids import id_pool
from tests.oracles import brat as oracle_brat
from tests.oracles import spans as oracle

MULTIPLIER = max(1, int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1") or 1))

WORDS = ("alpha", "beta", "x", "y2", "kappa", "mu", "omega-3", "é", "naïve", "中文", "😀", "Ωmega")
SEPARATORS = (" ",) * 12 + ("  ", "\t", "\x0c", "\x1f", "\u2028", "\xa0", "\u3000", "\x85")


@dataclass
class Corpus:
    """A generated gold and system folder, and what a case needs to know about it."""

    gold: Path
    system: Path
    doc_ids: list[str]
    huge: bool = False
    notes: list[str] = field(default_factory=list)


def _text(rng: random.Random, words: int, ascii_only: bool) -> str:
    parts = []
    for _ in range(words):
        wide = not ascii_only and rng.random() < 0.3
        parts.append(rng.choice(WORDS) if wide else rng.choice(WORDS[:7]))
        parts.append(rng.choice(SEPARATORS[:16] if ascii_only else SEPARATORS))
    return "".join(parts)


def _fragments(rng: random.Random, limit: int, huge: bool) -> tuple[tuple[int, int], ...]:
    if huge and rng.random() < 0.3:
        start = rng.randrange(10**9, 10**12)
        return ((start, start + rng.randint(1, 9)),)
    pieces = 1 if rng.random() < 0.85 else rng.randint(2, 3)
    out = []
    position = rng.randrange(max(limit, 1))
    for _ in range(pieces):
        length = rng.randint(1, 12)
        out.append((position, position + length))
        position += length + rng.randint(1, 6)
    return tuple(out)


def _system(
    rng: random.Random,
    gold: list[tuple[str, tuple[tuple[int, int], ...]]],
    types: list[str],
    limit: int,
    huge: bool,
) -> list[tuple[str, tuple[tuple[int, int], ...]]]:
    out = []
    for kind, fragments in gold:
        fate = rng.random()
        if fate < 0.5:
            out.append((kind, fragments))
        elif fate < 0.6:
            out.append((rng.choice(types), fragments))
        elif fate < 0.8 and len(fragments) == 1:
            start, end = fragments[0]
            start = max(0, start + rng.randint(-3, 3))
            end = max(start + 1, end + rng.randint(-3, 3))
            out.append((kind if rng.random() < 0.7 else rng.choice(types), ((start, end),)))
        elif fate < 0.85:
            out.extend([(kind, fragments)] * 2)
    for _ in range(rng.randint(0, 3)):
        out.append((rng.choice(types), _fragments(rng, limit, huge)))
    rng.shuffle(out)
    return out


def _entity_ids(rng: random.Random, n: int) -> list[str]:
    style = rng.random()
    if style < 0.7:
        return [f"T{k}" for k in range(1, n + 1)]
    if style < 0.85:
        ids = [f"T{k}" for k in range(1, n + 1)]
        rng.shuffle(ids)
        return ids
    pool = ["T" + i for i in id_pool(rng, n + 2, max_bytes=24, forbidden=" \t\u00a0")]
    pool = [i for i in pool if not any(c.isspace() for c in i)]
    return [rng.choice(pool) for _ in range(n)] if pool else [f"T{k}" for k in range(1, n + 1)]


def _offsets(rng: random.Random, fragments: tuple[tuple[int, int], ...]) -> str:
    def number(value: int) -> str:
        return ("0" * rng.randint(1, 20) if rng.random() < 0.03 else "") + str(value)

    return ";".join(f"{number(s)} {number(e)}" for s, e in fragments)


def _ann(
    rng: random.Random,
    mentions: list[tuple[str, tuple[tuple[int, int], ...]]],
    text: str,
    *,
    errors: bool,
) -> str:
    ids = _entity_ids(rng, len(mentions))
    lines = []
    for ann_id, (kind, fragments) in zip(ids, mentions, strict=True):
        entity_text = " ".join(text[s:e] for s, e in fragments)
        if rng.random() < 0.08:
            entity_text = rng.choice(("", "zz", entity_text + "!"))
        entity_text = entity_text.replace("\n", " ").replace("\r", " ")
        offsets = _offsets(rng, fragments)
        simple = entity_text and entity_text == entity_text.strip() and "\t" not in entity_text
        if simple and rng.random() < 0.05:
            lines.append(f"{ann_id}\t{kind} {offsets} {entity_text}")
        else:
            lines.append(f"{ann_id}\t{kind} {offsets}\t{entity_text}")
    defined = [i for i in ids]
    if defined and rng.random() < 0.15:
        target = rng.choice(defined)
        extra = rng.choice(
            (
                f"#1\tAnnotatorNotes {target}\tnote",
                f"R1\tRel Arg1:{target} Arg2:{rng.choice(defined)}",
                f"A1\tNegated {target}",
                f"M1\tConfidence {target} High",
                f"N1\tReference {target} SNOMED:1\tx",
                f"E1\tTreat:{target} Theme:{rng.choice(defined)}",
                f"*\tEquiv {target} {rng.choice(defined)}",
            )
        )
        lines.insert(rng.randrange(len(lines) + 1), extra)
    if errors and rng.random() < 0.3:
        bad = rng.choice(
            (
                "T99\tX 5 5\tx",
                "R9\tRel Arg1:T1 Arg2:Tnowhere",
                "#9\tAnnotatorNotes Tnowhere\tx",
                "T98\tX 0 " + "1" * 5000 + "\tx",
                "T97\tX 0 100000000000000000\tx",
            )
        )
        lines.insert(rng.randrange(len(lines) + 1), bad)
    if lines and rng.random() < 0.05:
        lines.insert(rng.randrange(len(lines) + 1), "")
    roll = rng.random()
    end = "\r\n" if roll < 0.15 else "\n"
    texts = [k for k, line in enumerate(lines) if line.count("\t") == 2]  # (the oracle's shape)
    if roll < 0.02 and texts:  # a \r in an entity's text: before the \r of a line end, or inside
        k = rng.choice(texts)
        at = lines[k].rindex("\t") + 1 + rng.randint(0, 1)
        lines[k] = rng.choice((lines[k] + "\r", lines[k][:at] + "\r" + lines[k][at:]))
    content = "".join(line + end for line in lines)
    if content and rng.random() < 0.05:
        content = content[: -len(end)]
    if rng.random() < 0.03:
        content = "\ufeff" + content
    return content


def generate(rng: random.Random, root: Path, *, docs: int | None = None, size: int = 8) -> Corpus:
    """A gold and a system folder of random documents (see the module doc)."""
    huge = rng.random() < 0.05
    errors = rng.random() < 0.15
    ascii_only = rng.random() < 0.5
    pool = id_pool(rng, 3 * (docs or 6), forbidden="/\x00 ", wide=rng.random() < 0.5)
    pool = [d for d in pool if not d.startswith(".")]
    n_docs = docs or rng.randint(1, 6)
    doc_ids = pool[:n_docs] or ["d"]
    type_bytes = rng.choice((8, 16, 24, 40, 80))
    n_types = rng.choice((1, 2, 4, 20)) if rng.random() < 0.9 else 40
    types = id_pool(rng, n_types, max_bytes=type_bytes, forbidden=" ", wide=rng.random() < 0.2)
    gold, system = root / "gold", root / "system"
    gold.mkdir()
    system.mkdir()
    for doc_id in doc_ids:
        text = _text(rng, rng.randint(3, 40), ascii_only)
        limit = len(text) + (3 if rng.random() < 0.1 else 0)
        mentions = [
            (rng.choice(types), _fragments(rng, limit, huge)) for _ in range(rng.randint(0, size))
        ]
        if mentions and rng.random() < 0.1:
            mentions.append(rng.choice(mentions))  # a duplicate
        side = rng.random()
        if side < 0.8:
            (gold / f"{doc_id}.ann").write_text(
                _ann(rng, mentions, text, errors=errors), encoding="utf-8"
            )
            if rng.random() < 0.9:
                (gold / f"{doc_id}.txt").write_text(text, encoding="utf-8")
        if side > 0.15:
            predicted = _system(rng, mentions, types, limit, huge)
            (system / f"{doc_id}.ann").write_text(
                _ann(rng, predicted, text, errors=errors), encoding="utf-8"
            )
            if rng.random() < 0.3:
                (system / f"{doc_id}.txt").write_text(text, encoding="utf-8")
    for folder in (gold, system):
        if not any(p.suffix == ".ann" for p in folder.iterdir()):
            (folder / f"{doc_ids[0]}.ann").write_text("", encoding="utf-8")
    return Corpus(gold, system, doc_ids, huge)


# ------------------------------------------------------------------------- the oracle side


@dataclass
class Side:
    files: dict[str, oracle_brat.File]
    error: oracle_brat.OracleError | None = None


def oracle_read(folder: Path) -> Side:
    """The folder read by the plain reader: every ``.ann`` (sorted by path), its ``.txt``."""
    files: dict[str, oracle_brat.File] = {}
    for path in sorted(str(p) for p in folder.iterdir() if p.name.endswith(".ann")):
        stem = os.path.splitext(os.path.basename(path))[0]
        txt = path[:-4] + ".txt"
        text = Path(txt).read_bytes().decode("utf-8") if os.path.exists(txt) else None
        content = Path(path).read_bytes().decode("utf-8")
        try:
            files[stem] = oracle_brat.read(content, path, text)
        except oracle_brat.OracleError as error:
            return Side(files, error)
    return Side(files)


def _mentions(file: oracle_brat.File | None) -> list[oracle.Mention]:
    return [] if file is None else [(e.type, e.fragments) for e in file.entities]


def _flat(table: oracle.Table) -> dict[str, int]:
    out: dict[str, int] = {}
    for type_name, stats in table.items():
        for stat, n in stats.items():
            if n:
                out[stat] = out.get(stat, 0) + n
                out[f"type:{type_name}:{stat}"] = n
    return out


def _nonzero(counts: Any) -> dict[str, int]:
    return {k: int(v) for k, v in dict(counts.items()).items() if v}


def _warning_counts(result: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for w in result.warnings:
        out[w.code] = out.get(w.code, 0) + w.count
    return out


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


MODES = ("strict", "exact", "overlap", "relaxed", "token", "semeval")


def _options(rng: random.Random, mode: str) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if mode in ("overlap", "semeval"):
        options["min_overlap"] = rng.choice((0.0, 0.0, 0.25, 1 / 3, 0.5, 1.0))
        options["overlap_basis"] = rng.choice(("gold", "predicted", "shorter", "longer", "union"))
    if mode == "relaxed":
        options["tolerance"] = rng.choice((0, 1, 2, 5))
    return options


def check_mode(corpus: Corpus, rng: random.Random, mode: str, dense: bool) -> None:
    """Score ``corpus`` in ``mode`` with random options, by the command's function and by the
    reference: the same counts, scores and warnings, or the same refusal."""
    options = _options(rng, mode)
    missing = rng.choice(("count", "ignore"))
    duplicates = rng.choice(("count", "collapse"))
    gold_side, system_side = oracle_read(corpus.gold), oracle_read(corpus.system)
    expected_error = gold_side.error or system_side.error
    try:
        chosen = SpanOptions(mode=mode, missing_docs=missing, duplicates=duplicates, **options)
        result = score_spans(corpus.gold, corpus.system, chosen)
    except InputError as error:
        if expected_error is None:
            expected = _expected_scoring_error(corpus, gold_side, system_side, mode, missing)
            assert expected is not None, error
            assert expected in str(error), (str(error), expected)
            return
        assert (error.path, error.line) == (expected_error.path, expected_error.line), (
            str(error),
            str(expected_error),
        )
        return
    assert expected_error is None, f"read what the reference refuses: {expected_error}"
    assert _expected_scoring_error(corpus, gold_side, system_side, mode, missing) is None
    gold_files, system_files = gold_side.files, system_side.files
    both = sorted(set(gold_files) & set(system_files))
    gold_only = sorted(set(gold_files) - set(system_files))
    system_only = sorted(set(system_files) - set(gold_files))
    scored = sorted(both + (gold_only + system_only if missing == "count" else []))
    warnings: dict[str, int] = {}
    if gold_only:
        warnings["documents.gold-only"] = len(gold_only)
    if system_only:
        warnings["documents.system-only"] = len(system_only)
    repeated = 0
    counts = result.document_counts()
    assert sorted(counts) == scored
    semeval_totals: dict[str, int] = {}
    document_totals: list[dict[str, int]] = []
    for doc_id in scored:
        g_file, s_file = gold_files.get(doc_id), system_files.get(doc_id)
        for file in (g_file, s_file):
            if file is not None:
                for code, n in file.warnings.items():
                    warnings[code] = warnings.get(code, 0) + n
        gold, pred = _mentions(g_file), _mentions(s_file)
        distinct_gold, distinct_pred = list(dict.fromkeys(gold)), list(dict.fromkeys(pred))
        repeated += len(gold) - len(distinct_gold) + len(pred) - len(distinct_pred)
        if duplicates == "collapse":
            gold, pred = distinct_gold, distinct_pred
        got = _nonzero(counts[doc_id])
        where = f"{mode} {options} document {doc_id!r}"
        if mode == "semeval":
            totals = oracle.semeval_totals(gold, pred, **_semeval_options(options))
            plain = {k: v for k, v in got.items() if not k.startswith("type:")}
            assert plain == {k: v for k, v in totals.items() if v}, where
            document_totals.append(totals)
            for k, v in totals.items():
                semeval_totals[k] = semeval_totals.get(k, 0) + v
            if len(gold) <= 7 and len(pred) <= 7:
                outcomes = oracle.semeval_outcomes(
                    gold, pred, **_semeval_options(options), closeness=not dense
                )
                typed = {k: v for k, v in got.items() if k.startswith("type:")}
                for scheme, found in outcomes.items():
                    mine = frozenset(
                        (k[5:].rsplit(":", 1)[0], k.rsplit(":", 1)[1], v)
                        for k, v in typed.items()
                        if k.rsplit(":", 1)[1].startswith(scheme + "_")
                    )
                    assert mine in found, (where, scheme, mine, found)
        else:
            text = None
            if mode == "token":
                text = g_file.text if g_file is not None and g_file.text is not None else None
                if text is None and s_file is not None:
                    text = s_file.text
            table = oracle.mode_table(
                mode,
                gold,
                pred,
                min_overlap=options.get("min_overlap", 0.0),
                basis=options.get("overlap_basis", "gold"),
                tolerance=options.get("tolerance", 0),
                text=text,
            )
            assert got == _flat(table), where
            document_totals.append({k: v for k, v in _flat(table).items() if ":" not in k})
    if repeated:
        warnings["spans.duplicates"] = repeated
    if mode == "semeval":
        expected_scores = oracle.semeval_scores(semeval_totals)
    else:
        total = {k: sum(int(c[k]) for c in counts.values()) for k in ("tp", "fp", "fn")}
        expected_scores = oracle.prf(total["tp"], total["fp"], total["fn"])
    warnings.update(_undefined_warnings(mode, expected_scores, result, document_totals))
    assert _warning_counts(result) == warnings
    for key, value in expected_scores.items():
        assert _close(result.scores[key], value), (mode, key, result.scores[key], value)


def _reference_scores(mode: str, counts: dict[str, int]) -> dict[str, float | None]:
    if mode == "semeval":
        return oracle.semeval_scores(counts)
    return oracle.prf(counts.get("tp", 0), counts.get("fp", 0), counts.get("fn", 0))


def _undefined_warnings(
    mode: str,
    corpus_scores: dict[str, float | None],
    result: Any,
    document_totals: list[dict[str, int]],
) -> dict[str, int]:
    """The warnings of undefined numbers the result must carry: ``undefined`` when a corpus
    score is (the reference's scores), and one ``average.left-out`` for each macro average a
    unit's undefined score leaves out (documents: the reference's counts; types: the result's
    per-type counts, held to the reference above, scored by the reference)."""
    out: dict[str, int] = {}
    if any(v is None for v in corpus_scores.values()):
        out["undefined"] = 1
    type_totals = [dict(unit.counts.items()) for unit in result.types.values()]
    left_out = sum(
        any(v is None for unit in units for v in _reference_scores(mode, unit).values())
        for units in (type_totals, document_totals)
    )
    if left_out:
        out["average.left-out"] = left_out
    return out


def _semeval_options(options: dict[str, Any]) -> dict[str, Any]:
    return {
        "min_overlap": options.get("min_overlap", 0.0),
        "basis": options.get("overlap_basis", "gold"),
    }


def _expected_scoring_error(
    corpus: Corpus, gold: Side, system: Side, mode: str, missing: str
) -> str | None:
    """The refusal of a folder the readers accept: token mode without a text."""
    if mode != "token":
        return None
    names = set(gold.files) | set(system.files)
    if missing == "ignore":
        names = set(gold.files) & set(system.files)
    for doc_id in sorted(names):
        g, s = gold.files.get(doc_id), system.files.get(doc_id)
        if (g is None or g.text is None) and (s is None or s.text is None):
            return "token mode needs the document text"
    return None


# --------------------------------------------------------------------------- thresholds


def lower_thresholds(rng: random.Random, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Lower some thresholds of the fast paths at random; whether the dense-cluster methods
    now run (their SemEval per-type split may differ from the closeness rule, see
    :func:`annoscore.metrics.span_tables.dense_semeval_pairs`)."""
    from annoscore.align import assignment, span_dense
    from annoscore.formats import brat_scan
    from annoscore.metrics import span_tables

    if rng.random() < 0.3:
        monkeypatch.setattr(brat_scan, "CHUNK_BYTES", rng.choice((1, 64, 300)))
    if rng.random() < 0.3:
        monkeypatch.setattr(brat_scan, "_FEW_TYPES", rng.choice((0, 1, 2)))
    if rng.random() < 0.3:
        monkeypatch.setattr(span_tables, "CARDINALITY_THRESHOLD", 0)
    if rng.random() < 0.3:
        monkeypatch.setattr(span_tables, "ROW_CHUNK", rng.choice((1, 4, 16)))
    if rng.random() < 0.3:
        monkeypatch.setattr(span_tables, "TOKEN_CHUNK_CHARS", rng.choice((1, 16, 64)))
    if rng.random() < 0.3:
        monkeypatch.setattr(span_tables, "TOKEN_UNION_FACTOR", -1)
    if rng.random() < 0.3:
        monkeypatch.setattr(assignment, "SCIPY_THRESHOLD", rng.choice((0, 1, 2)))
    if rng.random() < 0.2:
        monkeypatch.setattr(assignment, "DENSE_CELLS", rng.choice((0, 1, 4)))
    dense = rng.random() < 0.25
    if dense:
        monkeypatch.setattr(span_dense, "DENSE_DOC_PAIRS", -1)
        monkeypatch.setattr(span_dense, "DENSE_CELLS", rng.choice((0, 1, 4)))
    return dense


# ------------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("seed", range(6))
def test_every_mode_counts_what_the_reference_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    rng = random.Random(seed)
    for case in range(25 * MULTIPLIER):
        root = tmp_path / str(case)
        root.mkdir()
        corpus = generate(rng, root)
        with monkeypatch.context() as patched:
            dense = lower_thresholds(rng, patched)
            for mode in MODES:
                check_mode(corpus, rng, mode, dense)


def _reader_view(corpus: Any) -> dict[str, Any]:
    out = {}
    for doc_id, file in corpus.files.items():
        rows = file.rows
        out[doc_id] = (
            list(file.ids),
            list(file.types),
            [tuple(f) for f in file.entity_fragments()],
            list(file.texts),
            [file.line_of(k) for k in range(len(file))],
            file.text,
            sorted((w.code, w.count, w.examples) for w in file.warnings),
            rows.block.starts[rows.lo : rows.hi].tolist(),
            rows.block.ends[rows.lo : rows.hi].tolist(),
            [rows.block.type_names[c] for c in rows.block.type_codes[rows.lo : rows.hi].tolist()],
        )
    return out


def _oracle_view(side: Side) -> dict[str, Any]:
    out = {}
    for doc_id, file in side.files.items():
        entities = file.entities
        out[doc_id] = (
            [e.id for e in entities],
            [e.type for e in entities],
            [e.fragments for e in entities],
            [e.text for e in entities],
            [e.line for e in entities],
            file.text,
            sorted(file.warnings.items()),
            [e.start for e in entities],
            [e.end for e in entities],
            [e.type for e in entities],
        )
    return out


def check_reader(folder: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """``folder`` read with the scan, with the scan declining every file, and by the plain
    reader: the same columns, warnings and block rows (or the same refusal).  Returns how many
    files the scan took."""
    from annoscore.formats import brat, brat_scan

    taken = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        out = brat_scan.scan_files(*args, **kwargs)
        taken.extend(f for f in out if f is not None)
        return out

    expected = oracle_read(folder)
    views = []
    for scan in (spy, lambda *args, **kwargs: [None] * len(args[3])):
        monkeypatch.setattr(brat, "scan_files", scan)
        try:
            views.append(_reader_view(read_brat_corpus(folder)))
        except InputError as error:
            assert expected.error is not None, str(error)
            assert (error.path, error.line) == (expected.error.path, expected.error.line)
            views.append(None)
    assert views[0] == views[1]
    if views[0] is not None:
        assert expected.error is None, str(expected.error)
        mine = {
            d: (*v[:6], sorted((c, n) for c, n, _ in v[6]), *v[7:]) for d, v in views[0].items()
        }
        assert mine == _oracle_view(expected)
    return len(taken)


@pytest.mark.parametrize("seed", range(3))
def test_the_scan_and_the_parser_read_what_the_reference_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    rng = random.Random(1000 + seed)
    taken = 0
    for case in range(30 * MULTIPLIER):
        root = tmp_path / str(case)
        root.mkdir()
        corpus = generate(rng, root, size=rng.choice((3, 8, 30)))
        with monkeypatch.context() as patched:
            lower_thresholds(rng, patched)
            for folder in (corpus.gold, corpus.system):
                taken += check_reader(folder, patched)
    assert taken > 10 * MULTIPLIER  # the scan is taken


def _plain_corpus(
    rng: random.Random, root: Path, docs: int, lines: int, ends: tuple[str, ...] = ("\n",)
) -> Corpus:
    """Folders of plain files the scan takes (ASCII texts, increasing ids), their type names
    up to 64 bytes and more than 16 of them, each side past the scan's chunk size when large;
    each line ending with one of ``ends``, drawn line by line."""
    types = id_pool(rng, 24, max_bytes=64, forbidden=" ", wide=False)
    gold, system = root / "gold", root / "system"
    gold.mkdir()
    system.mkdir()
    doc_ids = [f"d{k:04d}" for k in range(docs)]
    for doc_id in doc_ids:
        text = _text(rng, 80, ascii_only=True).replace("\t", " ")
        mentions = [
            (rng.choice(types), _fragments(rng, len(text) - 14, False)) for _ in range(lines)
        ]
        mentions = [(t, f) for t, f in mentions if len(f) == 1]
        predicted = [(t, f) for t, f in _system(rng, mentions, types, len(text) - 14, False)]
        predicted = [(t, f) for t, f in predicted if len(f) == 1 and f[0][1] <= len(text)]
        for folder, side in ((gold, mentions), (system, predicted)):
            content = "".join(
                f"T{k}\t{kind} {s} {e}\t{text[s:e]}{rng.choice(ends)}"
                for k, (kind, ((s, e),)) in enumerate(side, start=1)
            )
            (folder / f"{doc_id}.ann").write_text(content, encoding="utf-8")
        (gold / f"{doc_id}.txt").write_text(text, encoding="utf-8")
    return Corpus(gold, system, doc_ids)


def test_folders_past_the_scans_chunk_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """About 1.3 MB of plain ``.ann`` per side (two chunks of the scan, at its real size), and
    a file larger than a chunk (declined: the parser reads it)."""
    from annoscore.formats import brat_scan

    rng = random.Random(77)
    corpus = _plain_corpus(rng, tmp_path, 1000, 45)
    big = "".join(f"T{k}\tX{k % 7} {k} {k + 3}\t{'abc' * 14}\n" for k in range(1, 20_000))
    (corpus.gold / "zz-big.ann").write_text(big, encoding="utf-8")
    (corpus.system / "zz-big.ann").write_text(big, encoding="utf-8")
    for folder in (corpus.gold, corpus.system):
        sizes = [p.stat().st_size for p in folder.iterdir() if p.suffix == ".ann"]
        assert sum(sizes) - max(sizes) > brat_scan.CHUNK_BYTES < max(sizes)
        assert check_reader(folder, monkeypatch) == len(sizes) - 1  # every file but the big one
    monkeypatch.undo()
    for folder in (corpus.gold, corpus.system):  # the reference's matching is quadratic
        (folder / "zz-big.ann").unlink()
    for mode in ("strict", "overlap", "relaxed"):
        check_mode(corpus, rng, mode, dense=False)


def test_windows_line_ends_are_plain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files of CRLF lines, and of CRLF and LF lines mixed, are taken by the scan and read as the
    parser and the reference read them; a ``\\r`` in an entity's text (before the line end's,
    or inside) is the parser's."""
    rng = random.Random(78)
    corpus = _plain_corpus(rng, tmp_path, 30, 8, ends=("\r\n", "\r\n", "\n"))
    (corpus.gold / "zz-a.ann").write_bytes(b"T1\tX 0 3\tab\r\r\n")
    (corpus.gold / "zz-b.ann").write_bytes(b"T1\tX 0 3\ta\rb\r\n")
    for folder in (corpus.gold, corpus.system):
        plain = [p for p in folder.glob("d*.ann") if p.stat().st_size]
        assert any(b"\r\n" in p.read_bytes() for p in plain)
        assert check_reader(folder, monkeypatch) == len(plain)
    for mode in ("strict", "overlap"):
        check_mode(corpus, rng, mode, dense=False)
