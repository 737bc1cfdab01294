"""CodiEsp D, P and X cut at document boundaries with warnings, pooled
(:mod:`annoscore.tasks.codiesp_chunks`): random adversarial files scored with ``--jobs 1``,
``--jobs 2`` and one process scoring small chunks one after the other give the same bytes (JSON
with documents, and the official text layout; warnings, errors and ``--strict-input`` included),
and the cut is kept when the chunks' warnings pool and dropped when one does not.

The warnings sprinkled at random places, several per chunk, in the first and the last chunk, on
both sides, more examples than one run shows: predicted codes not in the valid list (more than
five distinct), CSV-quoted lines, repeated lines (D/P duplicates, X repeated pairs), blank lines
(so that lines are numbered as in the whole file), a byte-order mark, warnings of the
valid-code lists (each chunk reads them).  In some corpora one warning that cannot be pooled: a
gold document without a valid prediction, a predicted document not in the gold, a gold code not
in the valid list, upper-case codes, more predictions than ``--depth``, an X prediction within
the tolerance, an X label that differs, an invalid code under ``--no-lowercase``.
``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of corpora (default 1).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import annoscore.scale as scale
from annoscore.formats.codiesp import integer_ids
from tests.equivalence.ids import id_pool
from tests.scale.test_lines import MULTIPLIER, _chunks_of, _output, _same

CASES = max(4, int(16 * MULTIPLIER))

POOLED = ("invalid", "quotes", "duplicate", "blank", "bom", "lists")
"""The warnings a chunk may give and still be used (their kinds as the generators name them)."""

DECLINED = {
    "ranked": ("missing", "extra", "invalid-gold", "upper", "depth", "no-lowercase"),
    "x": ("invalid-gold", "upper", "tolerance", "label", "no-lowercase"),
}
"""The warnings that make the input be scored in one run, by kind of task."""


@pytest.fixture(autouse=True)
def _small_files_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)


def _documents(rng: random.Random, n: int) -> list[str]:
    """Adversarial ids (``tests/equivalence/ids.py``) none of which the MAP script reads as a
    number (such ids are a cut of their own: ``test_lines.py``)."""
    pool = [i for i in id_pool(rng, n * 3) if i and i.strip() == i]
    pool = [i for i in pool if not any(c in i for c in "\t\n\r\"'") and not integer_ids([i])]
    pool = list(dict.fromkeys(pool))
    rng.shuffle(pool)
    return [*pool[: n - 1], "doc-last"]


def _quoted(rng: random.Random, fields: list[str], quotes: bool) -> str:
    """A line of ``fields``, some of them CSV-quoted when ``quotes``: the document id quoted
    on every line of its document or on none (the cut finds documents by their bytes: a
    document written both ways is two there, and the input is scored in one run)."""
    vowel = fields[0].endswith(("a", "e", "i", "o", "u"))
    head = f'"{fields[0]}"' if quotes and vowel else fields[0]
    rest = (f'"{f}"' if quotes and rng.random() < 0.5 else f for f in fields[1:])
    return "\t".join([head, *rest])


def _sprinkled(rng: random.Random, lines: list[str], kinds: set[str], rate: float) -> str:
    """The text of ``lines`` with blank lines between documents (``blank``; inside one, the
    cut may fall after it: the input is then scored in one run), a byte-order mark (``bom``,
    sometimes)."""
    out: list[str] = []
    before = None
    for line in lines:
        document = line.partition("\t")[0]
        if "blank" in kinds and document != before and rng.random() < rate:
            out.append(rng.choice(["", "  "]))
        out.append(line)
        before = document
    text = "\n".join(out) + "\n"
    if "bom" in kinds and rng.random() < 0.5:
        text = "\ufeff" + text
    return text


def _lists(rng: random.Random, codes: list[str], kinds: set[str]) -> str:
    """A valid-code list of ``codes``: quoted, blank lines, a byte-order mark (``lists``)."""
    rows = [f"{c}\tdescription" for c in codes]
    if "lists" in kinds:
        rows = [f'"{c}"\tdescription' if rng.random() < 0.3 else f"{c}\tdescription" for c in codes]
        return _sprinkled(rng, rows, {"blank", "bom"}, 0.1)
    return "\n".join(rows) + "\n"


def _ranked_corpus(rng: random.Random, root: Path, kinds: set[str]) -> dict[str, Any]:
    docs = _documents(rng, rng.randint(8, 40))
    codes = list(dict.fromkeys(f"{rng.choice('abcd')}{rng.randint(0, 99):02d}" for _ in range(40)))
    bad = [f"zz{n}" for n in range(9)]  # predicted codes not in the valid list
    gold: list[str] = []
    pred: list[str] = []
    quotes = "quotes" in kinds
    for k, doc in enumerate(docs):
        mine = rng.sample(codes, rng.randint(1, 5))
        for code in mine:
            gold.append(_quoted(rng, [doc, code], quotes))
            if "duplicate" in kinds and rng.random() < 0.15:
                gold.append(_quoted(rng, [doc, code], quotes))
        if "missing" in kinds and k == len(docs) // 2:
            continue  # a gold document without a prediction
        guess = [c for c in mine if rng.random() < 0.7] + rng.sample(codes, rng.randint(0, 3))
        guess = list(dict.fromkeys(guess)) or [mine[0]]
        if "invalid" in kinds and (k in (0, len(docs) - 1) or rng.random() < 0.3):
            for _ in range(rng.randint(1, 3)):
                guess.insert(rng.randrange(len(guess) + 1), rng.choice(bad))
        if "duplicate" in kinds and rng.random() < 0.2:
            guess.append(guess[0])
        if "upper" in kinds and k == 1:
            guess[0] = guess[0].upper()
        if "no-lowercase" in kinds and k == 2:
            guess.append("zz-invalid")
        if "depth" in kinds and k == 3:
            guess += [c for c in codes if c not in guess][:7]
        pred += [_quoted(rng, [doc, c], quotes) for c in guess]
    if "extra" in kinds:
        pred.append(f"not-in-gold\t{codes[0]}")
    valid = list(codes)
    if "invalid-gold" in kinds:
        valid.remove(gold[len(gold) // 2].replace('"', "").split("\t")[1])
    (root / "gold.tsv").write_text(_sprinkled(rng, gold, kinds, 0.3), encoding="utf-8")
    (root / "pred.tsv").write_text(_sprinkled(rng, pred, kinds, 0.3), encoding="utf-8")
    (root / "codes.tsv").write_text(_lists(rng, valid, kinds), encoding="utf-8")
    options: dict[str, Any] = {"codes": root / "codes.tsv"}
    if "depth" in kinds:
        options["depth"] = 5
    if "no-lowercase" in kinds:
        options["lowercase"] = False
    return options


def _x_corpus(rng: random.Random, root: Path, kinds: set[str]) -> dict[str, Any]:
    docs = _documents(rng, rng.randint(8, 30))
    codes = list(dict.fromkeys(f"{rng.choice('abz')}{rng.randint(0, 30):02d}" for _ in range(30)))
    bad = [f"yy{n}" for n in range(9)]
    gold: list[str] = []
    pred: list[str] = []
    quotes = "quotes" in kinds
    for k, doc in enumerate(docs):
        for code in rng.sample(codes, rng.randint(1, 4)):
            label = rng.choice(["DIAGNOSTICO", "PROCEDIMIENTO"])
            for _ in range(2 if "duplicate" in kinds and rng.random() < 0.3 else 1):
                start = rng.randint(0, 500)
                end = start + rng.randint(1, 20)
                gold.append(_quoted(rng, [doc, label, code, "some text", f"{start} {end}"], quotes))
                shift = rng.choice([0, 0, 900])  # exact, or far: no warning of the tolerance
                if "tolerance" in kinds and k == 1:
                    shift = 3
                said = label
                if "label" in kinds and k == 2:
                    said = "PROCEDIMIENTO" if label == "DIAGNOSTICO" else "DIAGNOSTICO"
                for _ in range(2 if "duplicate" in kinds and rng.random() < 0.2 else 1):
                    position = f"{start + shift} {end + shift}"
                    pred.append(_quoted(rng, [doc, position, said, code], quotes))
        if "invalid" in kinds and (k in (0, len(docs) - 1) or rng.random() < 0.3):
            for _ in range(rng.randint(1, 3)):
                pred.append(f"{doc}\t1 2\tDIAGNOSTICO\t{rng.choice(bad)}")
        if "upper" in kinds and k == 3:
            pred.append(f"{doc}\t1 2\tDIAGNOSTICO\t{codes[0].upper()}")
        if "no-lowercase" in kinds and k == 4:
            pred.append(f"{doc}\t1 2\tDIAGNOSTICO\tyy-invalid")
    valid = list(codes)
    if "invalid-gold" in kinds:
        valid.remove(gold[len(gold) // 2].replace('"', "").split("\t")[2])
    (root / "gold.tsv").write_text(_sprinkled(rng, gold, kinds, 0.3), encoding="utf-8")
    (root / "pred.tsv").write_text(_sprinkled(rng, pred, kinds, 0.3), encoding="utf-8")
    (root / "d.tsv").write_text(_lists(rng, [c for c in valid if c < "b"], kinds), "utf-8")
    (root / "p.tsv").write_text(_lists(rng, [c for c in valid if c >= "b"], kinds), "utf-8")
    options: dict[str, Any] = {"codes_d": root / "d.tsv", "codes_p": root / "p.tsv"}
    if "no-lowercase" in kinds:
        options["lowercase"] = False
    return options


def _kinds(rng: random.Random, task: str, case: int) -> tuple[set[str], bool]:
    """The warnings of a case: every pooled one now and then, sometimes one declined (then the
    second item is false: the cut is not kept)."""
    kinds = {k for k in POOLED if rng.random() < 0.6} | {"invalid"}
    declined = case % 3 == 2
    if declined:
        kinds.add(rng.choice(DECLINED["x" if task == "codiesp-x" else "ranked"]))
    return kinds, not declined


@pytest.mark.parametrize("task", ["codiesp-d", "codiesp-p", "codiesp-x"])
def test_warned_codiesp_chunks_give_the_bytes_of_one_run(
    task: str, tmp_path: Path, exact: list[bool]
) -> None:
    rng = random.Random(f"codiesp-warnings-{task}")
    write = _x_corpus if task == "codiesp-x" else _ranked_corpus
    for case in range(CASES):
        root = tmp_path / str(case)
        root.mkdir()
        kinds, pools = _kinds(rng, task, case)
        options = write(rng, root, kinds)
        exact.clear()
        chunk = rng.choice([60, 150, 400])
        one = _same(task, root / "gold.tsv", root / "pred.tsv", chunk, jobs=(2,), **options)
        assert "not in the valid-code list" in one, (case, kinds)
        assert exact == [pools, pools], (case, kinds, exact)


@pytest.mark.parametrize("task", ["codiesp-d", "codiesp-x"])
def test_strict_input_refuses_warned_chunks_as_one_run(tmp_path: Path, task: str) -> None:
    rng = random.Random(f"codiesp-strict-{task}")
    write = _x_corpus if task == "codiesp-x" else _ranked_corpus
    options = write(rng, tmp_path, {"invalid", "quotes", "duplicate", "blank"})
    one = _same(task, tmp_path / "gold.tsv", tmp_path / "pred.tsv", 100, **options)
    strict = _same(
        task, tmp_path / "gold.tsv", tmp_path / "pred.tsv", 100, strict_input=True, **options
    )
    assert "quotes" in one and strict.startswith("error: --strict-input")


def test_the_pooled_warnings_are_those_of_one_run_in_detail(
    tmp_path: Path, exact: list[bool]
) -> None:
    # 40 documents, chunks of a few each: invalid codes in the first and the last documents
    # (eight, of which five distinct shown: the fifth from the last chunk), quotes on both
    # sides every seventh document, duplicates every fifth (on both sides: more than five, in
    # several chunks), blank lines between documents (examples named by the whole file's
    # lines), a byte-order mark on each side and a valid-code list with quotes
    gold, pred = [], []
    for doc in range(40):
        name = f"S{doc:02d}-x"
        quoted = f'"{name}"' if doc % 7 == 3 else name
        gold += ["", f"{quoted}\ta{doc:02d}", f"{quoted}\tb{doc:02d}"]
        pred += [f"{quoted}\tb{doc:02d}", f"{quoted}\ta{doc:02d}"]
        if doc % 5 == 1:
            gold.append(f"{quoted}\ta{doc:02d}")
            pred.append(f"{quoted}\tb{doc:02d}")
        if doc in (0, 39):
            pred += [f"{name}\tzz{doc % 7 + k}" for k in range(4)]
    (tmp_path / "g.tsv").write_text("\ufeff" + "\n".join(gold) + "\n", encoding="utf-8")
    (tmp_path / "p.tsv").write_text("\ufeff" + "\n".join(pred) + "\n", encoding="utf-8")
    codes = [f"{c}{n:02d}" for c in "ab" for n in range(40)]
    (tmp_path / "c.tsv").write_text('"a00"\n' + "\n".join(codes) + "\n", encoding="utf-8")
    options = {"codes": tmp_path / "c.tsv"}
    one = _output("codiesp-d", tmp_path / "g.tsv", tmp_path / "p.tsv", 1, **options)
    warnings = json.loads(one[: one.index("\n}\n") + 3])["warnings"]
    assert [w.split(" (e.g.")[0] for w in warnings] == [
        "27 line(s) had CSV-quoted fields; the quotes were removed, as pandas (the official "
        "scripts' reader) removes them",
        "2 file(s) began with a UTF-8 byte-order mark, removed before reading",
        "8 predicted codes are not in the valid-code list and were dropped before ranking, as "
        "the official script does",
        "8 duplicate predictions (same document and code) were dropped, keeping the first, as "
        "the official script does",
        "8 gold lines repeat a (document, code) pair of an earlier line and count once, as in "
        "the official scripts (a code with several references in the text)",
    ]
    assert warnings[0].endswith(
        f"(e.g. {tmp_path}/c.tsv:1, {tmp_path}/g.tsv:12, {tmp_path}/g.tsv:13, "
        f"{tmp_path}/g.tsv:34, {tmp_path}/g.tsv:35)"
    )
    assert warnings[2].endswith("(e.g. zz0, zz1, zz2, zz3, zz4)")
    lines = [int(e.rsplit(":", 1)[1]) for e in warnings[4].split("(e.g. ")[1][:-1].split(", ")]
    assert lines == [7, 23, 39, 55, 71]
    for size in (40, 120):
        exact.clear()
        with _chunks_of(size):
            for jobs in (1, 2):
                assert (
                    _output("codiesp-d", tmp_path / "g.tsv", tmp_path / "p.tsv", jobs, **options)
                    == one
                )
        assert exact == [True, True]


def test_a_byte_order_mark_inside_the_file_is_not_pooled(tmp_path: Path, exact: list[bool]) -> None:
    # a document id that begins with U+FEFF in the middle of the files: a chunk that begins
    # there reads it as a byte-order mark (its document named without it); one run reads it
    # as part of the id
    gold, pred = [], []
    for doc in range(12):
        name = ("\ufeff" if doc == 6 else "") + f"D{doc}"
        gold.append(f"{name}\ta{doc:02d}")
        pred += [f"{name}\ta{doc:02d}", *([f"{name}\tzz{doc:02d}"] if doc % 4 == 1 else [])]
    (tmp_path / "g.tsv").write_text("\n".join(gold) + "\n", encoding="utf-8")
    (tmp_path / "p.tsv").write_text("\n".join(pred) + "\n", encoding="utf-8")
    codes = [f"{c}{n:02d}" for c in "ab" for n in range(12)]
    (tmp_path / "c.tsv").write_text("\n".join(codes) + "\n", encoding="utf-8")
    one = _same("codiesp-d", tmp_path / "g.tsv", tmp_path / "p.tsv", 20, codes=tmp_path / "c.tsv")
    assert "3 predicted codes are not in the valid-code list" in one
    assert "byte-order mark" not in one
    assert '"\ufeffD6"' in one


def test_warned_chunks_of_urls_are_kept_naming_the_urls(tmp_path: Path, exact: list[bool]) -> None:
    # a chunk of a URL's bytes is read through a stand-in path of its own, which its warnings
    # and what it keeps for their pooling name as the URL: the cut is kept, naming URLs
    rng = random.Random("codiesp-urls")
    options = _ranked_corpus(rng, tmp_path, {"invalid", "quotes", "duplicate"})
    gold, pred = (f"file://{tmp_path.resolve()}/{name}" for name in ("gold.tsv", "pred.tsv"))
    one = _output("codiesp-d", gold, pred, 1, **options)
    assert f"{gold}:" in one and f"{pred}:" in one and "/annoscore-url-" not in one
    exact.clear()
    with _chunks_of(100):
        for jobs in (1, 2):
            assert _output("codiesp-d", gold, pred, jobs, **options) == one
    assert exact == [True, True]
