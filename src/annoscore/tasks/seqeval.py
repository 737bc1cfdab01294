"""seqeval 1.2.2's entity scores of tag sequences: default mode or strict mode per scheme.

Inputs, as for ``annoscore conlleval``: one file with the gold and the predicted tags in its last
two fields (``gold_col``, ``pred_col`` pick others), or two files (gold, system) with one token
per line and the tag in the last field, or two JSON files each holding a list of sentences, each
a list of tags (seqeval's own shape).  Fields are split on whitespace; sentences end at blank
lines; ``-DOCSTART-`` lines are not tokens (seqeval users drop them) and start a document
(``--per-doc``): two files pair their documents by id, and two files without ``-DOCSTART-``
lines are one document each, paired whatever the files' names and named after the gold file.

Scores: ``precision``, ``recall``, ``f1`` (micro, as seqeval's ``micro avg``; undefined is
``None``) and ``accuracy`` (tags equal, seqeval's ``accuracy_score``); the JSON carries
seqeval's ``classification_report(output_dict=True)`` under ``seqeval`` (per type, ``micro
avg``, ``macro avg``, ``weighted avg``; support = the gold count; undefined = 0.0 as seqeval).

``mode`` strict reads each sentence with the scheme's patterns
(:mod:`annoscore.metrics.seqeval`); a tag whose prefix the scheme does not allow is an error
naming file and line (seqeval raises); a non-O token that ends in no entity (an ill-formed
sequence) is counted and named in a warning (seqeval drops it silently).  Without ``scheme``,
strict mode detects it as seqeval does, from the gold tags: IOB2, IOE2, IOBES or BILOU only (never
IOB1: such data needs ``--scheme iob1``).
"""

from __future__ import annotations

import functools
import json
import sys
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from annoscore.align.span_sides import tag_task_sides
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.bio_tags import Entity
from annoscore.formats.conll_bio import pair_tag_files, read_tags
from annoscore.formats.files import bom_warning, first_line, read_text, saw, url_of
from annoscore.formats.tag_codes import TagCodes, read_tag_codes, tag_codes, tag_codes_of
from annoscore.metrics.seqeval import (
    Mode,
    Scheme,
    StrictReader,
    classification_report,
    default_mode_item_counts,
    entity_counts,
)
from annoscore.options import TaskOptions, constant, option
from annoscore.result import Result, type_counts
from annoscore.score_warnings import EXAMPLES_SHOWN, ScoreWarning
from annoscore.tasks.registry import get

if TYPE_CHECKING:
    from annoscore.align.span_sides import TagEntities
    from annoscore.arrays import BoolArray, IntArray
    from annoscore.scale import Splitter


@dataclass(frozen=True, slots=True)
class SeqevalOptions(TaskOptions):
    """The options of ``annoscore seqeval`` (seqeval's defaults)."""

    mode: Mode = option(
        Mode.default,
        "default: seqeval's get_entities (conlleval-like, IOBES understood); strict: the "
        "scheme's patterns only.",
        flags=("--mode",),
    )
    scheme: Scheme | None = option(
        None,
        "The tagging scheme of strict mode (default: detected as seqeval detects it: IOB2, "
        "IOE2, IOBES or BILOU, never IOB1).",
        flags=("--scheme",),
    )
    gold_col: int = option(
        -2,
        "The gold tag's field in a one-file input (negative: from the end).",
        flags=("--gold-col",),
        moves=False,
    )
    pred_col: int = option(
        -1,
        "The predicted tag's field in a one-file input (negative: from the end).",
        flags=("--pred-col",),
        moves=False,
    )
    reference: str = constant("seqeval-1.2.2", "The library reproduced.")


