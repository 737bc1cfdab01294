"""``annoscore coref`` held to a plain reference written from coref.md (``tests/oracles/coref.py``).

The generator aims at the CoNLL reader's fast paths and at scorer.pl's edge rules: document names
from the adversarial id pool (``ids.py``; names ending like a token line, `` -``), documents on
one side only, two documents with one name, a last document left open, lines outside documents,
TAB- and space-separated layouts, blank lines anywhere, brackets with and without ``|``,
nested and crossing mentions, singletons, split antecedents and unreadable cell text, repeated
spans (a key span repeated in the key or in the response, a span no key mention has repeated in
several response entities or twice in one), byte-order marks, empty responses, files past the
reader's chunk of characters.  Each pair runs through :func:`annoscore.tasks.coref.score_coref`
and through the oracle: per-document and corpus counts, every score (the corpus's with the
reference's 0, the documents' undefined where the rule says so) and the repeat, pairing and
undefined-score warnings equal (floats to 1e-9: the reference itself sums them in no fixed
order).

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases.
"""

from __future__ import annotations

import math
import os
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from annoscore.formats import conll as reader
from annoscore.tasks.coref import CorefOptions, score_coref
from tests.equivalence.ids import id_pool, split_sides
from tests.oracles import coref as oracle

SCALE = int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))

ENTITY_IDS = ["0", "1", "2", "3", "7", "01", "10", "12", "99999999999999999999"]
LAYOUTS = ("tab5", "space2", "space13")


def _entities(rng: random.Random, tokens: int, count: int) -> list[tuple[str, int, int]]:
    """``count`` mentions (entity id, first token, last token), from a few entity ids."""
    ids = rng.sample(ENTITY_IDS, rng.randint(1, len(ENTITY_IDS)))
    out = []
    for _ in range(count):
        start = rng.randrange(tokens)
        end = min(tokens - 1, start + rng.choice([0, 0, 0, 1, 1, 2, 3, 5]))
        out.append((rng.choice(ids), start, end))
    return out


def _response(
    rng: random.Random, key: list[tuple[str, int, int]], tokens: int
) -> list[tuple[str, int, int]]:
    ids = rng.sample(ENTITY_IDS, rng.randint(1, len(ENTITY_IDS)))
    out = []
    for entity, start, end in key:
        roll = rng.random()
        if roll < 0.2:
            continue  # missed
        if roll < 0.3:  # an end moved
            end = max(start, min(tokens - 1, end + rng.choice([-1, 1, 2])))
        entity = entity if rng.random() < 0.7 else rng.choice(ids)
        out.append((entity, start, end))
        if rng.random() < 0.08:  # a key span repeated, in another entity or in its own
            out.append((rng.choice([entity, *ids]), start, end))
    twinless = _entities(rng, tokens, rng.randint(0, 4))
    out += twinless
    for entity, start, end in twinless:
        if rng.random() < 0.3:  # a span no key mention has, repeated (several entities, or one)
            for _ in range(rng.choice([1, 1, 2])):
                out.append((rng.choice([entity, entity, *ids]), start, end))
    rng.shuffle(out)
    return out


def _cells(rng: random.Random, mentions: list[tuple[str, int, int]], tokens: int) -> list[str]:
    brackets: list[list[str]] = [[] for _ in range(tokens)]
    for entity, start, end in mentions:
        if start == end:
            brackets[start].append(f"({entity})")
        else:
            brackets[start].append(f"({entity}")
            brackets[end].append(f"{entity})")
    cells = []
    for parts in brackets:
        rng.shuffle(parts)
        separator = rng.choice(["|", "|", ""])
        if not separator:  # "(1" then "2)" would read "(12)": closings, singles, openings
            parts.sort(key=lambda p: (p[0] == "(") + (p[-1] != ")"))
        cell = separator.join(parts) if parts else rng.choice(["-", "-", "_"])
        roll = rng.random()
        if roll < 0.01:
            split = f"({rng.randint(0, 9)}+{rng.randint(0, 9)})"
            cell = ("" if cell in "-_" else cell + "|") + split
        elif roll < 0.02:
            cell += "x"  # text that is no bracket: ignored, counted
        cells.append(cell)
    return cells


