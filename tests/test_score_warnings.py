"""Warnings add up across the parts of a corpus and read as one line (the rest is in the
doctests of :mod:`annoscore.score_warnings`)."""

from __future__ import annotations

from annoscore.score_warnings import MESSAGE_LENGTH, ScoreWarning, merge_warnings


def test_warnings_with_one_code_add_up_across_parts() -> None:
    part = ScoreWarning("x", "{count} lines skipped", 2, ("a:1", "a:2"))
    other = ScoreWarning("x", "{count} lines skipped", 3, ("b:7",))
    (merged,) = merge_warnings([part, other])
    assert merged.count == 5 and merged.examples == ("a:1", "a:2", "b:7")


def test_a_warning_reads_as_one_capped_line_whatever_it_quotes() -> None:
    quoted = ScoreWarning("x", "bad line " + "q\n" * 500, 1, ("a\rb.ann:3",))
    text = str(quoted)
    assert "\n" not in text and "\r" not in text
    assert text.startswith("bad line q\\nq") and text.endswith("(e.g. a\\rb.ann:3)")
    message = text.removesuffix(" (e.g. a\\rb.ann:3)")
    assert message.endswith("...")  # cut, then escaped: each "\\n" stands for one character
    assert len(message) - message.count("\\n") == MESSAGE_LENGTH
