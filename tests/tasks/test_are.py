"""The ARE presets end to end: samples, the binding decisions of are.md, several documents."""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import pytest

from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.are import read_are
from annoscore.samples import SAMPLES
from annoscore.tasks.are import (
    Are1Options,
    Are2Options,
    Are3Options,
    Are4Options,
    count_are_1,
    count_are_2,
    count_are_3,
    count_are_4,
    score_are_1,
    score_are_2,
    score_are_3,
    score_are_4,
)

ARE = SAMPLES / "are"
T1_INPUT, T1_GOLD, T1_SYSTEM = (
    ARE / "task1-input.xml",
    ARE / "task1-gold.xml",
    ARE / "task1-system.xml",
)
T2_SYSTEM = ARE / "task2-system.xml"
T3_INPUT, T3_GOLD, T3_SYSTEM = (
    ARE / "task3-input.xml",
    ARE / "task3-gold.xml",
    ARE / "task3-system.xml",
)
T4_SYSTEM = ARE / "task4-system.xml"


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def tokens(n: int, ids: list[str] | None = None) -> str:
    names = ids or [str(i) for i in range(1, n + 1)]
    return "<text>" + " ".join(f'<node id="{i}"/>w' for i in names) + "</text>"


def mention(start: int | str, end: int | str, pronoun: bool = False) -> str:
    typed = ' type="pronoun"' if pronoun else ""
    return f'<mention start="{start}" end="{end}"{typed}/>'


def pair(p: tuple[int, int], a: tuple[int, int]) -> str:
    return (
        f'<pair><pronoun start="{p[0]}" end="{p[1]}"/>'
        f'<antecedent start="{a[0]}" end="{a[1]}"/></pair>'
    )


# --- the samples, computed by hand --------------------------------------------------------------


def test_sample_task1() -> None:
    r = score_are_1(T1_GOLD, T1_SYSTEM, Are1Options(input_path=T1_INPUT))
    # 2 -> 1 (noun phrase): 1; 4 -> 5 (pronoun 5 unresolved): 0.5; 5 unresolved: 0; 7 -> 6: 1
    assert r.scores == {"success_rate": 2.5 / 4}
    assert (r.counts["full"], r.counts["half"], r.counts["zero"]) == (2, 1, 1)
    codes = {w.code: w.count for w in r.warnings}
    assert codes == {"are.unresolved": 1, "are.unlisted-pairs": 1, "are.repeated-pairs": 1}


def test_sample_task2() -> None:
    r = score_are_2(T1_GOLD, T2_SYSTEM, Are2Options(input_path=T1_INPUT))
    assert r.scores == {"recall": 3 / 4, "precision": 3 / 5, "f1": 2 * 0.75 * 0.6 / 1.35}


def test_sample_task3() -> None:
    r = score_are_3(T3_GOLD, T3_SYSTEM, Are3Options(input_path=T3_INPUT))
    # it -> "The government" (0.5), It -> it (resolved to the NP: 1), They -> exact NP (1),
    # non-referential "it" (0, precision only)
    assert (r.counts["credit_sum"], r.counts["pairs"], r.counts["pronouns"]) == (2.5, 4, 3)
    assert r.scores["recall"] == 2.5 / 3 and r.scores["precision"] == 2.5 / 4


def test_sample_task4() -> None:
    r = score_are_4(T3_GOLD, T4_SYSTEM, Are4Options(input_path=T3_INPUT))
    chain1 = 2 * (0.5 + 1 + 1) / 3
    assert r.counts["recall_num"] == pytest.approx(chain1 + 1)
    assert (r.counts["recall_den"], r.counts["precision_den"]) == (3, 4)


# --- the binding decisions ------------------------------------------------------------------


