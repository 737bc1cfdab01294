"""Pairing gold documents with system documents by id: the one function every task uses.

Official scorers differ on documents present on one side only, so each side has its own rule:

- ``"empty"``: score the document against an empty other side (everything in a gold-only
  document is missed, everything in a system-only document is spurious);
- ``"ignore"``: leave it out of the score.

Each task's preset says which (``missing_docs``, ``extra_docs`` and the like).  Either way the
unpaired documents are listed, so the caller warns with their number.  Inside paired documents,
rows (document, ...) are matched by the exact keys of :func:`row_keys`.  Offsets of two paired
documents are compared as given: when both sides carry a text and the two differ where an
offset could point (:func:`texts_differ_at`), :func:`differing_texts` names them for a warning.

>>> p = pair_documents(["a", "b"], ["b", "c"], gold_only="empty", system_only="ignore")
>>> p.scored, p.gold_only, p.system_only
(('a', 'b'), ('a',), ('c',))
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

from annoscore.model import first_difference
from annoscore.records import Record, set_fields
from annoscore.score_warnings import EXAMPLES_SHOWN, ScoreWarning

Rule = Literal["empty", "ignore"]


class MissingDocs(Enum):
    """The ``--missing-docs`` choice: what a document that one side lacks counts for.

    ``count`` and ``zero`` both score it against an empty other side (``zero`` is CodiEsp's name:
    AP 0); ``ignore`` leaves it out.  Each command offers the members that make sense for it.
    """

    ignore = "ignore"
    count = "count"
    zero = "zero"

    @property
    def rule(self) -> Rule:
        return "ignore" if self is MissingDocs.ignore else "empty"


class DocumentPairing(Record):
    """Which document ids to score, and which were found on one side only.

    ``scored``: gold ids in gold order, then the system-only ids that are scored, in system
    order (``sort=True`` sorts all three tuples).
    """

    __slots__ = (  # noqa: RUF023 (the fields' order)
        "scored",
        "gold_only",
        "system_only",
        "gold_rule",
        "system_rule",
    )
    scored: tuple[str, ...]
    gold_only: tuple[str, ...]
    system_only: tuple[str, ...]
    gold_rule: Rule
    system_rule: Rule

    def __init__(
        self,
        scored: tuple[str, ...],
        gold_only: tuple[str, ...],
        system_only: tuple[str, ...],
        gold_rule: Rule,
        system_rule: Rule,
    ) -> None:
        set_fields(
            self,
            scored=scored,
            gold_only=gold_only,
            system_only=system_only,
            gold_rule=gold_rule,
            system_rule=system_rule,
        )

    def warnings(
        self,
        gold: str = "gold document(s) have no system file",
        system: str = "system document(s) have no gold file",
    ) -> list[ScoreWarning]:
        """Warnings naming how many documents were unpaired and what was done with them;
        ``gold`` and ``system`` say what an unpaired document of each side lacks."""
        effect = {
            "ignore": "are left out of the score",
            "empty": "are scored as if the other side were empty",
        }
        out = []
        for code, what, ids, rule in (
            ("documents.gold-only", gold, self.gold_only, self.gold_rule),
            ("documents.system-only", system, self.system_only, self.system_rule),
        ):
            if ids:
                out.append(
                    ScoreWarning(code, f"{{count}} {what} and {effect[rule]}", len(ids), ids[:5])
                )
        return out


def pair_documents(
    gold_ids: Iterable[str],
    system_ids: Iterable[str],
    *,
    gold_only: Rule = "empty",
    system_only: Rule = "empty",
    sort: bool = False,
) -> DocumentPairing:
    """Pair documents by id: every id on both sides, plus the one-sided ids a rule keeps."""
    gold = list(dict.fromkeys(gold_ids))
    system = list(dict.fromkeys(system_ids))
    gold_set, system_set = set(gold), set(system)
    only_gold = [d for d in gold if d not in system_set]
    only_system = [d for d in system if d not in gold_set]
    scored = [d for d in gold if gold_only == "empty" or d in system_set]
    if system_only == "empty":
        scored += only_system
    if sort:
        scored, only_gold, only_system = sorted(scored), sorted(only_gold), sorted(only_system)
    return DocumentPairing(
        tuple(scored), tuple(only_gold), tuple(only_system), gold_only, system_only
    )


D = TypeVar("D")


def paired_files(
    gold: Path, system: Path, gold_docs: Mapping[str, D], system_docs: Mapping[str, D]
) -> tuple[dict[str, D], dict[str, D]]:
    """The official rule for two files (not folders): they are one document, whatever their
    names, so the system document takes the gold document's id.  Folders pair by id as read."""
    if not (gold.is_file() and system.is_file()) or len(gold_docs) != 1 or len(system_docs) != 1:
        return dict(gold_docs), dict(system_docs)
    (doc_id, gold_doc), (system_doc,) = next(iter(gold_docs.items())), system_docs.values()
    if hasattr(system_doc, "id"):
        system_doc = replace(system_doc, id=doc_id)  # type: ignore[type-var]
    return {doc_id: gold_doc}, {doc_id: system_doc}