class _Tokens:
    """Both sides' tags as codes over a sequence of items: tokens, and at ``separators``
    (ascending) items that are not tokens and end sentences (where seqeval joins sentences with
    an ``O``; their codes are not read).  ``tags[gold[i]]``, ``tags[guess[i]]``: item ``i``'s
    tags (``tags`` distinct); ``item_doc[i]`` its document, an index into ``names`` (``None``:
    one document); ``start``: where seqeval's joined sequence begins (a file's blank lines
    before its first token are no sentence; in memory an empty sentence is an ``O``);
    ``lines``: whether item ``i`` is line ``i + 1`` of ``path`` (else sentences given as
    lists, each followed by a separator, named by number).  ``path`` is the gold tags' file,
    ``guess_path`` the predicted tags' (the same file for one file of both), where item ``i``
    is line ``guess_lines[i]`` (``None``: numbered as in ``path``): a problem of the predicted
    tags names that file and line."""

    __slots__ = (
        "boms",
        "gold",
        "guess",
        "guess_lines",
        "guess_path",
        "item_doc",
        "lines",
        "names",
        "path",
        "separators",
        "start",
        "tags",
    )

    def __init__(  # a plain class: a dataclass costs the command's start-up its code generation
        self,
        tags: list[str],
        gold: IntArray,
        guess: IntArray,
        separators: IntArray,
        item_doc: IntArray | None,
        names: list[str],
        path: str,
        start: int = 0,
        lines: bool = False,
        boms: tuple[str, ...] = (),
        guess_path: str | None = None,
        guess_lines: Sequence[int] | None = None,
    ) -> None:
        self.tags = tags
        self.gold = gold
        self.guess = guess
        self.separators = separators
        self.item_doc = item_doc
        self.names = names
        self.path = path
        self.start = start
        self.lines = lines
        self.boms = boms
        self.guess_path = path if guess_path is None else guess_path
        self.guess_lines = guess_lines

    def where(self, t: int, predicted: bool = False) -> str:
        """Item ``t``'s place in the gold file (``predicted``: the predicted tags' file), as a
        user finds it: ``path:line``, or sentence and token."""
        path = self.guess_path if predicted else self.path
        if self.lines:
            return f"{path}:{self._line(t, predicted)}"
        k, first = self._sentence_of(t)
        return f"{path}: sentence {k + 1} token {t - first + 1}"

    def error(self, t: int, message: str, predicted: bool = False) -> InputError:
        """An error about item ``t`` of the gold file (``predicted``: of the predicted tags'
        file), naming the file and line (or sentence and token)."""
        path = self.guess_path if predicted else self.path
        if self.lines:
            return InputError(message, path, self._line(t, predicted))
        k, first = self._sentence_of(t)
        return InputError(f"{message} (sentence {k + 1} token {t - first + 1})", path)

    def _line(self, t: int, predicted: bool) -> int:
        """Item ``t``'s line in its file (a chunk's lines numbered as in the whole file:
        annoscore.scale)."""
        if predicted and self.guess_lines is not None:
            return self.guess_lines[t]
        return t + first_line(self.guess_path if predicted else self.path)

    def _sentence_of(self, t: int) -> tuple[int, int]:
        """The sentence of item ``t`` (sentences given as lists) and its first item."""
        k = bisect_right(self.separators.tolist(), t)
        return k, int(self.separators[k - 1]) + 1 if k else 0

    def token(self) -> BoolArray:
        """Whether each item is a token."""
        import numpy as np

        token = np.ones(len(self.gold), dtype=bool)
        token[self.separators] = False
        return token

    def sentences(self) -> list[tuple[int, int]]:
        """Each sentence's items as (first, end): the runs of tokens between separators."""
        import numpy as np

        cuts = np.concatenate(([-1], self.separators, [len(self.gold)]))
        first, end = cuts[:-1] + 1, cuts[1:]
        filled = end > first
        return list(zip(first[filled].tolist(), end[filled].tolist(), strict=True))

    def doc_of(self, item: int) -> int:
        """The document of an item."""
        return 0 if self.item_doc is None else int(self.item_doc[item])

    def strings(self, side: IntArray) -> list[str]:
        """One side's tags as strings, item by item."""
        import numpy as np

        return np.array(self.tags, dtype=object)[side].tolist() if len(side) else []

    def present(self) -> list[str]:
        """The tags of either side's tokens."""
        import numpy as np

        token = self.token()
        both = np.concatenate((self.gold[token], self.guess[token]))
        return [self.tags[k] for k in np.flatnonzero(np.bincount(both, minlength=len(self.tags)))]

    @classmethod
    def of_sentences(
        cls,
        gold: Sequence[Sequence[str]],
        guess: Sequence[Sequence[str]],
        path: str,
        name: str,
        guess_path: str | None = None,
    ) -> _Tokens:
        import numpy as np

        lengths = np.array([len(sentence) for sentence in gold], dtype=np.int64)
        tags, (gold_codes, guess_codes) = tag_codes(
            [t for s in gold for t in s], [t for s in guess for t in s]
        )
        separators = np.cumsum(lengths) + np.arange(len(lengths), dtype=np.int64)
        token = np.ones(len(gold_codes) + len(lengths), dtype=bool)
        token[separators] = False
        items = []
        for codes in (gold_codes, guess_codes):
            column = np.zeros(len(token), dtype=np.int64)
            column[token] = codes
            items.append(column)
        return cls(tags, items[0], items[1], separators, None, [name], path, guess_path=guess_path)