def task1_files(tmp_path: Path, listed: str, gold_marks: bool) -> tuple[Path, Path, Path]:
    typed = ' type="pronoun"' if gold_marks else ""
    entities = "".join(f'<entity id="{i}">x</entity>' for i in range(1, 6))
    gold = write(
        tmp_path,
        "g.xml",
        f'<r><chain><node id="1"/><node id="2"{typed}/><node id="3"{typed}/></chain>'
        f'<chain><node id="4"/><node id="5"{typed}/></chain></r>',
    )
    system = write(
        tmp_path,
        "s.xml",
        '<r><pair><pronoun id="3"/><antecedent id="2"/></pair>'
        '<pair><pronoun id="5"/><antecedent id="4"/></pair></r>',
    )
    source = write(tmp_path, "i.xml", f"<r><text>{entities}</text>{listed}</r>")
    return gold, system, source


LIST_2_3_5 = (
    '<anaphoric_pronouns><pronoun id="2"/><pronoun id="3"/><pronoun id="5"/></anaphoric_pronouns>'
)


def test_decision_1_task1_credit_precisely(tmp_path: Path) -> None:
    listed = LIST_2_3_5
    r = score_are_1(
        *task1_files(tmp_path, listed, True)[:2], Are1Options(input_path=tmp_path / "i.xml")
    )
    # 3 -> 2, but 2 was never resolved: 0.5; 5 -> 4: 1; 2 unresolved: 0
    assert r.counts["credit_sum"] == 1.5 and r.counts["pronouns"] == 3


def test_decision_2_which_members_are_pronominal(tmp_path: Path) -> None:
    listed = LIST_2_3_5
    marked = score_are_1(
        *task1_files(tmp_path / "a", listed, True)[:2],
        Are1Options(input_path=tmp_path / "a" / "i.xml"),
    )
    unmarked = score_are_1(
        *task1_files(tmp_path / "b", listed, False)[:2],
        Are1Options(input_path=tmp_path / "b" / "i.xml"),
    )
    assert marked.scores == unmarked.scores  # the input's list marks them pronominal too
    # tasks 3-4: the gold mention's type="pronoun" decides
    source = write(tmp_path, "i3.xml", "<r>" + tokens(6) + "</r>")
    gold = write(tmp_path, "g3.xml", f"<r><chain>{mention(1, 2)}{mention(4, 4, True)}</chain></r>")
    untyped = write(tmp_path, "u3.xml", f"<r><chain>{mention(1, 2)}{mention(4, 4)}</chain></r>")
    system = write(tmp_path, "s3.xml", "<r>" + pair((4, 4), (1, 2)) + "</r>")
    assert score_are_3(gold, system, Are3Options(input_path=source)).counts["credit_sum"] == 1.0
    no_pronoun = score_are_3(untyped, system, Are3Options(input_path=source))
    assert no_pronoun.counts["credit_sum"] == 0.0 and no_pronoun.counts["pronouns"] == 0


def test_decision_3_task1_denominator(tmp_path: Path) -> None:
    gold, system, source = task1_files(tmp_path, "", True)
    r = score_are_1(
        gold, system, Are1Options(input_path=source)
    )  # no list: the gold's pronoun nodes
    assert r.counts["pronouns"] == 3
    assert any(w.code == "are.list-from-gold" for w in r.warnings)
    gold, system, source = task1_files(tmp_path / "n", "", False)
    with pytest.raises(InputError, match="needs the pronouns to resolve"):
        score_are_1(gold, system, Are1Options(input_path=source))
    gold, system, source = task1_files(
        tmp_path / "l",
        '<anaphoric_pronouns><pronoun id="3"/><pronoun id="1"/></anaphoric_pronouns>',
        False,
    )
    # whatever the list names counts in the denominator (1 here, unresolved); 5 is not listed
    r = score_are_1(gold, system, Are1Options(input_path=source))
    assert r.counts["pronouns"] == 2 and r.counts["unlisted_pairs"] == 1


