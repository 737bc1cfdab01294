"""Both sides' documents of a span task, paired, as a reader's entity columns
(:class:`SpanSides`): what the HTML report's span analysis (:mod:`annoscore.report.
html_span_data`) reads.  Each task builds its own (its registration's ``sides``,
:mod:`annoscore.tasks.registry`), read again as the task read its inputs: brat files
(:func:`read_sides`), the chunks of a tag file (:func:`tag_sides`, :func:`tag_report_sides`),
or the task's own documents.

A CoNLL file holds no text: a document's text is its tokens, one sentence a line, separated by
single spaces (the tokens' own order and spelling), and a chunk's offsets and length in
characters are in that text; its length in tokens is that of the tagged tokens.  The page says
so (:data:`TEXT_NOTE`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annoscore.records import Record, set_fields

if TYPE_CHECKING:
    from collections.abc import Callable

    from annoscore.formats.brat_model import AnnFile, Dialect
    from annoscore.result import Result


class SpanSides(Record):
    """Both sides' documents by id, as a reader's entity columns (the files the task scored),
    and ``note``: what the page says of these documents beside the analysis (a tag file's text
    made of its tokens, what is left out and why).  A :class:`~annoscore.records.Record`: the
    tag tasks import this module when they are imported, a dataclass would cost their
    start-up its compiled methods."""

    __slots__ = ("gold", "system", "note")  # noqa: RUF023 (the order of the fields)
    gold: Mapping[str, AnnFile]
    system: Mapping[str, AnnFile]
    note: str

    def __init__(
        self, gold: Mapping[str, AnnFile], system: Mapping[str, AnnFile], note: str = ""
    ) -> None:
        set_fields(self, gold=gold, system=system, note=note)


def read_sides(
    gold: Path,
    system: Path,
    *,
    strict_input: bool = False,
    dialect: Dialect = "brat",
    every_file: bool = False,
) -> SpanSides:
    """Both sides of a brat span task read again for the report, as the task reads them
    (``dialect``, and ``every_file`` for the system folder: PharmaCoNER's reading)."""
    from annoscore.align.documents import paired_files
    from annoscore.formats.brat import read_brat_corpus

    gold_files = read_brat_corpus(gold, strict_input=strict_input, dialect=dialect).files
    system_files = read_brat_corpus(
        system,
        strict_input=strict_input,
        dialect=dialect,
        check_text=dialect == "brat",
        every_file=every_file,
    ).files
    return SpanSides(*paired_files(gold, system, gold_files, system_files))


TEXT_NOTE = (
    "A tag file holds no text: each document's text here is its tokens, one sentence a line, "
    "separated by single spaces, and the offsets and character lengths shown are in that text."
)

NO_TOKENS_NOTE = (
    "The input holds tags without tokens: there is no text to show, the offsets shown are "
    "token positions in each document (a separator between sentences is one), and the "
    "missed and spurious strings are empty."
)


def _texts(
    tokens: Sequence[str], boundary: Sequence[bool], starts: Sequence[int]
) -> tuple[list[str], list[int], list[int], list[int]]:
    """Each document's text (``starts``: its first item), and each item's document, first and
    end character in it (a boundary item: a line end, no characters)."""
    n = len(tokens)
    texts: list[str] = []
    doc_of = [0] * n
    first = [0] * n
    end = [0] * n
    bounds = [*starts, n]
    for d in range(len(starts)):
        pieces: list[str] = []
        size = 0
        fresh = True  # at the start of a line
        for i in range(bounds[d], bounds[d + 1]):
            doc_of[i] = d
            if boundary[i]:
                if not fresh:
                    pieces.append("\n")
                    size += 1
                fresh = True
                first[i] = end[i] = size
                continue
            if not fresh:
                pieces.append(" ")
                size += 1
            first[i] = size
            pieces.append(tokens[i])
            size += len(tokens[i])
            end[i] = size
            fresh = False
        texts.append("".join(pieces))
    return texts, doc_of, first, end


TagEntities = tuple[
    tuple[Sequence[str], Sequence[int]],
    tuple[Sequence[str] | None, Sequence[bool], Sequence[int]],
    tuple[str, str],
    tuple[tuple[Any, Any, list[str]], tuple[Any, Any, list[str]]],
]
"""What a tag task read, for :func:`tag_report_sides`: the documents (names, first items), the
items (tokens, ``None`` without tokens; boundary flags; file lines), both sides' paths and both
sides' chunks, each side's (first item, last item, type)."""


def tag_sides(
    names: Sequence[str],
    starts: Sequence[int],
    tokens: Sequence[str] | None,
    boundary: Sequence[bool],
    lines: Sequence[int],
    paths: tuple[str, str],
    chunks: tuple[tuple[Any, Any, list[str]], tuple[Any, Any, list[str]]],
) -> SpanSides:
    """Both sides' chunks as documents: ``names`` and ``starts`` (each document's first item),
    the items' ``tokens``, ``boundary`` flags and file ``lines``, each side's path and chunks
    (first item, last item, type; :func:`annoscore.metrics.conlleval.conlleval_chunks`).  A
    chunk belongs to the document where it starts (cut at its last item); :data:`TEXT_NOTE` is
    shown on the page.  ``tokens`` ``None`` (tags without tokens: a
    JSON list of tag lists): no text, offsets are the items' positions in their document
    (:data:`NO_TOKENS_NOTE`)."""
    from annoscore.formats.brat_model import AnnFile

    starts = list(starts) or [0]
    if tokens is None:
        texts: list[str | None] = [None] * len(starts)
        sizes = [b - a for a, b in pairwise([*starts, len(boundary)])]
        doc_of = [d for d, size in enumerate(sizes) for _ in range(size)]
        first = [i for size in sizes for i in range(size)]
        end = [i + 1 for i in first]
        said = NO_TOKENS_NOTE
    else:
        made, doc_of, first, end = _texts(tokens, boundary, starts)
        texts = list(made)
        said = TEXT_NOTE
    bounds = [*starts[1:], len(boundary)]
    sides = []
    for path, (firsts, lasts, types) in zip(paths, chunks, strict=True):
        per_doc: list[list[tuple[int, int, str, int]]] = [[] for _ in names]
        for a, b, kind in zip(firsts.tolist(), lasts.tolist(), types, strict=True):
            d = doc_of[a]
            b = min(b, bounds[d] - 1)
            per_doc[d].append((first[a], max(first[a], end[b]), kind, lines[a]))
        files = {}
        for d, name in enumerate(names):
            rows = per_doc[d]
            text = texts[d]
            files[name] = AnnFile(
                id=name,
                path=path,
                ids=[f"C{k}" for k in range(1, len(rows) + 1)],
                types=[kind for _, _, kind, _ in rows],
                starts=[a for a, _, _, _ in rows],
                ends=[b for _, b, _, _ in rows],
                texts=["" if text is None else text[a:b] for a, b, _, _ in rows],
                lines=[line for _, _, _, line in rows],
                text=text,
            )
        sides.append(files)
    return SpanSides(sides[0], sides[1], said)


def exact_matches(sides: SpanSides) -> dict[str, int]:
    """Per type, the chunks both sides hold with the same span and type (each pair once)."""
    from collections import Counter

    found: Counter[str] = Counter()
    for name, gold in sides.gold.items():
        system = sides.system.get(name)
        if system is None:
            continue
        a = Counter(zip(gold.starts, gold.ends, gold.types, strict=True))
        b = Counter(zip(system.starts, system.ends, system.types, strict=True))
        for (_, _, kind), n in (a & b).items():
            found[kind] += n
    return dict(found)


def tag_report_sides(result: Result, entities: TagEntities, what: str) -> SpanSides:
    """The documents of a tag task's HTML report (:func:`tag_sides`) of its ``entities``
    (:data:`TagEntities`, as the task ``what`` read them).  Where the chunks both sides hold
    with one span and type are not the task's correct ones per type (conlleval on ill-formed
    tags), the page says so."""
    (names, starts), (tokens, boundary, lines), paths, chunks = entities
    sides = tag_sides(names, starts, tokens, boundary, lines, paths, chunks)
    correct = {
        kind: int(tp) for kind, unit in result.types.items() if (tp := unit.counts.get("tp"))
    }
    same = exact_matches(sides)
    if same == correct:
        return sides
    note = (
        f"Here the chunks both sides hold with one span and type ({sum(same.values())}) are "
        f"not {what}'s correct ones ({sum(correct.values())}) type by type: the categories "
        f"below are by span and type, the scores {what}'s."
    )
    return sides.replaced(note=f"{sides.note} {note}")


def tag_task_sides(entities: Callable[..., TagEntities], what: str) -> Callable[..., SpanSides]:
    """The ``sides`` of the tag task ``what`` (its registration's): ``(gold, system, options,
    result, text=None) -> SpanSides``, the chunks its reader ``entities`` finds again in
    ``gold`` (with ``system``, or alone) or ``text`` (standard input), as
    :func:`tag_report_sides` shows them."""

    def sides(
        gold: Path | None,
        system: Path | None,
        options: Any,
        result: Result,
        text: str | None = None,
    ) -> SpanSides:
        return tag_report_sides(result, entities(gold, system, options, text), what)

    return sides