def _from_codes(
    tags: list[str],
    gold: IntArray,
    guess: IntArray,
    read: TagCodes,
    path: str,
    *boms: str,
    guess_path: str | None = None,
    guess_lines: Sequence[int] | None = None,
) -> _Tokens:
    """The tokens of a tag file (``gold``, ``guess``: the codes of its items, item ``i`` its
    line ``i + 1``): every item but the boundaries and the ``-DOCSTART-`` lines (which end
    sentences too); ``boms``: the files read that began with a byte-order mark;
    ``guess_path``, ``guess_lines``: the predicted tags' file and lines (:class:`_Tokens`)."""
    import numpy as np

    separator = read.boundary | read.docstart
    separators = np.flatnonzero(separator)
    start = int(np.argmax(~separator)) if len(separators) < len(read) else 0
    item_doc = None
    if len(read.documents) > 1:
        item_doc = np.zeros(len(read), dtype=np.int64)
        for k, document in enumerate(read.documents[1:], 1):
            item_doc[document.start] = k
        item_doc = np.maximum.accumulate(item_doc)
    names = [d.name for d in read.documents] or [Path(path).name]
    return _Tokens(
        tags,
        gold,
        guess,
        separators,
        item_doc,
        names,
        path,
        start,
        True,
        boms,
        guess_path,
        guess_lines,
    )


def _json_sentences(path: Path) -> list[list[str]]:
    try:
        data = json.loads(read_text(path))
    except json.JSONDecodeError as error:
        raise InputError(f"not JSON: {error.msg}", path, error.lineno) from None
    if not isinstance(data, list) or not all(
        isinstance(s, list) and all(isinstance(t, str) for t in s) for s in data
    ):
        raise InputError("expected a JSON list of sentences, each a list of tag strings", path)
    return data


def _check_pairs(gold: Sequence[Sequence[str]], guess: Sequence[Sequence[str]], path: str) -> None:
    if len(gold) != len(guess):
        raise InputError(
            f"{len(guess)} sentences where the gold has {len(gold)}; both sides need as many",
            path,
        )
    for k, (x, y) in enumerate(zip(gold, guess, strict=True)):
        if len(x) != len(y):
            raise InputError(
                f"sentence {k + 1} has {len(y)} tags where the gold has {len(x)}", path
            )