def test_decision_4_task3_in_full(tmp_path: Path) -> None:
    source = write(tmp_path, "i.xml", "<r>" + tokens(10) + "</r>")
    gold = write(
        tmp_path,
        "g.xml",
        f"<r><chain>{mention(1, 4)}{mention(6, 6, True)}{mention(8, 8, True)}</chain>"
        f"<chain>{mention(10, 10, True)}</chain></r>",
    )
    system = write(
        tmp_path,
        "s.xml",
        "<r>"
        + pair((6, 6), (1, 2))  # 0.5
        + pair((6, 7), (1, 4))  # partial pronoun: 0
        + pair((6, 6), (1, 4))  # second pair for 6: 0
        + pair((8, 8), (6, 6))  # pronoun 6 resolved to the NP: 1 x overlap 1
        + pair((10, 10), (1, 4))  # alone in its chain: 0, not in recall
        + "</r>",
    )
    r = score_are_3(gold, system, Are3Options(input_path=source))
    assert (r.counts["credit_sum"], r.counts["pairs"], r.counts["pronouns"]) == (1.5, 5, 2)
    assert (r.counts["partial_pronoun_pairs"], r.counts["repeated_pairs"]) == (1, 1)


def test_decision_5_several_documents_in_one_file_by_id_and_by_position(tmp_path: Path) -> None:
    docs = {
        "a": (
            '<chain><node id="1"/><node id="2"/><node id="3"/></chain>',
            '<chain><node id="1"/><node id="2"/></chain>',
        ),
        "b": (
            '<chain><node id="4"/><node id="5"/></chain>',
            '<chain><node id="4"/><node id="5"/></chain>',
        ),
        "c": ('<chain><node id="6"/><node id="7"/></chain>', ""),
    }
    gold = write(
        tmp_path,
        "g.xml",
        "<corpus>"
        + "".join(f'<document id="{k}">{g}</document>' for k, (g, _) in docs.items())
        + "</corpus>",
    )
    system = write(
        tmp_path,
        "s.xml",
        "<corpus>"
        + "".join(
            f'<document id="{k}">{s}</document>' for k, (_, s) in reversed(list(docs.items()))
        )
        + "</corpus>",
    )
    r = score_are_2(gold, system)
    assert list(r.documents) == ["a", "b", "c"]
    assert (r.counts["recall_num"], r.counts["recall_den"]) == (2, 4)
    assert r.counts == Counts.total(u.counts for u in r.documents.values())
    # separately scored documents add up to the same counts
    separate = Counts()
    for k, (g, s) in docs.items():
        separate = (
            separate
            + score_are_2(
                write(tmp_path / k, "g.xml", f"<r>{g}</r>"),
                write(tmp_path / k, "s.xml", f"<r>{s}</r>"),
            ).counts
        )
    assert separate == r.counts
    # by position, when not every document has an id
    gold_p = write(
        tmp_path,
        "gp.xml",
        "<corpus>" + "".join(f"<document>{g}</document>" for g, _ in docs.values()) + "</corpus>",
    )
    system_p = write(
        tmp_path,
        "sp.xml",
        "<corpus>" + "".join(f"<document>{s}</document>" for _, s in docs.values()) + "</corpus>",
    )
    assert score_are_2(gold_p, system_p).counts == r.counts
    short = write(tmp_path, "short.xml", "<corpus><document/></corpus>")
    with pytest.raises(InputError, match="different numbers of documents"):
        score_are_2(gold_p, short)


def test_decision_5_folders_paired_by_file_name(tmp_path: Path) -> None:
    for name in ("x", "y"):
        write(tmp_path / "g", f"{name}.xml", '<r><chain><node id="1"/><node id="2"/></chain></r>')
    write(tmp_path / "s", "x.xml", '<r><chain><node id="1"/><node id="2"/></chain></r>')
    write(tmp_path / "s", "z.xml", '<r><chain><node id="8"/><node id="9"/></chain></r>')
    r = score_are_2(tmp_path / "g", tmp_path / "s")
    assert sorted(r.documents) == ["x", "y", "z"]
    assert (r.counts["recall_num"], r.counts["recall_den"]) == (1, 2)
    assert (r.counts["precision_num"], r.counts["precision_den"]) == (1, 2)
    assert {w.code for w in r.warnings} >= {"documents.gold-only", "documents.system-only"}
    with pytest.raises(InputError, match="all be folders"):
        score_are_2(tmp_path / "g", tmp_path / "s" / "x.xml")


