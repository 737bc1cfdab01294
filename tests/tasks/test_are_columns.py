"""The columnar way of scoring ARE (``tasks/are.py``'s ``_fast_are_N``) pinned to the checked
way on random corpora: the same matrix (documents, names, integer columns, every value to the
last bit), scores and warnings; and it must not fall back on files of the usual layout."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

from annoscore.errors import InputError
from annoscore.formats.are import parse_are
from annoscore.formats.are_columns import PRONOUN_MARK, parse_columns
from annoscore.result import Result
from annoscore.tasks import are as tasks


def _corpus(rnd: random.Random, folder: Path, with_ids: bool) -> dict[str, Path]:
    """Seven files of 1-6 documents with random mentions, chains and answers."""
    parts: dict[str, list[str]] = {k: [] for k in ("i12", "g12", "s1", "s2", "i34", "g34", "s3")}
    parts["s4"] = []
    for d in range(rnd.randint(1, 6)):
        size = rnd.randint(1, 40)
        starts = sorted(rnd.sample(range(size), rnd.randint(1, min(size, 12))))
        spans = [(a, min(size - 1, a + rnd.randrange(3))) for a in starts]
        spans = sorted(set(spans))
        pronoun = [rnd.random() < 0.4 for _ in spans]
        chains: list[list[int]] = [[] for _ in range(rnd.randint(1, 4))]
        for m in range(len(spans)):
            chains[rnd.randrange(len(chains))].append(m)
        head = f'<document id="d{d}">' if with_ids else "<document>"
        for k in parts:
            parts[k].append(head)
        entities = "".join(f'<entity id="{m + 1}">w</entity> x' for m in range(len(spans)))
        listed = "".join(f'<pronoun id="{m + 1}"/>' for m, p in enumerate(pronoun) if p)
        listed_block = f"<anaphoric_pronouns>{listed}</anaphoric_pronouns>"
        parts["i12"].append(f"<text>{entities}</text>{listed_block}")
        parts["i34"].append("<text>" + " ".join(f'<node id="{t + 1}"/>w' for t in range(size)))
        parts["i34"].append("</text>")
        for chain in chains:
            typed = [' type="pronoun"' if pronoun[m] else "" for m in chain]
            parts["g12"].append(
                "<chain>"
                + "".join(f'<node id="{m + 1}"{t}/>' for m, t in zip(chain, typed, strict=True))
                + "</chain>"
            )
            parts["g34"].append(
                "<chain>"
                + "".join(
                    f'<mention start="{spans[m][0] + 1}" end="{spans[m][1] + 1}"{t}/>'
                    for m, t in zip(chain, typed, strict=True)
                )
                + "</chain>\n"
            )
        everyone = list(range(len(spans)))
        for m in everyone:
            if (pronoun[m] or rnd.random() < 0.1) and everyone and rnd.random() < 0.9:
                a = rnd.choice(everyone)
                parts["s1"].append(
                    f'<pair><pronoun id="{m + 1}"/><antecedent id="{a + 1}"/></pair>'
                )
                shift = rnd.choice([0, 0, 1, -1])
                first = min(size - 1, max(0, spans[a][0] + shift))
                last = max(first, spans[a][1])
                parts["s3"].append(
                    f'<pair><pronoun start="{spans[m][0] + 1}" end="{spans[m][1] + 1}"/>'
                    f'<antecedent start="{first + 1}" end="{last + 1}"/></pair>\n'
                )
        system: list[list[int]] = [[] for _ in range(rnd.randint(1, 4))]
        for m in everyone:
            system[rnd.randrange(len(system))].append(m)
        used: set[tuple[int, int]] = set()
        for chain in system:
            parts["s2"].append(
                "<chain>" + "".join(f'<node id="{m + 1}"/>' for m in chain) + "</chain>"
            )
            members = []
            for m in chain:
                first = min(size - 1, max(0, spans[m][0] + rnd.choice([0, 0, 1, -1])))
                last = max(first, min(size - 1, spans[m][1] + rnd.choice([0, 0, 1])))
                if (first, last) not in used:
                    used.add((first, last))
                    members.append(f'<mention start="{first + 1}" end="{last + 1}"/>')
            parts["s4"].append("<chain>" + "".join(members) + "</chain>")
        for k in parts:
            parts[k].append("</document>\n")
    paths = {}
    for k, chunks in parts.items():
        paths[k] = folder / f"{k}.xml"
        paths[k].write_text("<corpus>\n" + "".join(chunks) + "</corpus>\n", encoding="utf-8")
    return paths


RUNS = {
    1: ("g12", "s1", "i12"),
    2: ("g12", "s2", "i12"),
    3: ("g34", "s3", "i34"),
    4: ("g34", "s4", "i34"),
}


def _same(fast: Result, checked: Result) -> None:
    assert fast.matrix.documents == checked.matrix.documents
    assert fast.matrix.names == checked.matrix.names
    assert fast.matrix.integer == checked.matrix.integer
    assert np.array_equal(fast.matrix.values, checked.matrix.values)
    assert fast.scores == checked.scores
    assert fast.warnings == checked.warnings


@pytest.mark.parametrize("seed", range(25))
def test_the_columnar_way_equals_the_checked_way_on_random_corpora(
    tmp_path: Path, seed: int
) -> None:
    rnd = random.Random(seed)
    paths = _corpus(rnd, tmp_path, with_ids=seed % 3 != 0)
    for task, (gold, system, source) in RUNS.items():
        fast_way = getattr(tasks, f"_fast_are_{task}")
        checked_way = getattr(tasks, f"_checked_are_{task}")
        fast = fast_way(paths[gold], paths[system], paths[source])
        assert fast is not None, f"task {task} fell back on a file of the usual layout"
        _same(fast, checked_way(paths[gold], paths[system], input_path=paths[source]))
        # the text report's items (made the checked way) are there
        assert fast.details.explanations()


def test_the_columnar_counts_equal_the_checked_ones_on_many_small_corpora(tmp_path: Path) -> None:
    """Tasks 1 and 3 (the walk from pronoun to pronoun, cycles, chains of pronouns only,
    repeated and non-referential pairs) on many small random corpora."""
    for seed in range(300, 420):
        rnd = random.Random(seed)
        paths = _corpus(rnd, tmp_path, with_ids=True)
        for name in ("s1", "s3"):  # answer some pronouns twice
            pairs = paths[name].read_text().split("</pair>")
            for k in rnd.sample(range(len(pairs) - 1), min(3, len(pairs) - 1)):
                pairs[k] += "</pair>" + pairs[k][pairs[k].rindex("<pair>") :]
            paths[name].write_text("</pair>".join(pairs))
        for task in (1, 3):
            gold, system, source = RUNS[task]
            fast = getattr(tasks, f"_fast_are_{task}")(paths[gold], paths[system], paths[source])
            assert fast is not None
            checked_way = getattr(tasks, f"_checked_are_{task}")
            _same(fast, checked_way(paths[gold], paths[system], input_path=paths[source]))


@pytest.mark.parametrize("seed", range(10))
def test_damaged_corpora_give_the_checked_result_or_error(tmp_path: Path, seed: int) -> None:
    """A random edit of a system file: the public function gives exactly what the checked way
    gives (the same result, or the same error), whichever way it took."""
    rnd = random.Random(100 + seed)
    paths = _corpus(rnd, tmp_path, with_ids=True)
    edits = ['start="0"', 'id="zz"', "<chain>", "</pair>", "<!-- c -->", 'start="01"', ""]
    for task, (gold, system, source) in RUNS.items():
        text = paths[system].read_text()
        at = rnd.randrange(len(text) + 1)
        damaged = tmp_path / f"damaged{task}.xml"
        damaged.write_text(text[:at] + rnd.choice(edits) + text[at + rnd.randrange(3) :])
        public = getattr(tasks, f"score_are_{task}")
        checked_way = getattr(tasks, f"_checked_are_{task}")
        outcomes = []
        for way in (public, checked_way):
            try:
                outcomes.append(way(paths[gold], damaged, input_path=paths[source]))
            except InputError as error:
                outcomes.append(error.message)
        if isinstance(outcomes[0], Result) and isinstance(outcomes[1], Result):
            _same(outcomes[0], outcomes[1])
        else:
            assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("seed", range(30))
def test_columns_agree_with_the_checked_reader(tmp_path: Path, seed: int) -> None:
    """Whatever the columnar reader accepts, the checked reader reads to the same items."""
    rnd = random.Random(200 + seed)
    paths = _corpus(rnd, tmp_path, with_ids=True)
    for name, path in paths.items():
        text = path.read_text()
        if seed % 2:
            at = rnd.randrange(len(text) + 1)
            text = text[:at] + rnd.choice(["<", '"', " ", "/>", "<x/>", "&amp;"]) + text[at:]
        data = text.encode()
        columns = parse_columns(path, data)
        if columns is None:
            continue
        parsed = parse_are(path, data, fast=False)
        documents = parsed.documents
        assert [d.key for d in documents] == columns.keys, name
        assert sum(len(d.chains) for d in documents) == len(columns.chain_sizes)
        members = [m for d in documents for c in d.chains for m in c.members]
        if columns.kind == "id-chains":
            assert [m.id for m in members] == list(columns.members)
        if columns.kind == "span-chains":
            assert [m.start for m in members] == list(columns.members)
            assert [m.end for m in members] == list(columns.ends)
        assert [m.pronoun for m in members] == [mark == PRONOUN_MARK for mark in columns.marks]
        pairs = [p for d in documents for p in d.pairs]
        if columns.kind == "id-pairs":
            assert [(p.pronoun.id, p.antecedent.id) for p in pairs] == columns.pairs
        if columns.kind == "span-pairs":
            expected = [
                (p.pronoun.start, p.pronoun.end, p.antecedent.start, p.antecedent.end)
                for p in pairs
            ]
            assert expected == columns.pairs
        if columns.kind == "tokens":
            assert [t for d in documents for t in d.tokens] == columns.tokens
        if columns.kind == "entities":
            assert [len(d.entities) for d in documents] == columns.sizes
            assert [r.id for d in documents for r in d.listed] == columns.listed


@pytest.mark.parametrize("seed", range(20))
def test_files_of_tokens_are_read_only_when_their_grammar_accepts_them(
    tmp_path: Path, seed: int
) -> None:
    """A file of tokens is proved with arrays, not with its regular expression: whatever the
    arrays accept, the expression (the shape's definition) accepts too, damaged or not."""
    from annoscore.align.are_columns import numbered_tokens
    from annoscore.formats.are_columns import _BODIES, _S

    rnd = random.Random(400 + seed)
    paths = _corpus(rnd, tmp_path, with_ids=seed % 2 == 0)
    text = paths["i34"].read_text()
    assert parse_columns(paths["i34"], text.encode()) is not None
    grammars = [
        re.compile(
            f'(?:{_S}<document(?: id="[^"<&\t\n\r]*+")?>{_BODIES["tokens"]}{_S}</document>)*+{_S}'
        ),
        re.compile(f"{_BODIES['tokens']}{_S}"),
    ]
    edits = [
        "<",
        '"',
        " ",
        "/>",
        "<x/>",
        '<node id="1"/>',
        "</text>",
        "<text>",
        "\x01",
        "0",
        "<document>",
        "</document>",
        "<node id='1'/>",
        '<node  id="1"/>',
        "a",
        ">",
    ]
    for _ in range(60):
        at = rnd.randrange(len(text) + 1)
        damaged = text[:at] + rnd.choice(edits) + text[at + rnd.randrange(3) :]
        columns = parse_columns(paths["i34"], damaged.encode())
        if columns is None:
            continue
        body = damaged[damaged.index(">") + 1 : damaged.rindex("</")]
        assert any(g.fullmatch(body) for g in grammars), damaged
        try:
            parsed = parse_are(paths["i34"], damaged.encode(), fast=False)
        except InputError:  # a token id twice: not numbered, so scored the checked way
            assert numbered_tokens(columns) is None
            continue
        assert [t for d in parsed.documents for t in d.tokens] == columns.tokens


@pytest.mark.parametrize("insert", ["\x01", "\x1f", "<!-- c -->", "<?pi x?>"])
def test_control_characters_comments_and_instructions_go_to_the_checked_reader(
    tmp_path: Path, insert: str
) -> None:
    rnd = random.Random(7)
    paths = _corpus(rnd, tmp_path, with_ids=True)
    for name, path in paths.items():
        text = path.read_text()
        at = text.index(">", text.index("<document")) + 1
        assert parse_columns(path, (text[:at] + insert + text[at:]).encode()) is None, name
    doctype = "<!DOCTYPE corpus>\n" + paths["i34"].read_text()
    assert parse_columns(paths["i34"], doctype.encode()) is None


def test_system_files_with_nothing_in_them_are_scored_the_columnar_way(tmp_path: Path) -> None:
    """A system file whose documents hold no pair or chain at all (read as ``empty``)."""
    paths = _corpus(random.Random(3), tmp_path, with_ids=True)
    documents = paths["s1"].read_text().count("<document")
    empty = tmp_path / "empty.xml"
    body = "".join(f'<document id="d{d}"></document>' for d in range(documents))
    empty.write_text(f"<corpus>{body}</corpus>")
    for task, (gold, _, source) in RUNS.items():
        fast = getattr(tasks, f"_fast_are_{task}")(paths[gold], empty, paths[source])
        assert fast is not None, task
        checked_way = getattr(tasks, f"_checked_are_{task}")
        _same(fast, checked_way(paths[gold], empty, input_path=paths[source]))