def _read(gold: Path, system: Path) -> _Tokens:
    if gold.suffix == ".json" or system.suffix == ".json":
        gold_sentences = _json_sentences(gold)
        guess_sentences = _json_sentences(system)
        _check_pairs(gold_sentences, guess_sentences, str(system))
        return _Tokens.of_sentences(
            gold_sentences, guess_sentences, str(gold), gold.name, str(system)
        )
    gold_columns = read_tags(gold, delimiter=None, columns=(-1,))
    system_columns = read_tags(system, delimiter=None, columns=(-1,))
    if _keeping():  # a chunk of the files (annoscore.scale): its documents, what it found
        from annoscore.scale.cut_tags import tag_chunk

        saw(gold, (d.name for d in gold_columns.documents))
        saw(system, (d.name for d in system_columns.documents))
        _keep((tag_chunk(gold, gold_columns), tag_chunk(system, system_columns)))
    system_columns = pair_tag_files(gold_columns, system_columns)
    tags, (gold_codes, system_codes) = tag_codes(gold_columns.columns[0], system_columns.columns[0])
    boms = tuple(c.path for c in (gold_columns, system_columns) if c.bom)
    read = tag_codes_of(gold_columns)
    return _from_codes(
        tags,
        gold_codes,
        system_codes,
        read,
        str(gold),
        *boms,
        guess_path=str(system),
        guess_lines=system_columns.line,  # its documents in the gold's order: its own lines
    )


def _keeping() -> bool:
    """:func:`annoscore.scale.keeping` (a chunk is scored only where it was imported: the
    command's start-up does not import it for one process)."""
    scale = sys.modules.get("annoscore.scale")
    return scale is not None and bool(scale.keeping())


def _keep(item: object) -> None:
    """:func:`annoscore.scale.keep` (nothing outside a chunk)."""
    if _keeping():
        sys.modules["annoscore.scale"].keep(item)


def _sets(*names: str) -> frozenset[frozenset[str]]:
    return frozenset(frozenset(name) for name in names)


_DETECTED = (
    (Scheme.iob2, _sets("B", "IB", "OB", "IOB")),
    (Scheme.ioe2, _sets("E", "IE", "OE", "IOE")),
    (Scheme.iobes, _sets("S", "BE", "IBE", "OBE", "BES", "IOBE", "IBES", "OBES", "IOBES")),
    (Scheme.bilou, _sets("U", "BL", "IBL", "OBL", "BLU", "IOBL", "IBLU", "OBLU", "IOBLU")),
)
"""The gold prefix sets seqeval 1.2.2's ``auto_detect`` accepts (probed: every subset of
IOBESLU), and the scheme it picks; any other set (``{I, O}``: IOB1 data; ``{O, S}``) it refuses."""


class GoldPrefixes:
    """The first characters of a chunk's gold tags (what the scheme is detected from).  A plain
    class, as :class:`_Tokens`: a dataclass's generated code costs every command's start-up."""

    __slots__ = ("prefixes",)

    def __init__(self, prefixes: frozenset[str]) -> None:
        self.prefixes = prefixes


def detected(prefixes: frozenset[str]) -> Scheme | None:
    """The scheme seqeval detects from these gold prefixes (``None``: none)."""
    return next((scheme for scheme, accepted in _DETECTED if prefixes in accepted), None)


def detect_scheme(sentences: Sequence[Sequence[str]], path: str) -> Scheme:
    """The scheme seqeval's auto-detection picks from these tags' prefixes: IOB2, IOE2, IOBES
    or BILOU; an :class:`InputError` when none fits (IOB1 is never detected).

    >>> detect_scheme([["B-X", "I-X", "O"]], "x")
    <Scheme.iob2: 'iob2'>
    """
    prefixes = frozenset(tag[:1] for sentence in sentences for tag in sentence)
    _keep(GoldPrefixes(prefixes))  # a chunk (annoscore.scale): the pooling detects from all
    scheme = detected(prefixes)
    if scheme is not None:
        return scheme
    shown = ", ".join(sorted(p or "''" for p in prefixes))
    raise InputError(
        f"cannot detect the tagging scheme from the gold prefixes ({shown}): seqeval detects "
        "IOB2, IOE2, IOBES and BILOU only (never IOB1); give --scheme",
        path,
    )