def test_decision_6_layout_own_shape_and_bare_text_root(tmp_path: Path) -> None:
    own = write(tmp_path, "own.xml", "<document>" + tokens(20) + "</document>")
    bare = write(tmp_path, "bare.xml", tokens(20))
    a = score_are_3(T3_GOLD, T3_SYSTEM, Are3Options(input_path=own))
    b = score_are_3(T3_GOLD, T3_SYSTEM, Are3Options(input_path=bare))
    assert (
        a.scores
        == b.scores
        == score_are_3(T3_GOLD, T3_SYSTEM, Are3Options(input_path=T3_INPUT)).scores
    )


def test_decision_8_token_lengths_follow_the_input_order(tmp_path: Path) -> None:
    source = write(tmp_path, "i.xml", "<r>" + tokens(5, ["10", "3", "7", "1", "20"]) + "</r>")
    gold = write(
        tmp_path, "g.xml", f"<r><chain>{mention(10, 7)}{mention(20, 20, True)}</chain></r>"
    )
    system = write(tmp_path, "s.xml", "<r>" + pair((20, 20), (3, 7)) + "</r>")
    # gold "10..7" is 3 tokens (not 10 - 7), the answer "3..7" 2 of them: 2/3
    assert score_are_3(gold, system, Are3Options(input_path=source)).counts["credit_sum"] == 2 / 3
    backwards = write(tmp_path, "b.xml", f"<r><chain>\n{mention(7, 10)}</chain></r>")
    with pytest.raises(InputError, match="start comes after the end") as error:
        score_are_3(backwards, system, Are3Options(input_path=source))
    assert error.value.line == 2 and error.value.path == str(backwards)
    unknown = write(tmp_path, "u.xml", f"<r><chain>\n\n{mention(10, 99)}</chain></r>")
    with pytest.raises(InputError, match="not a token <node> id") as error:
        score_are_3(unknown, system, Are3Options(input_path=source))
    assert error.value.line == 3


def test_decision_9_task4_singletons_align_and_add_nothing(tmp_path: Path) -> None:
    source = write(tmp_path, "i.xml", "<r>" + tokens(8) + "</r>")
    gold = write(
        tmp_path,
        "g.xml",
        f"<r><chain>{mention(1, 2)}{mention(4, 4)}</chain><chain>{mention(6, 7)}</chain></r>",
    )
    # the system's singleton (6, 6) takes the gold singleton; (1, 1) aligns to (1, 2)
    system = write(
        tmp_path,
        "s.xml",
        f"<r><chain>{mention(1, 1)}{mention(4, 4)}</chain><chain>{mention(6, 6)}</chain></r>",
    )
    r = score_are_4(gold, system, Are4Options(input_path=source))
    assert (r.counts["recall_den"], r.counts["precision_den"]) == (1, 1)
    assert r.counts["aligned"] == 3
    assert r.counts["recall_num"] == 0.75


def test_decision_10_ids_not_values(tmp_path: Path) -> None:
    rnd = random.Random(7)

    def scramble(path: Path) -> Path:
        text = re.sub(
            r'value="[^"]*"', lambda _: f'value="{rnd.random()}"', path.read_text(encoding="utf-8")
        )
        return write(tmp_path / "scrambled", path.name, text)

    before = [
        score_are_1(T1_GOLD, T1_SYSTEM, Are1Options(input_path=T1_INPUT)),
        score_are_2(T1_GOLD, T2_SYSTEM, Are2Options(input_path=T1_INPUT)),
        score_are_3(T3_GOLD, T3_SYSTEM, Are3Options(input_path=T3_INPUT)),
        score_are_4(T3_GOLD, T4_SYSTEM, Are4Options(input_path=T3_INPUT)),
    ]
    after = [
        score_are_1(
            scramble(T1_GOLD), scramble(T1_SYSTEM), Are1Options(input_path=scramble(T1_INPUT))
        ),
        score_are_2(
            scramble(T1_GOLD), scramble(T2_SYSTEM), Are2Options(input_path=scramble(T1_INPUT))
        ),
        score_are_3(
            scramble(T3_GOLD), scramble(T3_SYSTEM), Are3Options(input_path=scramble(T3_INPUT))
        ),
        score_are_4(
            scramble(T3_GOLD), scramble(T4_SYSTEM), Are4Options(input_path=scramble(T3_INPUT))
        ),
    ]
    assert "value=" in T1_SYSTEM.read_text(encoding="utf-8")
    assert [r.scores for r in before] == [r.scores for r in after]
    assert [r.counts for r in before] == [r.counts for r in after]


