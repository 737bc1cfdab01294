"""conlleval.pl (2004-01-26) on CoNLL tag files: chunk precision, recall, F1 and token accuracy.

One file holds the token, maybe other fields, then the gold tag and the guessed tag (the last
two fields, conlleval's layout); or two files (gold, system) hold one token per line each, with
their tag in the last field.  Every quirk of the official script is the default and named
(``../shared/spec/formats.md``): ``-DOCSTART-`` is a token, ``-d`` is a regular expression split
as Perl splits, ``-o`` acts only with ``-r``, E followed by B of one type does not end a chunk,
``S-`` is no prefix it knows, the empty type's line can be printed twice, undefined prints 0.00.
A warning says where the official number surprises: CRLF line ends (types never match), bare
labels without ``-r`` (no phrase found), IOBES tags read by IOB rules, ``-DOCSTART-`` tokens.

A document (``--per-doc``) is a ``-DOCSTART-`` block, else the file; a chunk belongs to the
document where it starts.  Two files pair their documents by ``-DOCSTART-`` id; two files without
``-DOCSTART-`` lines are one document each, paired whatever the files' names and named after
the gold file.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from annoscore.align.span_sides import tag_task_sides
from annoscore.errors import InputError
from annoscore.formats.conll_bio import (
    DOCSTART,
    TagColumns,
    pair_tag_files,
    positions_of,
    read_tag_text,
    read_tags,
)
from annoscore.formats.files import bom_warning, saw
from annoscore.metrics.conlleval import conlleval_chunks, conlleval_counts, split_tag
from annoscore.options import TaskOptions, constant, option
from annoscore.result import Result
from annoscore.scale import chunked, keep, keeping
from annoscore.scale.cut_tags import split_tag_file, split_tag_files, tag_chunk
from annoscore.score_warnings import EXAMPLES_SHOWN, ScoreWarning
from annoscore.tasks.conlleval_chunks import joined_details, pooled
from annoscore.tasks.registry import get

if TYPE_CHECKING:
    from annoscore.align.span_sides import TagEntities


@dataclass(frozen=True, slots=True)
class ConllevalOptions(TaskOptions):
    """The options of ``annoscore conlleval`` (conlleval.pl's defaults)."""

    raw: bool = option(
        False,
        "Tags carry no B-/I- prefix: the outside tag is O and every other tag a one-token "
        "phrase (conlleval -r).",
        flags=("-r", "--raw"),
    )
    delimiter: str = option(
        " ",
        "The field delimiter, a regular expression split as Perl splits (conlleval -d; default "
        "one space: two spaces make an empty field; '\\t' for tabs, '\\|' for a bar).",
        flags=("-d", "--delimiter"),
    )
    outside_tag: str = option(
        "O",
        "The outside tag of raw tags (conlleval -o); it acts only with -r, as in conlleval.",
        flags=("--outside-tag",),
    )
    reference: str = constant("conlleval-2004-01-26", "The script reproduced.")


def _warnings(
    path: str,
    gold: Sequence[str],
    guess: Sequence[str],
    columns: TagColumns,
    options: ConllevalOptions,
    counts_tokens: int,
    counts_right: int,
    system: TagColumns | None = None,
) -> list[ScoreWarning]:
    """Where the official number surprises (the module doc).  Each example names the file and
    line of the tag that shows it: the gold file's (``columns``), or the system file's
    (``system``, paired row for row: its own lines) when only the guessed tag does."""
    pairs = Counter(zip(gold, guess, strict=True))
    # each kind: the (gold, guess) pairs that show it, and which of the two tags does (0, 1)
    kinds: dict[str, dict[tuple[str, str], int]] = {"crlf": {}, "bare": {}, "iobes": {}}
    for pair in pairs:
        if pair[0].endswith("\r") or pair[1].endswith("\r"):
            kinds["crlf"][pair] = 0 if pair[0].endswith("\r") else 1
        if not options.raw:
            for side, tag in enumerate(pair):
                prefix, kind = split_tag(tag)
                if "-" not in tag and tag not in ("O", ".", "[", "]"):
                    kinds["bare"][pair] = side
                    break
                if prefix in ("S", "E") and kind:
                    kinds["iobes"][pair] = side
                    break
    found: dict[str, list[tuple[int, int]]] = {}
    for name, chosen in kinds.items():
        items: list[tuple[int, int]] = []
        if chosen:
            for i, pair in enumerate(zip(gold, guess, strict=True)):
                if pair in chosen:
                    items.append((i, chosen[pair]))
                    if len(items) == EXAMPLES_SHOWN:
                        break
        found[name] = items
    crlf, bare, iobes = found["crlf"], found["bare"], found["iobes"]
    count = {name: sum(pairs[pair] for pair in chosen) for name, chosen in kinds.items()}
    docstart = positions_of(columns.tokens, DOCSTART)
    docstart_right = sum(1 for i in docstart if gold[i] == guess[i])
    out = []

    def where(items: list[tuple[int, int]]) -> tuple[str, ...]:
        return tuple(
            f"{system.path}:{system.line[i]}" if side and system else f"{path}:{columns.line[i]}"
            for i, side in items[:EXAMPLES_SHOWN]
        )

    if crlf:
        out.append(
            ScoreWarning(
                "conlleval.crlf",
                "{count} tags end with a carriage return (CRLF line ends): conlleval keeps it "
                "in the last field, so those types never match; convert the file to LF",
                count["crlf"],
                where(crlf),
                tolerated=True,
            )
        )
    if bare:
        out.append(
            ScoreWarning(
                "conlleval.bare-labels",
                "{count} tokens have a tag without a B-/I- prefix: conlleval reads it as a "
                "prefix with an empty type and finds no phrase for it; give -r if the tags "
                "carry no prefix",
                count["bare"],
                where(bare),
            )
        )
    if iobes:
        out.append(
            ScoreWarning(
                "conlleval.iobes",
                "{count} tokens have an S- or E- tag: conlleval reads them by IOB rules (S- is "
                "no prefix it knows, E- followed by B- of the same type does not end a phrase), "
                "so adjacent phrases can merge; annoscore seqeval --scheme iobes reads them as "
                "seqeval does",
                count["iobes"],
                where(iobes),
            )
        )
    tokens, right = counts_tokens - len(docstart), counts_right - docstart_right
    keep(DocstartTokens(tokens, right))  # a chunk (annoscore.scale): what its pooling needs
    if docstart:
        out.append(
            docstart_warning(len(docstart), tokens, right, where([(i, 0) for i in docstart]))
        )
    return out


@dataclass(frozen=True, slots=True)
class DocstartTokens:
    """The tokens that are not ``-DOCSTART-`` lines and how many of them are right."""

    tokens: int
    right: int


def docstart_warning(
    count: int, tokens: int, right: int, examples: tuple[str, ...]
) -> ScoreWarning:
    """The warning for ``count`` ``-DOCSTART-`` lines (``tokens`` others, ``right`` of them
    right)."""
    alternative = f"{100 * right / tokens:.2f}%" if tokens else "undefined"
    return ScoreWarning(
        "conlleval.docstart",
        "{count} -DOCSTART- lines are counted as tokens, as conlleval counts them "
        f"(accuracy without them: {alternative})",
        count,
        examples,
    )


def _result(
    columns: TagColumns,
    gold: Sequence[str],
    guess: Sequence[str],
    options: ConllevalOptions,
    *files: TagColumns,
) -> Result:
    starts = [d.start for d in columns.documents] or [0]
    names = [d.name for d in columns.documents] or [Path(columns.path).name]
    per_doc, details = conlleval_counts(
        gold, guess, columns.boundary, starts, raw=options.raw, outside=options.outside_tag
    )
    tokens = sum(int(c["tokens"]) for c in per_doc)
    right = sum(int(c["correct_tokens"]) for c in per_doc)
    system = files[1] if len(files) == 2 else None  # two files: the system's, paired
    warnings = _warnings(columns.path, gold, guess, columns, options, tokens, right, system)
    boms = [c.path for c in files if c.bom]
    if boms:
        warnings.append(bom_warning(boms))
    result = get("conlleval").result(
        options, dict(zip(names, per_doc, strict=True)), warnings=warnings, details=details
    )
    return result.shown(types=True)  # conlleval.pl's report shows every type


_CUT = functools.partial(
    chunked, "conlleval", "lines", order="gold-first", details=joined_details, pooled=pooled
)
"""How conlleval's inputs are cut (two tag files, one: before documents)."""


@_CUT(cut_when=lambda *_: split_tag_files)
def score_conlleval(
    gold: Path, system: Path, options: ConllevalOptions = ConllevalOptions()
) -> Result:
    """conlleval.pl's scores of a system tag file against a gold tag file: each holds one token
    per line (blank lines between sentences) with its tag in the last field, and the two hold
    the same tokens line for line (:func:`score_conlleval_file` reads conlleval's own one-file
    layout).

    Counts: ``tokens``, ``correct_tokens`` (same prefix and type), ``tp`` (correct chunks),
    ``fp``, ``fn``, per type.  P = tp / (tp + fp), R = tp / (tp + fn), F1 their harmonic mean,
    accuracy = correct_tokens / tokens.  Undefined: a zero denominator (``None``; the official
    layout prints 0.00).  Settings that move a number: ``raw`` (off), ``delimiter`` (one space),
    ``outside_tag`` (O, with ``raw`` only).

    >>> from annoscore.samples import SAMPLES
    >>> r = score_conlleval(SAMPLES / "bio/gold.conll", SAMPLES / "bio/system.conll")
    >>> r.counts["tp"], r.counts["fp"], r.counts["fn"], round(r.score, 4)
    (5, 2, 1, 0.7692)
    """
    gold_columns = read_tags(gold, delimiter=options.delimiter, columns=(-1,))
    system_columns = read_tags(system, delimiter=options.delimiter, columns=(-1,))
    if keeping():  # a chunk of the files (annoscore.scale): its documents, what it found
        saw(gold, (d.name for d in gold_columns.documents))
        saw(system, (d.name for d in system_columns.documents))
        keep((tag_chunk(gold, gold_columns), tag_chunk(system, system_columns)))
    system_columns = pair_tag_files(gold_columns, system_columns)
    return _result(
        gold_columns,
        gold_columns.columns[0],
        system_columns.columns[0],
        options,
        gold_columns,
        system_columns,
    )


def score_conlleval_file(path: Path, options: ConllevalOptions = ConllevalOptions()) -> Result:
    """conlleval.pl's scores of one file in its layout (the gold tag, then the guessed tag, in
    the last two fields): :func:`score_conlleval` otherwise."""
    return _one_file(path, path, options)


@_CUT(cut_when=lambda *_: split_tag_file, scores="annoscore.tasks.conlleval:_one_file")
def _one_file(path: Path, same: Path, options: ConllevalOptions) -> Result:
    """:func:`score_conlleval_file` of ``path`` (``same``: ``path`` again, both sides' file):
    cut before documents as two tag files are (:func:`~annoscore.scale.cut_tags.split_tag_file`),
    each chunk read once for both sides."""
    columns = read_tags(path, delimiter=options.delimiter, columns=(-2, -1))
    if keeping():  # a chunk of the file (annoscore.scale): its documents, what it found
        saw(path, (d.name for d in columns.documents))
        keep((tag_chunk(path, columns), tag_chunk(path, columns)))
    return _result(columns, columns.columns[0], columns.columns[1], options, columns)


def score_conlleval_text(
    text: str, name: str, options: ConllevalOptions = ConllevalOptions()
) -> Result:
    """:func:`score_conlleval_file` of text already read (standard input), named ``name``."""
    columns = read_tag_text(text, name, delimiter=options.delimiter, columns=(-2, -1))
    return _result(columns, columns.columns[0], columns.columns[1], options)


def conlleval_entities(
    file: Path | None,
    system: Path | None,
    options: ConllevalOptions = ConllevalOptions(),
    text: str | None = None,
) -> TagEntities:
    """The documents, items, both sides' paths and both sides' chunks
    (:data:`~annoscore.align.span_sides.TagEntities`) as :func:`score_conlleval` (two files),
    :func:`score_conlleval_file` (``file`` alone) or :func:`score_conlleval_text` (``text``,
    named ``<stdin>``) read them, for the HTML report's chunks."""
    if text is not None:
        columns = read_tag_text(text, "<stdin>", delimiter=options.delimiter, columns=(-2, -1))
        gold, guess = columns.columns[0], columns.columns[1]
        paths = (columns.path, columns.path)
    elif system is None:
        assert file is not None
        columns = read_tags(file, delimiter=options.delimiter, columns=(-2, -1))
        gold, guess = columns.columns[0], columns.columns[1]
        paths = (columns.path, columns.path)
    else:
        assert file is not None
        columns = read_tags(file, delimiter=options.delimiter, columns=(-1,))
        system_columns = pair_tag_files(
            columns, read_tags(system, delimiter=options.delimiter, columns=(-1,))
        )
        gold, guess = columns.columns[0], system_columns.columns[0]
        paths = (columns.path, system_columns.path)
    gold_chunks, guess_chunks = (
        conlleval_chunks(tags, columns.boundary, raw=options.raw, outside=options.outside_tag)
        for tags in (gold, guess)
    )
    names = [d.name for d in columns.documents] or [Path(columns.path).name]
    starts = [d.start for d in columns.documents] or [0]
    items = (columns.tokens, columns.boundary, columns.line)
    return (names, starts), items, paths, (gold_chunks, guess_chunks)


conlleval_sides = tag_task_sides(conlleval_entities, "conlleval")
"""The chunks of the HTML report's span analysis (the registration's ``sides``), read again as
the task read them: :func:`conlleval_entities`."""


def count_conlleval(
    gold: Sequence[Sequence[str]],
    guess: Sequence[Sequence[str]],
    options: ConllevalOptions = ConllevalOptions(),
) -> Result:
    """conlleval.pl's scores of tags in memory, as seqeval takes them: one list of tags per
    sentence on each side (a boundary between sentences); one document.

    >>> r = count_conlleval([["B-PER", "I-PER", "O"]], [["B-PER", "I-PER", "B-LOC"]])
    >>> r.counts["tp"], r.counts["fp"], r.scores["accuracy"]
    (1, 1, 0.6666666666666666)
    """
    if len(gold) != len(guess) or any(len(a) != len(b) for a, b in zip(gold, guess, strict=False)):
        raise InputError("gold and guess must hold as many sentences, and tags, as each other")
    gold_tags: list[str] = []
    guess_tags: list[str] = []
    boundary: list[bool] = []
    for a, b in zip(gold, guess, strict=True):
        if boundary:
            gold_tags.append("O")
            guess_tags.append("O")
            boundary.append(True)
        gold_tags.extend(a)
        guess_tags.extend(b)
        boundary.extend([False] * len(a))
    from annoscore.formats.conll_bio import Document

    columns = TagColumns(
        "<memory>",
        (gold_tags, guess_tags),
        boundary,
        ["_"] * len(boundary),
        list(range(1, len(boundary) + 1)),
        [Document("memory", 0, 0)],
    )
    return _result(columns, gold_tags, guess_tags, options)