def _hits(tokens: _Tokens, chosen: set[str]) -> list[tuple[bool, IntArray, IntArray]]:
    """Each side's tokens (the gold side's first) whose tag is in ``chosen``: whether the side
    is the predicted one, its codes, and those tokens' items in order."""
    import numpy as np

    codes = [k for k, tag in enumerate(tokens.tags) if tag in chosen]
    token = tokens.token()
    return [
        (predicted, side, np.flatnonzero(np.isin(side, codes) & token))
        for predicted, side in ((False, tokens.gold), (True, tokens.guess))
    ]


def _strict_counts(tokens: _Tokens, scheme: Scheme, warnings: list[ScoreWarning]) -> list[Counts]:
    import numpy as np

    reader = StrictReader(scheme)
    for predicted, codes, hit in _hits(tokens, {tag for tag in tokens.tags if reader.invalid(tag)}):
        if len(hit):
            t = int(hit[0])
            raise tokens.error(
                t,
                f"{'predicted' if predicted else 'gold'} tag {tokens.tags[codes[t]]!r}: its "
                f"prefix is not one the {scheme.value.upper()} scheme allows (strict mode)",
                predicted,
            )
    token = tokens.token()
    gold, guess = tokens.strings(tokens.gold), tokens.strings(tokens.guess)
    n_docs = len(tokens.names)
    found: list[list[set[Entity]]] = []
    for name, side in (("gold", gold), ("predicted", guess)):
        entities: list[set[Entity]] = [set() for _ in range(n_docs)]
        ill: list[str] = []
        count = 0
        for first, end in tokens.sentences():
            got, loose = reader.entities(side[first:end], first)
            entities[tokens.doc_of(first)].update(got)
            if loose:
                count += len(loose)
                if len(ill) < EXAMPLES_SHOWN:
                    ill.append(tokens.where(first + loose[0], predicted=name == "predicted"))
        found.append(entities)
        if count:
            hint = (
                " (IOB1 starts no entity at a B after O: IOB2 data read as IOB1 loses "
                "each entity's first token)"
                if scheme is Scheme.iob1
                else ""
            )
            warnings.append(
                ScoreWarning(
                    f"seqeval.ill-formed-{name}",
                    "{count} non-O " + name + " tokens belong to no entity of strict "
                    f"{scheme.value.upper()} (ill-formed sequences; seqeval drops them "
                    f"silently){hint}",
                    count,
                    tuple(ill),
                )
            )
    same = token & (tokens.gold == tokens.guess)  # one code per distinct tag
    if tokens.item_doc is None:
        tokens_per_doc = [int(np.count_nonzero(token))]
        right = [int(np.count_nonzero(same))]
    else:
        tokens_per_doc = np.bincount(tokens.item_doc[token], minlength=n_docs).tolist()
        right = np.bincount(tokens.item_doc[same], minlength=n_docs).tolist()
    return [
        Counts(
            tokens=tokens_per_doc[d],
            correct_tokens=right[d],
            **entity_counts(found[0][d], found[1][d]),
        )
        for d in range(n_docs)
    ]


def _count(tokens: _Tokens, options: SeqevalOptions) -> Result:
    present = tokens.present()
    if "" in present:
        predicted, _, hit = next(found for found in _hits(tokens, {""}) if len(found[2]))
        raise tokens.error(int(hit[0]), "an empty tag", predicted)
    warnings: list[ScoreWarning] = [bom_warning(list(tokens.boms))] if tokens.boms else []
    if options.mode is Mode.default:
        per_doc = default_mode_item_counts(
            tokens.tags,
            tokens.gold,
            tokens.guess,
            tokens.separators,
            tokens.item_doc,
            len(tokens.names),
            tokens.start,
        )
        bare = {t for t in present if "-" not in t and t != "O"}
        if bare:
            sides = [  # each side's first tokens (in its file) and tag
                BareTags(
                    len(hit),
                    [tokens.where(t, predicted) for t in hit[:EXAMPLES_SHOWN].tolist()],
                    tokens.tags[side[hit[0]]] if len(hit) else "",
                )
                for predicted, side, hit in _hits(tokens, bare)
            ]
            _keep(tuple(sides))  # a chunk (annoscore.scale): what the pooling needs
            warnings.append(bare_warning(*sides))
    else:
        gold = tokens.strings(tokens.gold)
        sentences = [gold[a:b] for a, b in tokens.sentences()]
        scheme = options.scheme or detect_scheme(sentences, tokens.path)  # the gold tags'
        per_doc = _strict_counts(tokens, scheme, warnings)
    result = get("seqeval").result(
        options, dict(zip(tokens.names, per_doc, strict=True)), warnings=warnings
    )
    return with_report(result)