@pytest.mark.parametrize(
    ("gold", "words"),
    [
        ('<r><chain><node id="1"/>\n<node id="1"/></chain></r>', "already in the chain"),
        (
            '<r><chain><node id="1"/></chain><chain>\n<node id="1"/></chain></r>',
            "already in the chain",
        ),
        ('<r><chain><node id="1"/>\n<node/></chain></r>', "no id attribute"),
        ('<r><chain><node id="1"/>\n<node id="77"/></chain></r>', "not an <entity> of the input"),
    ],
)
def test_bad_chains_name_file_and_line(tmp_path: Path, gold: str, words: str) -> None:
    path = write(tmp_path, "g.xml", gold)
    with pytest.raises(InputError, match=words) as error:
        score_are_2(path, T2_SYSTEM, Are2Options(input_path=T1_INPUT))
    assert (error.value.path, error.value.line) == (str(path), 2)


def test_task1_pair_with_an_id_not_in_the_input(tmp_path: Path) -> None:
    system = write(
        tmp_path, "s.xml", '<r>\n<pair><pronoun id="2"/><antecedent id="42"/></pair></r>'
    )
    with pytest.raises(InputError, match="42 is not an <entity>") as error:
        score_are_1(T1_GOLD, system, Are1Options(input_path=T1_INPUT))
    assert error.value.line == 2


def test_task_inputs_are_required() -> None:
    for score in (score_are_1, score_are_3, score_are_4):
        with pytest.raises(InputError, match="needs --input"):
            score(T3_GOLD, T3_SYSTEM)


def test_shuffling_documents_changes_nothing(tmp_path: Path) -> None:
    rnd = random.Random(3)
    chains = [
        "".join(
            "<chain>"
            + "".join(f'<node id="{d}.{c}.{m}"/>' for m in range(rnd.randint(1, 4)))
            + "</chain>"
            for c in range(3)
        )
        for d in range(6)
    ]
    system = [re.sub(r"</chain><chain>", "", c, count=1) for c in chains]
    order = list(range(6))
    results = []
    for attempt in range(2):
        folder = tmp_path / str(attempt)
        g = write(
            folder,
            "g.xml",
            "<c>" + "".join(f'<document id="d{i}">{chains[i]}</document>' for i in order) + "</c>",
        )
        s = write(
            folder,
            "s.xml",
            "<c>" + "".join(f'<document id="d{i}">{system[i]}</document>' for i in order) + "</c>",
        )
        results.append(score_are_2(g, s))
        rnd.shuffle(order)
    assert results[0].counts == results[1].counts and results[0].scores == results[1].scores


def test_system_document_without_gold_or_input_is_left_out_with_a_warning(tmp_path: Path) -> None:
    source = write(tmp_path, "i.xml", '<c><document id="a">' + tokens(4) + "</document></c>")
    gold = write(
        tmp_path,
        "g.xml",
        f'<c><document id="a"><chain>{mention(1, 2)}{mention(4, 4, True)}</chain></document></c>',
    )
    system = write(
        tmp_path,
        "s.xml",
        '<c><document id="a">'
        + pair((4, 4), (1, 2))
        + '</document><document id="zz">'
        + pair((1, 1), (2, 2))
        + "</document></c>",
    )
    r = score_are_3(gold, system, Are3Options(input_path=source))
    assert list(r.documents) == ["a"] and r.counts["pairs"] == 1
    assert any(w.code == "are.system-only-no-input" for w in r.warnings)