def _document(
    rng: random.Random,
    name: str,
    cells: list[str],
    layout: str,
    *,
    closed: bool = True,
) -> list[str]:
    lines = [rng.choice(["", "", " ", "\t"]) + rng.choice(["#", "#", "# ", "#\t"])
             + f"begin document {name}"]  # fmt: skip
    for i, cell in enumerate(cells):
        while rng.random() < 0.08:  # blank lines (sentence breaks) do not count as tokens
            lines.append(rng.choice(["", "", " ", "\t \t"]))
        word = rng.choice(["w", "Word", "doc", "ü", "ß", "-", "(", ")"])
        if rng.random() < 0.003:
            word = "a\rb"  # a CR inside a line: part of the line (with a warning)
        if layout == "tab5":
            lines.append(f"d\t0\t{i}\t{word}\t{cell}")
        elif layout == "space2":
            lines.append(f"d {cell}")
        else:
            fields = ["bc/cctv/00/cctv_0001", "0", str(i), word, "NN", "*", "-", "-", "-"]
            lines.append("   ".join([*fields, "Speaker#1", "*", "*", cell]))
    if closed:
        lines.append(rng.choice(["#end document", "# end document", "#end document x"]))
    return lines


def _names(rng: random.Random, count: int) -> list[str]:
    pool = id_pool(rng, count, forbidden="\n\r")
    for k in range(len(pool)):
        if rng.random() < 0.1:  # a name ending like a token line without a mention
            pool[k] += rng.choice([" -", " _", "\t-"])
    return pool


def _case(rng: random.Random, documents: int, large: bool) -> tuple[str, str]:
    names = _names(rng, documents)
    gold, system = split_sides(rng, names)
    gold = gold or names[:1]
    key_lines: list[str] = []
    response_lines: list[str] = []
    key_layout, response_layout = rng.choice(LAYOUTS), rng.choice(LAYOUTS)
    if large:
        key_layout = response_layout = "space13"
    written = dict.fromkeys(gold + system)
    for k, name in enumerate(written):
        tokens = rng.randint(25_000, 26_000) if large else rng.randint(1, 25)
        count = 150 if large else rng.randint(0, 8)
        key = _entities(rng, tokens, count)
        if rng.random() < 0.1:  # a key span repeated (removed, with a warning)
            _, start, end = rng.choice(key) if key else ("1", 0, 0)
            key.append((rng.choice(ENTITY_IDS), start, end))
        response = _response(rng, key, tokens)
        last = k == len(written) - 1
        if rng.random() < 0.05:
            for _ in range(rng.randint(1, 3)):  # a run of lines outside documents
                key_lines.append(rng.choice(["junk line outside any document", "junk -", "\t_"]))
        if name in gold:
            if rng.random() < 0.05:  # an earlier document of the same name: shadowed
                key_lines += _document(rng, name, _cells(rng, key[:1], tokens), key_layout)
            closed = not last or rng.random() < 0.9
            key_lines += _document(rng, name, _cells(rng, key, tokens), key_layout, closed=closed)
        if name in system:
            response_lines += _document(
                rng,
                name,
                _cells(rng, response, tokens),
                response_layout,
                closed=not last or rng.random() < 0.9,
            )
    key_text = "\n".join(key_lines) + rng.choice(["\n", "", "\n\n"])
    response_text = "\n".join(response_lines) + "\n" if response_lines else ""
    if rng.random() < 0.05:
        key_text = "\ufeff" + key_text
    if rng.random() < 0.05:
        response_text = response_text.replace("\n", "\r\n")
    return key_text, response_text


INTEGER = ("mentions", "muc", "blanc")


def _equal(name: str, got: float, expected: Fraction) -> bool:
    if name.startswith(INTEGER) or name.endswith("_den"):
        return got == expected
    return math.isclose(got, float(expected), rel_tol=1e-9, abs_tol=1e-12)


def _same_scores(got: dict[str, float | None], expected: dict[str, Any], where: str) -> None:
    assert set(got) == set(expected), where
    for name, score in expected.items():
        value = got[name]
        if score is None or value is None:
            assert value is score, (where, name, value, score)
        else:
            assert math.isclose(value, score, rel_tol=1e-9, abs_tol=1e-12), (where, name)