def with_report(result: Result, *_: object) -> Result:
    """``result`` with seqeval's report of its corpus counts (its ``extra``)."""
    per_type = {
        kind: (int(c["tp"]), int(c["fp"]), int(c["fn"]))
        for kind, c in type_counts(result.matrix.total()).items()
    }
    return result.with_extra(seqeval=classification_report(per_type))


class BareTags:
    """One side's tokens whose tag is a bare label: how many, the places of the first
    :data:`EXAMPLES_SHOWN` and the first one's tag (a plain class: see :class:`GoldPrefixes`)."""

    __slots__ = ("count", "first", "tag")

    def __init__(self, count: int, first: list[str], tag: str) -> None:
        self.count = count
        self.first = first
        self.tag = tag


def bare_warning(gold: BareTags, guess: BareTags) -> ScoreWarning:
    """The warning for bare labels: the first examples the gold side's first, the first
    tag shown the gold side's when it has one."""
    shown = gold.tag if gold.count else guess.tag
    examples = (gold.first + guess.first)[:EXAMPLES_SHOWN]
    return ScoreWarning(
        "seqeval.bare-labels",
        "{count} tags have no prefix and hyphen: seqeval reads a bare label "
        f"character by character ({shown!r}: prefix {shown[:1]!r}, type "
        f"{shown[1:] or '_'!r}), so identical bare tags score 1.0 where conlleval "
        "finds no phrase",
        gold.count + guess.count,
        tuple(dict.fromkeys(examples)),
    )


def _tag_files(gold: Path, system: Path, options: SeqevalOptions) -> Splitter | None:
    """Two tag files are cut before documents (:mod:`annoscore.scale.cut_tags`), JSON not."""
    from annoscore.scale.cut_tags import split_tag_files

    return None if ".json" in (gold.suffix, system.suffix) else split_tag_files


def score_seqeval(gold: Path, system: Path, options: SeqevalOptions = SeqevalOptions()) -> Result:
    """seqeval's entity scores of a system tag file against a gold tag file (one token per line
    with its tag last, the same tokens line for line; or JSON lists of tag lists).

    Counts: ``tp`` (entities equal in type, start and end), ``fp``, ``fn``, per type, and
    ``tokens``, ``correct_tokens``.  P = tp / (tp + fp), R = tp / (tp + fn), F1 their harmonic
    mean (micro); accuracy = correct_tokens / tokens.  Undefined: a zero denominator (``None``;
    seqeval's report shows 0.0).  Settings that move a number: ``mode`` (default), ``scheme``
    (detected, strict mode only).

    >>> from annoscore.samples import SAMPLES
    >>> r = score_seqeval(SAMPLES / "bio/gold.conll", SAMPLES / "bio/system.conll")
    >>> r.counts["tp"], r.counts["fp"], r.counts["fn"], round(r.score, 4)
    (5, 2, 1, 0.7692)
    """
    if "annoscore.scale" in sys.modules or url_of(gold) or url_of(system) or _large(gold, system):
        return _cut()(gold, system, options)
    return _whole(gold, system, options)  # no run set: annoscore.scale not imported (20 ms)


_LARGE_BYTES = 16 << 20
"""Two tag files of this many bytes together or more are scored through :mod:`annoscore.scale`
even with one job, chunk by chunk (bounded memory: the 63 MB of two files of 200,000 sentences
took 1.6 GB read whole): :data:`annoscore.scale.cut_lines.MIN_LINE_BYTES`, the size from
which it cuts, kept here so that smaller files do not import it (a test holds them equal)."""