def test_input_without_entities_leaves_ids_unchecked_with_a_warning(tmp_path: Path) -> None:
    source = write(tmp_path, "i.xml", "<r><text>no markup</text></r>")
    r = score_are_2(T1_GOLD, T2_SYSTEM, Are2Options(input_path=source))
    assert any(w.code == "are.ids-unchecked" for w in r.warnings)
    assert r.scores == score_are_2(T1_GOLD, T2_SYSTEM).scores


# --- the report's items ------------------------------------------------------------------------


def test_items_name_mentions_by_their_token_ids_and_ids_as_written(tmp_path: Path) -> None:
    """Mentions print as ``start..end`` token ids (one id for one token), whatever the ids;
    ids print as written (``01`` is not ``1``)."""
    source = write(tmp_path, "i.xml", "<r>" + tokens(4, ["t1", "007", "t3", "x"]) + "</r>")
    gold = write(
        tmp_path, "g.xml", f"<r><chain>{mention('t1', '007')}{mention('x', 'x', True)}</chain></r>"
    )
    system = write(tmp_path, "s.xml", "<r>" + pair(("x", "x"), ("007", "t3")) + "</r>")  # type: ignore[arg-type]
    (document,) = score_are_3(gold, system, Are3Options(input_path=source)).details.explanations()
    (item,) = document.pronouns
    assert (item.pronoun, item.answer, item.target) == ("x", "007..t3", "t1..007")
    assert (item.credit, item.overlap) == (0.5, 0.5)
    ids = write(tmp_path, "n.xml", '<r><chain><node id="01"/><node id="1"/></chain></r>')
    (document,) = score_are_2(ids, ids).details.explanations()
    assert [c.members for c in document.chains] == [("01", "1"), ("01", "1")]


def test_folder_entries_that_are_not_xml_files_are_counted_in_a_warning(tmp_path: Path) -> None:
    from annoscore.samples import SAMPLES
    from annoscore.tasks.are import score_are_2

    for side, name in (("gold", "task1-gold.xml"), ("system", "task2-system.xml")):
        (tmp_path / side).mkdir()
        shutil.copy(SAMPLES / "are" / name, tmp_path / side / "doc.xml")
    (tmp_path / "system" / "sub").mkdir()
    (tmp_path / "system" / "DOC2.XML").write_text("<chains/>", encoding="utf-8")
    result = score_are_2(tmp_path / "gold", tmp_path / "system")
    (warning,) = [w for w in result.warnings if w.code == "formats.skipped-entries"]
    assert warning.count == 2


def test_a_member_in_two_chains_is_an_error_naming_both_lines(tmp_path: Path) -> None:
    are = SAMPLES / "are"
    gold = tmp_path / "gold.xml"
    text = (are / "task1-gold.xml").read_text(encoding="utf-8")
    gold.write_text(text.replace('<node id="3" value="Israel"/>', '<node id="6"/>'), "utf-8")
    with pytest.raises(InputError) as raised:
        score_are_2(gold, are / "task2-system.xml")
    assert str(raised.value) == (
        f'{gold}:14: <node id="6">: id 6 is already in the chain of line 9; an id may appear '
        "once in one chain and in one chain only"
    )
    gold3 = tmp_path / "gold3.xml"
    text3 = (are / "task3-gold.xml").read_text(encoding="utf-8")
    gold3.write_text(text3.replace('start="17" end="17"', 'start="6" end="6"'), "utf-8")
    with pytest.raises(InputError) as raised:
        score_are_3(
            gold3, are / "task3-system.xml", Are3Options(input_path=are / "task3-input.xml")
        )
    assert str(raised.value) == (
        f'{gold3}:10: <mention start="6" end="6">: this mention is already in the chain of line '
        "3; a mention may appear once in one chain and in one chain only"
    )


# --- options, the API on data ------------------------------------------------------------------

