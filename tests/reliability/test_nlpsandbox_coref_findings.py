"""NLP Sandbox and CoNLL coreference findings of issues 24 and 25, one test each.

- NLP Sandbox: an integer of 5,000 digits was an internal error (exit 1, Python's 4,300-digit
  limit): exit 2 naming the file and the JSON path (or ignored, in a field that is not read);
  JSON nested deeper than the decoder follows was an internal error (RecursionError): exit 2
  naming the file; a note name holding a lone surrogate (``"\\ud800"``) was an internal error
  when the note id was printed: exit 2 naming the file and the JSON path.
- Coreference: a CR-only CoNLL file scored 0 with warnings that did not name the cause: a
  warning names it (``--strict-input``: exit 2); a CR in a document name broke one-line
  messages: escaped; scorer.pl's mention counts and BLANC when a response repeats a span that no
  key mention has (in several chains, or twice in one chain).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from annoscore.samples import SAMPLES
from tests.conftest import Cli

GOLD = SAMPLES / "nlpsandbox/gold.json"


def _sandbox(tmp_path: Path, text: str, name: str = "pred.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _note(items: str, name: str = '"n1"') -> str:
    return (
        '[{"annotationSource": {"resourceSource": {"name": ' + name + "}}, "
        '"textDateAnnotations": [' + items + "]}]"
    )


def _one_line_error(result: Any) -> str:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("annoscore: error: "), result.stderr
    return str(lines[0])


@pytest.mark.parametrize("field", ["start", "length"])
def test_a_5000_digit_offset_is_bad_input_naming_file_and_json_path(
    cli: Cli, tmp_path: Path, field: str
) -> None:
    other = "length" if field == "start" else "start"
    item = f'{{"{field}": {"7" * 5000}, "{other}": 3, "text": "May"}}'
    pred = _sandbox(tmp_path, _note(item))
    message = _one_line_error(cli("nlpsandbox", "date", "--gold", GOLD, "--pred", pred))
    assert f"pred.json: [0].textDateAnnotations[0].{field}: a number of 5000 digits" in message


def test_a_5000_digit_number_where_nothing_is_read_is_ignored(cli: Cli, tmp_path: Path) -> None:
    item = f'{{"start": 1, "length": 3, "text": "May", "confidence": {"9" * 5000}}}'
    pred = _sandbox(tmp_path, _note(item))
    data = cli.json("nlpsandbox", "date", "--gold", GOLD, "--pred", pred)
    assert data["counts"]["instance_strict_fp"] == 1


def test_a_5000_digit_number_in_a_notes_file_is_bad_input(cli: Cli, tmp_path: Path) -> None:
    notes = _sandbox(tmp_path, f'[{{"identifier": {"1" * 5000}, "text": "x"}}]', "notes.json")
    result = cli("nlpsandbox", "date", "--gold", GOLD, "--pred", GOLD, "--notes", notes)
    assert "notes.json: [0].identifier: expected the note's identifier" in _one_line_error(result)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("[" * 100_000 + "]" * 100_000, "pred.json:1: [0]: the JSON is nested too deeply"),
        (
            '[{"annotationSource": {"resourceSource": {"name": "n"}},\n "x": '
            + "[" * 50_000
            + "]" * 50_000
            + "}]",
            "pred.json:1: [0]: the JSON is nested too deeply",
        ),
        (
            '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}",
            "pred.json:1: the file: the JSON is nested",
        ),
        (
            "[{},\n" + '{"a": ' * 60_000 + "1" + "}" * 60_000 + "]",
            "pred.json:2: [1]: the JSON is nested too deeply",
        ),
    ],
)
def test_deeply_nested_json_is_bad_input(cli: Cli, tmp_path: Path, text: str, where: str) -> None:
    pred = _sandbox(tmp_path, text)
    assert where in _one_line_error(cli("nlpsandbox", "all", "--gold", GOLD, "--pred", pred))


def test_deeply_nested_notes_file_is_bad_input(cli: Cli, tmp_path: Path) -> None:
    notes = _sandbox(tmp_path, "[" * 100_000 + "]" * 100_000, "notes.json")
    result = cli("nlpsandbox", "all", "--gold", GOLD, "--pred", GOLD, "--notes", notes)
    assert "notes.json:1: the file: the JSON is nested too deeply" in _one_line_error(result)


def test_a_note_name_with_a_lone_surrogate_is_bad_input(cli: Cli, tmp_path: Path) -> None:
    pred = _sandbox(tmp_path, _note('{"start": 1, "length": 3, "text": "May"}', '"a/n\\ud800"'))
    message = _one_line_error(cli("nlpsandbox", "date", "--gold", GOLD, "--pred", pred))
    assert "pred.json: [0].annotationSource.resourceSource.name: not Unicode text" in message


# --- coreference ----------------------------------------------------------------------------


def _conll(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


KEY = "#begin document (d); part 000\nd 0 0 w (1)\nd 0 1 w (1)\nd 0 2 w -\n#end document\n"


def test_a_cr_only_file_names_the_cause(cli: Cli, tmp_path: Path) -> None:
    key = _conll(tmp_path, "key.conll", KEY.replace("\n", "\r"))
    result = cli("coref", key, key)
    assert result.exit_code == 0
    assert "1 line(s) of the key hold a carriage return (CR)" in result.stderr
    assert "CR-only line ends reads as one line" in result.stderr
    assert all(line.startswith("annoscore: ") for line in result.stderr.splitlines())
    strict = cli("coref", key, key, "--strict-input")
    assert "carriage return" in _one_line_error(strict)
    crlf = _conll(tmp_path, "crlf.conll", KEY.replace("\n", "\r\n"))  # CRLF: nothing to say
    assert "carriage return" not in cli("coref", crlf, crlf).stderr


def test_a_cr_in_a_document_name_is_escaped_in_messages(cli: Cli, tmp_path: Path) -> None:
    key = _conll(tmp_path, "key.conll", KEY.replace("(d)", "(d)\r(x)"))
    response = _conll(tmp_path, "response.conll", KEY.replace("(d)", "(e)\r"))
    result = cli("coref", key, response, "--per-doc")
    assert result.exit_code == 0
    assert "(e.g. (d)\\r(x); part 000)" in result.stderr
    assert "(e.g. (e)\\r; part 000)" in result.stderr
    assert all(line.startswith("annoscore: ") for line in result.stderr.splitlines())
    assert "(d)\\r(x); part 000 " in result.stdout and "\r" not in result.stdout
    text = KEY.replace("(d)", "(d)\r").replace("(1)\nd", "1)\nd")
    broken = _conll(tmp_path, "broken.conll", text)
    message = _one_line_error(cli("coref", broken, broken))
    assert "document (d)\\r; part 000: closing bracket" in message
    data = cli.json("coref", key, key, "--per-doc")  # JSON keeps the name as written
    assert list(data["documents"]) == ["(d)\r(x); part 000"]


def _repeat_counts(cli: Cli, tmp_path: Path, response_cells: list[str]) -> dict[str, Any]:
    cells = ["(1)", "(1)", "-", "-"]
    key = "#begin document d\n" + "".join(f"d {c}\n" for c in cells) + "#end document\n"
    response = "#begin document d\n" + "".join(f"d {c}\n" for c in response_cells)
    response += "#end document\n"
    counts: dict[str, Any] = cli.json(
        "coref", _conll(tmp_path, "k.conll", key), _conll(tmp_path, "r.conll", response)
    )["counts"]
    return counts


def test_a_span_no_key_mention_has_repeated_in_several_chains(cli: Cli, tmp_path: Path) -> None:
    # response entities {0, 1, 2} {2, 3} {2}: span 2 is no key mention, listed in three entities
    counts = _repeat_counts(cli, tmp_path, ["(1)", "(1)", "(1)|(2)|(3)", "(2)"])
    assert counts["mentions_precision_den"] == 4  # 0, 1, 2, 3: span 2 is one mention
    assert counts["bcub_precision_den"] == 6  # a listing is a mention for B3 (MUC, CEAF, LEA)
    assert counts["muc_precision_den"] == 2 + 1 + 0
    # coreference links, a set: {0,1} {0,2} {1,2} {2,3}; non-coreference links, pairs across
    # entities as a set: {0,2} {0,3} {1,2} {1,3} {2,2} {2,3}
    assert counts["blanc_coref_precision_den"] == 4
    assert counts["blanc_noncoref_precision_den"] == 6
    assert counts["blanc_coref_precision_num"] == 1  # {0,1}, the key's link


def test_a_span_no_key_mention_has_twice_in_one_chain(cli: Cli, tmp_path: Path) -> None:
    # response entities {0, 1} {2, 2, 3}: span 2 is listed twice in one entity
    counts = _repeat_counts(cli, tmp_path, ["(1)", "(1)", "(2)|(2)", "(2)"])
    assert counts["mentions_precision_den"] == 4
    assert counts["bcub_precision_den"] == 5 and counts["muc_precision_den"] == 1 + 2
    # coreference links {0,1} {2,2} {2,3}; non-coreference {0,2} {0,3} {1,2} {1,3}
    assert counts["blanc_coref_precision_den"] == 3
    assert counts["blanc_noncoref_precision_den"] == 4
