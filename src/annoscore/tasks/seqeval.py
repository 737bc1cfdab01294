"""seqeval 1.2.2's entity scores of tag sequences: default mode or strict mode per scheme.

Inputs, as for ``annoscore conlleval``: one file with the gold and the predicted tags in its last
two fields (``gold_col``, ``pred_col`` pick others), or two files (gold, system) with one token
per line and the tag in the last field, or two JSON files each holding a list of sentences, each
a list of tags (seqeval's own shape).  Fields are split on whitespace; sentences end at blank
lines; ``-DOCSTART-`` lines are not tokens (seqeval users drop them) and start a document
(``--per-doc``).

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

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.conll_bio import DOCSTART, TagColumns, pair_tag_files, read_tags
from annoscore.formats.files import read_text
from annoscore.metrics.seqeval import (
    Entity,
    Mode,
    Scheme,
    StrictReader,
    classification_report,
    default_entities,
    entity_counts,
)
from annoscore.options import TaskOptions, constant, option
from annoscore.result import EXAMPLES_SHOWN, Result, ScoreWarning, type_counts
from annoscore.tasks.registry import get


@dataclass(frozen=True, slots=True)
class SeqevalOptions(TaskOptions):
    """The options of ``annoscore seqeval`` (seqeval's defaults)."""

    mode: Mode = option(  # noqa: RUF009
        Mode.default,
        "default: seqeval's get_entities (conlleval-like, IOBES understood); strict: the "
        "scheme's patterns only.",
        flags=("--mode",),
    )
    scheme: Scheme | None = option(  # noqa: RUF009
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


@dataclass(frozen=True, slots=True)
class _Sentences:
    """Both sides as sentences: ``gold[k]``, ``guess[k]`` the tags of sentence ``k``,
    ``where[k][j]`` the place of its token ``j`` (``path:line``), ``doc[k]`` its document."""

    gold: list[list[str]]
    guess: list[list[str]]
    where: list[list[str]]
    doc: list[int]
    names: list[str]


def _from_columns(
    gold: TagColumns, gold_tags: list[str], guess_tags: list[str], path: str
) -> _Sentences:
    starts = {d.start: k for k, d in enumerate(gold.documents)}
    names = [d.name for d in gold.documents] or [Path(path).name]
    out = _Sentences([], [], [], [], names)
    doc = 0
    current: list[int] = []

    def close() -> None:
        if current:
            out.gold.append([gold_tags[i] for i in current])
            out.guess.append([guess_tags[i] for i in current])
            out.where.append([f"{path}:{gold.line[i]}" for i in current])
            out.doc.append(doc)
            current.clear()

    for i, boundary in enumerate(gold.boundary):
        if i in starts:
            close()
            doc = starts[i]
        if boundary or gold.tokens[i] == DOCSTART:
            close()
        else:
            current.append(i)
    close()
    return out


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
    for k, (a, b) in enumerate(zip(gold, guess, strict=True)):
        if len(a) != len(b):
            raise InputError(
                f"sentence {k + 1} has {len(b)} tags where the gold has {len(a)}", path
            )


def _read(gold: Path, system: Path, options: SeqevalOptions) -> _Sentences:
    if gold.suffix == ".json" or system.suffix == ".json":
        gold_sentences = _json_sentences(gold)
        guess_sentences = _json_sentences(system)
        _check_pairs(gold_sentences, guess_sentences, str(system))
        where = [
            [f"{gold}: sentence {k + 1} token {j + 1}" for j in range(len(s))]
            for k, s in enumerate(gold_sentences)
        ]
        return _Sentences(
            gold_sentences, guess_sentences, where, [0] * len(gold_sentences), [gold.name]
        )
    gold_columns = read_tags(gold, delimiter=None, columns=(-1,))
    system_columns = read_tags(system, delimiter=None, columns=(-1,))
    system_columns = pair_tag_files(gold_columns, system_columns)
    return _from_columns(
        gold_columns, gold_columns.columns[0], system_columns.columns[0], str(gold)
    )


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


def detect_scheme(sentences: Sequence[Sequence[str]], path: str) -> Scheme:
    """The scheme seqeval's auto-detection picks from these tags' prefixes: IOB2, IOE2, IOBES
    or BILOU; an :class:`InputError` when none fits (IOB1 is never detected).

    >>> detect_scheme([["B-X", "I-X", "O"]], "x")
    <Scheme.iob2: 'iob2'>
    """
    prefixes = {tag[:1] for sentence in sentences for tag in sentence}
    for scheme, accepted in _DETECTED:
        if prefixes in accepted:
            return scheme
    shown = ", ".join(sorted(p or "''" for p in prefixes))
    raise InputError(
        f"cannot detect the tagging scheme from the gold prefixes ({shown}): seqeval detects "
        "IOB2, IOE2, IOBES and BILOU only (never IOB1); give --scheme",
        path,
    )


def _count(data: _Sentences, options: SeqevalOptions, path: str) -> Result:
    n_docs = len(data.names)
    gold_entities: list[set[Entity]] = [set() for _ in range(n_docs)]
    guess_entities: list[set[Entity]] = [set() for _ in range(n_docs)]
    tokens = [0] * n_docs
    right = [0] * n_docs
    warnings: list[ScoreWarning] = []
    offsets = []
    offset = 0
    for k, sentence in enumerate(data.gold):
        offsets.append(offset)
        offset += len(sentence) + 1
        d = data.doc[k]
        tokens[d] += len(sentence)
        right[d] += sum(1 for a, b in zip(sentence, data.guess[k], strict=True) if a == b)
    for side in (data.gold, data.guess):
        for k, sentence in enumerate(side):
            for j, tag in enumerate(sentence):
                if not tag:
                    raise InputError(f"an empty tag ({data.where[k][j]})", path)
    if options.mode is Mode.default:
        sentence_of = []
        for k, sentence in enumerate(data.gold):
            sentence_of.extend([k] * (len(sentence) + 1))
        for side, target in ((data.gold, gold_entities), (data.guess, guess_entities)):
            joined = [tag for sentence in side for tag in (*sentence, "O")]
            for entity in default_entities(joined):
                target[data.doc[sentence_of[entity[1]]]].add(entity)
        bare = [
            (k, j)
            for side in (data.gold, data.guess)
            for k, sentence in enumerate(side)
            for j, tag in enumerate(sentence)
            if "-" not in tag and tag != "O"
        ]
        if bare:
            k, j = bare[0]
            pair = (data.gold[k][j], data.guess[k][j])
            shown = pair[0] if "-" not in pair[0] and pair[0] != "O" else pair[1]
            warnings.append(
                ScoreWarning(
                    "seqeval.bare-labels",
                    "{count} tags have no prefix and hyphen: seqeval reads a bare label "
                    f"character by character ({shown!r}: prefix {shown[:1]!r}, type "
                    f"{shown[1:] or '_'!r}), so identical bare tags score 1.0 where conlleval "
                    "finds no phrase",
                    len(bare),
                    tuple(dict.fromkeys(data.where[k][j] for k, j in bare))[:EXAMPLES_SHOWN],
                )
            )
    else:
        scheme = options.scheme or detect_scheme(data.gold, path)
        reader = StrictReader(scheme)
        for name, side in (("gold", data.gold), ("predicted", data.guess)):
            for k, sentence in enumerate(side):
                for j, tag in enumerate(sentence):
                    if reader.invalid(tag):
                        raise InputError(
                            f"{name} tag {tag!r} ({data.where[k][j]}): its prefix is not one "
                            f"the {scheme.value.upper()} scheme allows (strict mode)",
                            path,
                        )
        for name, side, target in (
            ("gold", data.gold, gold_entities),
            ("predicted", data.guess, guess_entities),
        ):
            ill: list[str] = []
            count = 0
            for k, sentence in enumerate(side):
                found, loose = reader.entities(sentence, offsets[k])
                target[data.doc[k]].update(found)
                if loose:
                    count += len(loose)
                    if len(ill) < EXAMPLES_SHOWN:
                        ill.append(data.where[k][loose[0]])
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
    per_doc: dict[str, Counts] = {}
    for d, name in enumerate(data.names):
        counts = entity_counts(gold_entities[d], guess_entities[d])
        per_doc[name] = Counts(tokens=tokens[d], correct_tokens=right[d], **counts)
    result = get("seqeval").result(options, per_doc, warnings=warnings)
    per_type = {
        kind: (int(c["tp"]), int(c["fp"]), int(c["fn"]))
        for kind, c in type_counts(result.matrix.total()).items()
    }
    return result.with_extra(seqeval=classification_report(per_type))


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
    return _count(_read(gold, system, options), options, str(system))


def score_seqeval_file(path: Path, options: SeqevalOptions = SeqevalOptions()) -> Result:
    """seqeval's entity scores of one file holding gold and predicted tags in the fields
    ``gold_col`` and ``pred_col`` (the last two by default)."""
    columns = read_tags(path, delimiter=None, columns=(options.gold_col, options.pred_col))
    data = _from_columns(columns, columns.columns[0], columns.columns[1], str(path))
    return _count(data, options, str(path))


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
    where = [[f"sentence {k + 1} token {j + 1}" for j in range(len(s))] for k, s in enumerate(gold)]
    data = _Sentences(
        [list(s) for s in gold], [list(s) for s in guess], where, [0] * len(gold), ["memory"]
    )
    return _count(data, options, "<memory>")