OPTIONS = {1: Are1Options, 2: Are2Options, 3: Are3Options, 4: Are4Options}
SCORE = {1: score_are_1, 2: score_are_2, 3: score_are_3, 4: score_are_4}
COUNT = {1: count_are_1, 2: count_are_2, 3: count_are_3, 4: count_are_4}


def test_the_signature_records_each_fixed_definition_and_not_the_input() -> None:
    """Byte for byte the signatures the tasks had before their options were declared."""
    fixed = {
        1: "credit:walk",
        2: "metric:muc",
        3: "credit:walk|overlap:shared/max-length",
        4: "overlap:shared/max-length|alignment:max-total-overlap",
    }
    for task, tail in fixed.items():
        for options in (OPTIONS[task](), OPTIONS[task](input_path=T3_INPUT)):
            assert str(options.signature(f"are-{task}")).endswith(f"|task:are-{task}|{tail}")


def test_the_fixed_definitions_cannot_be_set() -> None:
    with pytest.raises(TypeError):
        Are1Options(credit="other")  # type: ignore[call-arg]
    with pytest.raises(InputError, match="unknown option"):
        Are4Options.from_values({"alignment": "greedy"}, task="are-4")
    with pytest.raises(InputError, match="needs input_path"):
        Are3Options.from_values({}, task="are-3")
    assert Are2Options.from_values({}, task="are-2") == Are2Options()


def test_a_score_function_refuses_another_tasks_options() -> None:
    with pytest.raises(TypeError, match="are-3 takes Are3Options"):
        score_are_3(T3_GOLD, T3_SYSTEM, Are4Options(input_path=T3_INPUT))  # type: ignore[arg-type]


@pytest.mark.parametrize("task", [1, 2, 3, 4])
def test_counting_parsed_files_is_scoring_their_paths(task: int) -> None:
    """``count_are_N`` of the files read (the input as ``input_file``, or by its path in the
    options) is ``score_are_N`` of their paths."""
    gold, source = (T1_GOLD, T1_INPUT) if task < 3 else (T3_GOLD, T3_INPUT)
    system = {1: T1_SYSTEM, 2: T2_SYSTEM, 3: T3_SYSTEM, 4: T4_SYSTEM}[task]
    scored = SCORE[task](gold, system, OPTIONS[task](input_path=source))
    gold_file, system_file, input_file = (read_are(p) for p in (gold, system, source))
    counted = COUNT[task](gold_file, system_file, input_file=input_file)
    by_path = COUNT[task](gold_file, system_file, options=OPTIONS[task](input_path=source))
    assert counted.to_dict() == by_path.to_dict() == scored.to_dict()
    assert counted.document_counts() == scored.document_counts()
    with pytest.raises(InputError, match="given twice"):
        COUNT[task](gold_file, system_file, input_file, OPTIONS[task](input_path=source))
    with pytest.raises(TypeError, match="input_file is a file read"):
        COUNT[task](gold_file, system_file, OPTIONS[task](input_path=source))
    if task != 2:
        with pytest.raises(InputError, match="needs --input"):
            COUNT[task](gold_file, system_file)


def test_an_undefined_corpus_score_is_named_in_the_one_warning(tmp_path: Path) -> None:
    """No gold link and no system link: every MUC ratio is undefined (null), and one warning
    names them; a gold chain and no system chain: precision undefined, F1 0."""
    empty = write(tmp_path, "e.xml", '<r><chain><node id="1"/></chain></r>')
    chain = write(tmp_path, "c.xml", '<r><chain><node id="1"/><node id="2"/></chain></r>')
    r = score_are_2(empty, empty)
    assert r.scores == {"recall": None, "precision": None, "f1": None}
    (warning,) = r.warnings
    assert (warning.code, str(warning)) == (
        "undefined",
        "undefined (a zero denominator, JSON null): recall, precision, f1",
    )
    r = score_are_2(chain, empty)
    assert r.scores == {"recall": 0.0, "precision": None, "f1": 0.0}
    assert [str(w) for w in r.warnings] == ["undefined (a zero denominator, JSON null): precision"]