def _large(*paths: Path) -> bool:
    """Whether the files (two, or one holding both sides) are :data:`_LARGE_BYTES` or more
    together (a file that cannot be read is not: the reader says why)."""
    try:
        return sum(Path(path).stat().st_size for path in paths) >= _LARGE_BYTES
    except (OSError, ValueError):
        return False


def _whole(gold: Path, system: Path, options: SeqevalOptions = SeqevalOptions()) -> Result:
    return _count(_read(gold, system), options)


score_seqeval.__wrapped__ = _whole  # type: ignore[attr-defined]  # a chunk's function
score_seqeval.cuts_urls = True  # type: ignore[attr-defined]


@functools.cache
def _cut() -> Callable[[Path, Path, SeqevalOptions], Result]:
    """The whole input's score function, cut into chunks as the run in force asks
    (:func:`~annoscore.scale.chunked`): two tag files before documents."""
    from annoscore.scale import chunked
    from annoscore.tasks import seqeval_chunks

    cut = chunked(
        "seqeval",
        "lines",
        order="gold-first",
        cut_when=_tag_files,
        pooled=seqeval_chunks.pooled,
        finish=with_report,
    )
    return cut(_whole)


def score_seqeval_file(
    path: Path, options: SeqevalOptions = SeqevalOptions(), text: str | None = None
) -> Result:
    """seqeval's entity scores of one file holding gold and predicted tags in the fields
    ``gold_col`` and ``pred_col`` (the last two by default); ``text``: its text already read
    (standard input), ``path`` then only names it in warnings and errors.  A file of
    :data:`_LARGE_BYTES` or more, or any file with a run of several jobs in force, is cut before
    documents as two files are (:func:`_one_file_cut`)."""
    if text is None and ("annoscore.scale" in sys.modules or url_of(path) or _large(path)):
        return _one_file_cut()(path, path, options)
    return _one_file(path, path, options, text)


def _one_file(path: Path, same: Path, options: SeqevalOptions, text: str | None = None) -> Result:
    """:func:`score_seqeval_file` of ``path`` (``same``: ``path`` again, both sides' file).  A
    chunk of it (:mod:`annoscore.scale`) is read by the checked reader, which reads only the
    chunk's range and numbers and names its lines and documents as in the whole file (the fast
    scan reads no file with ``-DOCSTART-`` lines, the only files cut), and keeps what the
    pooling of the chunks' warnings needs (:mod:`annoscore.tasks.seqeval_chunks`)."""
    columns = (options.gold_col, options.pred_col)
    if _keeping():
        from annoscore.scale.cut_tags import tag_chunk

        checked = read_tags(path, delimiter=None, columns=columns)
        saw(path, (d.name for d in checked.documents))
        chunk = tag_chunk(path, checked)
        _keep((chunk, chunk))
        read = tag_codes_of(checked)
    else:
        read = read_tag_codes(path, columns=columns, text=text)
    boms = (read.path,) if read.bom else ()
    data = _from_codes(read.tags, read.codes[0], read.codes[1], read, str(path), *boms)
    return _count(data, options)


@functools.cache
def _one_file_cut() -> Callable[[Path, Path, SeqevalOptions], Result]:
    """:func:`_one_file` cut into chunks as the run in force asks (:func:`~annoscore.scale.
    chunked`): one tag file before documents (:func:`~annoscore.scale.cut_tags.split_tag_file`),
    each chunk read once for both sides, its warnings pooled as two files' are."""
    from annoscore.scale import chunked
    from annoscore.scale.cut_tags import split_tag_file
    from annoscore.tasks import seqeval_chunks

    cut = chunked(
        "seqeval",
        "lines",
        order="gold-first",
        cut_when=lambda *_: split_tag_file,
        pooled=seqeval_chunks.pooled,
        finish=with_report,
        scores="annoscore.tasks.seqeval:_one_file",
    )
    return cut(_one_file)