class TextDocument(Protocol):
    """A document that may carry its text (``None``: it has none) and names its file."""

    @property
    def text(self) -> str | None: ...

    @property
    def path(self) -> str: ...


TEXT_DIFFERS = (
    "{count} paired document(s) carry a different text on each side (other than a whitespace "
    "character for another or trailing whitespace): an offset may not point at the same "
    "characters on both sides; the offsets are compared as given"
)
"""The message of the ``spans.text-differs`` warning (:func:`text_warnings`)."""


def texts_differ_at(gold: str, system: str) -> int | None:
    """The first offset at which two texts of one document stop agreeing, ``None`` when every
    offset points at the same character on both sides or at whitespace on both: a whitespace
    character for another one (a line end for a space) and whitespace after the last other
    character of both do not make texts differ; anything else does (another character, two
    spaces for one, a text that goes on).  Equal texts (what correct inputs give, brat .txt
    against brat .txt) cost one comparison of two strings in memory, never a hash.

    A CoNLL BIO document's text is rebuilt from its tokens (joined by one space, sentences by a
    line end: :func:`~annoscore.formats.annotations.bio_documents`), so it can equal a .txt
    only by chance.  Compared this way, a .txt that breaks its lines where the rebuilt text has
    a space (or ends with a line end) agrees with it, offsets and scores being the same on
    both texts; one with two spaces, or a line end and an indent, where the rebuilt text has
    one space does not: every later offset is shifted, the user's mistake shows.

    >>> texts_differ_at("John Smith\\nlives", "John Smith lives\\n") is None
    True
    >>> texts_differ_at("John  Smith", "John Smith"), texts_differ_at("abc", "abd")
    (5, 2)
    >>> texts_differ_at("abc", "abc def"), texts_differ_at(" abc", "abc ")
    (3, 0)
    """
    if gold == system:
        return None
    gold, system = gold.rstrip(), system.rstrip()
    if gold != system:  # every whitespace character as one space (str.isspace's, as re's \s)
        return first_difference(re.sub(r"\s", " ", gold), re.sub(r"\s", " ", system))
    return None