def _lines(path: Path, lines: list[int]) -> tuple[int, tuple[str, ...]]:
    return len(lines), tuple(f"{path}:{line}" for line in sorted(set(lines))[:5])


def _compare(result: Any, expected: oracle.Outcome, key: Path, response: Path) -> None:
    per_document = result.document_counts()
    assert list(per_document) == list(expected.per_document)
    for document, counts in expected.per_document.items():
        got = per_document[document]
        for name, value in counts.items():
            assert _equal(name, got[name], value), (document, name, got[name], value)
    for name, value in expected.counts.items():
        assert _equal(name, result.counts[name], value), (name, result.counts[name], value)
    assert set(result.scores) == set(expected.scores)
    # the corpus scores are the reference's (0 where undefined), the documents' the rule's
    _same_scores(result.scores, oracle.reference_scores(expected.counts), "corpus")
    for document, counts in expected.per_document.items():
        _same_scores(result.documents[document].scores, oracle.scores(counts), document)
    undefined = [name for name in result.scores if expected.scores[name] is None]
    notes = [str(w) for w in result.warnings if w.code == "undefined"]
    assert notes == (
        [f"undefined (a zero denominator): {', '.join(undefined)}; shown as 0.0, the official rule"]
        if undefined
        else []
    )
    warnings = {w.code: (w.count, tuple(w.examples)) for w in result.warnings}
    for code, side, lines in (
        ("coref.key_repeat", key, expected.repeats["key"]),
        ("coref.response_repeat", response, expected.repeats["removed"]),
        ("coref.response_repeat_kept", response, expected.repeats["kept"]),
    ):
        assert warnings.get(code) == (_lines(side, lines) if lines else None), code
    for file, path in zip(expected.files, (key, response), strict=True):
        for code, lines in (
            ("coref.outside_document", file.outside),
            ("coref.split_antecedent", file.splits),
            ("coref.unreadable_cell", file.unreadable),
            ("coref.unclosed_document", file.unclosed),
            ("coref.repeated_document", file.shadowed),
            ("coref.carriage_return", file.carriage_returns),
        ):
            at = f"{path}:"
            found = [w for w in result.warnings if w.code == code and w.examples[0].startswith(at)]
            want = [(len(lines), tuple(f"{path}:{n}" for n in lines[:5]))] if lines else []
            assert [(w.count, tuple(w.examples)) for w in found] == want, (code, path)
        boms = [w for w in result.warnings if w.code == "formats.bom" and str(path) in w.examples]
        assert len(boms) == file.bom
    if "coref.empty_response" not in warnings:
        for code, names in (
            ("documents.gold-only", expected.key_only),
            ("documents.system-only", expected.response_only),
        ):
            assert warnings.get(code) == ((len(names), tuple(names[:5])) if names else None)


@pytest.mark.parametrize("block", range(4))
def test_random_pairs_equal_the_reference(tmp_path: Path, block: int) -> None:
    """500 pairs a block (x ``ANNOSCORE_EQUIVALENCE_CASES``), one in 250 past the reader's chunk
    of characters."""
    rng = random.Random(7000 + block)
    seen = dict.fromkeys(("kept", "removed", "key", "large", "singletons", "cr"), 0)
    for case in range(500 * SCALE):
        large = case % 250 == 249
        key_text, response_text = _case(rng, rng.choice([1, 1, 2, 3, 5]), large)
        key, response = tmp_path / f"k{case % 5}.conll", tmp_path / f"r{case % 5}.conll"
        key.write_text(key_text, encoding="utf-8")
        response.write_text(response_text, encoding="utf-8")
        assert not large or len(key_text) > reader.CHUNK
        remove_singletons = rng.random() < 0.2
        expected = oracle.score(key_text, response_text, remove_singletons=remove_singletons)
        options = CorefOptions(singletons="removed" if remove_singletons else "kept")
        result = score_coref(key, response, options)
        _compare(result, expected, key, response)
        for what in ("kept", "removed", "key"):
            seen[what] += bool(expected.repeats[what])
        seen["large"] += large
        seen["cr"] += bool(expected.files[0].carriage_returns)
        seen["singletons"] += remove_singletons
    assert all(seen.values()), seen  # the generator reaches every case it aims at