def seqeval_entities(
    file: Path | None,
    system: Path | None,
    options: SeqevalOptions = SeqevalOptions(),
    text: str | None = None,
) -> TagEntities:
    """What the HTML report shows of the inputs :func:`score_seqeval` (two files),
    :func:`score_seqeval_file` (``file`` alone) or its ``text`` (standard input) scored:
    ``(names, starts)`` (each document's name and first item), ``(tokens, boundary, lines)``
    (each item's token, ``None`` for JSON tag lists, whether it is no token, its line), both
    sides' paths and both sides' entities, each side's (first item, last item, type) as the
    mode (and scheme) finds them."""
    import numpy as np

    from annoscore.formats.conll_bio import read_tag_text
    from annoscore.formats.files import without_bom

    if system is not None:
        assert file is not None
        data = _read(file, system)
        json_input = ".json" in (file.suffix, system.suffix)
        words = None if json_input else read_tags(file, delimiter=None, columns=(-1,)).tokens
    else:
        path = file if file is not None else Path("<stdin>")
        read = read_tag_codes(path, columns=(options.gold_col, options.pred_col), text=text)
        data = _from_codes(read.tags, read.codes[0], read.codes[1], read, str(path))
        columns = (options.gold_col, options.pred_col)  # as read: -DOCSTART- names alike
        if text is None:
            words = read_tags(path, delimiter=None, columns=columns).tokens
        else:
            words = read_tag_text(
                without_bom(text)[0], str(path), delimiter=None, columns=columns
            ).tokens
    n = len(data.gold)
    boundary = ~data.token()
    if data.item_doc is None:
        starts = [0]
    else:
        starts = np.searchsorted(data.item_doc, np.arange(len(data.names))).tolist()
    sides = []
    if options.mode is Mode.default:
        from annoscore.formats.bio_tags import _default_entity_arrays, _types

        type_names = list(dict.fromkeys(_types(data.tags)))
        for column in (data.gold, data.guess):
            kind, begin, end = _default_entity_arrays(
                column, data.tags, data.start, data.separators
            )
            sides.append((begin, end - 1, [type_names[k] for k in kind.tolist()]))
    else:
        gold = data.strings(data.gold)
        scheme = options.scheme or detect_scheme(
            [gold[a:b] for a, b in data.sentences()], data.path
        )
        reader = StrictReader(scheme)
        for tags in (gold, data.strings(data.guess)):
            found: set[Entity] = set()
            for a, b in data.sentences():
                found.update(reader.entities(tags[a:b], a)[0])
            ordered = sorted(found, key=lambda e: (e[1], e[2], e[0]))
            sides.append(
                (
                    np.array([e[1] for e in ordered], dtype=np.int64),
                    np.array([e[2] - 1 for e in ordered], dtype=np.int64),
                    [e[0] for e in ordered],
                )
            )
    lines = list(range(1, n + 1))
    paths = (data.path, data.guess_path)
    return (data.names, starts), (words, boundary.tolist(), lines), paths, (sides[0], sides[1])


seqeval_sides = tag_task_sides(seqeval_entities, "seqeval")
"""The chunks of the HTML report's span analysis (the registration's ``sides``), read again as
the task read them: :func:`seqeval_entities`."""


def count_seqeval(
    gold: Sequence[Sequence[str]],
    guess: Sequence[Sequence[str]],
    options: SeqevalOptions = SeqevalOptions(),
) -> Result:
    """seqeval's entity scores of tags in memory, in seqeval's shape (a list of sentences,
    each a list of tags, on each side); one document.

    >>> r = count_seqeval([["B-PER", "I-PER", "O"]], [["B-PER", "I-PER", "B-LOC"]])
    >>> r.counts["tp"], r.counts["fp"], r.extra["seqeval"]["PER"]["support"]
    (1, 1, 1.0)
    """
    _check_pairs(gold, guess, "<memory>")
    return _count(_Tokens.of_sentences(gold, guess, "<memory>", "memory"), options)