def differing_texts(
    pairs: Iterable[tuple[str, TextDocument, TextDocument]],
) -> list[tuple[str, str]]:
    """The paired documents (``pairs``: id, gold document, system document) whose texts both
    exist and differ (:func:`texts_differ_at`), sorted by id, each with the example a warning
    shows: the document, the offset, and each side's file by name (a brat ``.ann``'s ``.txt``)
    with its text from there.  A document without a text on either side is not compared.  The caller
    may pass only the pairs whose texts are not equal (equal texts never differ).

    >>> from annoscore.model import AnnotatedDocument as D
    >>> differing_texts([("d", D("d", (), "a  b", path="g/d.ann"), D("d", (), "a b"))])
    [('d', "document d, offset 2: gold d.txt ' b', system 'b'")]
    >>> differing_texts([("d", D("d", (), "a b"), D("d", (), None))])
    []
    """
    found: list[tuple[str, int, TextDocument, TextDocument]] = []
    for doc_id, gold, system in pairs:
        gold_text, system_text = gold.text, system.text
        if gold_text is not None and system_text is not None:
            at = texts_differ_at(gold_text, system_text)
            if at is not None:
                found.append((doc_id, at, gold, system))
    found.sort(key=lambda item: item[0])
    return [
        (
            doc_id,
            f"document {doc_id}, offset {at}: "
            + ", ".join(
                f"{side}{_text_file(d.path)} {(d.text or '')[at : at + 12]!r}"
                for side, d in (("gold", gold), ("system", system))
            ),
        )
        for doc_id, at, gold, system in found
    ]


def _text_file(path: str) -> str:
    """The name of the file a document's text was read from, after a space (a brat ``.ann``'s
    ``.txt``; nothing for a document in memory): its name only, the short form warnings quote
    (:func:`~annoscore.formats.brat_model.place`; the examples are capped in length)."""
    if not path:
        return ""
    return " " + os.path.basename(path[:-4] + ".txt" if path.endswith(".ann") else path)


def text_warnings(
    differing: Sequence[tuple[str, str]], count: int | None = None
) -> list[ScoreWarning]:
    """The ``spans.text-differs`` warning of :func:`differing_texts`' documents (none when
    there are none): their number (``count``, when ``differing`` holds only the first few) and
    the first few examples, in order of their ids.  It warns about the data, not about input
    tolerated to reproduce an official script, so ``--strict-input`` does not refuse it (as
    ``brat.text-mismatch``)."""
    if not differing:
        return []
    examples = tuple(example for _, example in differing[:EXAMPLES_SHOWN])
    total = len(differing) if count is None else count
    return [ScoreWarning("spans.text-differs", TEXT_DIFFERS, total, examples)]


def row_keys(*sets: tuple[Any, ...]) -> tuple[list[Any], Callable[[Any], Any]]:
    """One integer per row of each set of columns (every set has the same number of columns),
    equal exactly when the rows are, across the sets: mixed-radix numbers (column 0 most
    significant) when they fit in 62 bits, else ranks of the distinct rows (``np.unique``: a
    sort of the rows, not a hash); and the function that maps keys back to column 0.

    >>> import numpy as np
    >>> (a, b), first = row_keys((np.array([0, 1]), np.array([5, 5])),
    ...                          (np.array([1]), np.array([5])))
    >>> a.tolist(), b.tolist(), first(b).tolist()
    ([0, 1], [1], [1])
    """
    import numpy as np

    columns = [np.concatenate(parts) for parts in zip(*sets, strict=True)]
    bounds = np.cumsum([len(s[0]) for s in sets])[:-1]
    if not len(columns[0]):
        return np.split(np.zeros(0, dtype=np.int64), bounds), lambda k: k
    lows = [int(c.min()) for c in columns]
    spans = [int(c.max()) - low + 1 for c, low in zip(columns, lows, strict=True)]
    product = math.prod(spans)
    if product < 2**62:
        keys = np.zeros(len(columns[0]), dtype=np.int64)
        for column, low, span in zip(columns, lows, spans, strict=True):
            keys = keys * span + (column - low)
        weight, base = product // spans[0], lows[0]
        return np.split(keys, bounds), lambda k: k // weight + base
    unique, ranks = np.unique(np.stack(columns, axis=1), axis=0, return_inverse=True)
    return np.split(ranks.ravel().astype(np.int64), bounds), lambda k: unique[k, 0]
