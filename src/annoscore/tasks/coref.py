"""``annoscore coref``: the CoNLL-2011/2012 coreference metrics as reference scorer v8.01 has them.

Preset (../shared/spec/coref.md, "Decisions for annoscore", and scorer.pl's observed behaviour):

* reader: :mod:`annoscore.formats.conll`;
* documents: paired by the exact ``#begin document`` name (of two documents with one name in a
  file, the last one); every key document is scored, against an empty response when the response
  lacks it (warning), and against an empty response when the response file has no document at all
  (warning); response documents absent from the key are ignored (warning); paired documents must
  have the same number of token lines (else :class:`~annoscore.errors.InputError`);
* repeated mentions (:meth:`~annoscore.formats.conll.ConllDocument.partition`): in the
  response a repeat is removed only when its span is a key mention (others are kept, as
  scorer.pl keeps them: :mod:`annoscore.metrics.coref`); in the key every repeat is removed
  (scorer.pl keeps them and can score above 100%: the spec's decision); each a warning;
* metrics: :mod:`annoscore.metrics.coref` on the raw (de-duplicated) partitions, counts summed
  over documents (micro average); the corpus scores show an undefined score as 0, as the
  reference scorer prints it (``Undefined.zero``, named in a warning).

:func:`score_coref` scores two files; :func:`count_coref` partitions given in memory.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from numbers import Integral
from pathlib import Path
from typing import Literal, get_args

from annoscore.align.documents import pair_documents
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.conll import (
    ConllDocument,
    Partition,
    Span,
    begin_name,
    read_conll,
    shown_name,
)
from annoscore.formats.files import saw
from annoscore.metrics.coref import CONLL_METRICS, METRICS, ScoredMetric, coref_counts
from annoscore.options import TaskOptions, constant, option
from annoscore.result import Result, Undefined
from annoscore.scale import chunked, counted, keep
from annoscore.scale.cut_json import split_marked
from annoscore.score_warnings import EXAMPLES_SHOWN, ScoreWarning
from annoscore.signature import Signature
from annoscore.tasks.coref_chunks import pooled
from annoscore.tasks.registry import get

CHOSEN: tuple[ScoredMetric, ...] = get_args(ScoredMetric)
"""The metrics ``--metric`` chooses from (mention identification is always scored)."""

MetricChoice = Literal[ScoredMetric, "conll", "all", "mentions"]
"""What ``--metric`` takes: a metric, ``conll`` (MUC, B³, CEAFe) or ``all``; ``mentions`` alone
chooses all (mention identification is always scored)."""


def _chosen(names: Iterable[str]) -> tuple[str, ...]:
    """Checked names (``muc``, ``conll``, ``all``) as the metrics they choose, in report order;
    none (or only ``mentions``) chooses all."""
    groups = {"all": CHOSEN, "conll": CONLL_METRICS, **{name: (name,) for name in METRICS}}
    wanted = {metric for name in names for metric in groups[name]}
    return tuple(name for name in CHOSEN if name in wanted) or CHOSEN


@dataclass(frozen=True, slots=True)
class CorefOptions(TaskOptions):
    """The options of ``annoscore coref`` (reference scorer v8.01's behaviour by default)."""

    reference: str = constant(
        "8.01", "The reference scorer version reproduced (LEA: its LEA branch, 9.0.0-alpha)."
    )
    metrics: tuple[MetricChoice, ...] = option(
        CHOSEN,
        "muc, bcub, ceafm, ceafe, blanc, lea, conll (= muc+bcub+ceafe) or all (default); repeat "
        "the option or separate with ',' or '+'. Mention identification is always scored.",
        flags=("--metric", "--metrics", "-m"),
    )
    singletons: Literal["kept", "removed"] = option(
        "kept",
        "removed (--remove-singletons): drop one-mention entities from key and response first "
        "(coval semantics; scorer.pl keeps them).",
        flags=("--singletons", "--remove-singletons=removed"),
    )
    duplicates: str = constant(
        "scorer.pl", "Repeated mentions as scorer.pl treats them (the key's removed, warned)."
    )
    blanc_edge: str = constant("key", "BLANC's edge rule looks at the key's links (scorer.pl).")

    def __post_init__(self) -> None:
        TaskOptions.__post_init__(self)
        object.__setattr__(self, "metrics", _chosen(self.metrics))

    def signature(self, task: str, *read: tuple[str, object]) -> Signature:
        """The settings that move a number, the metrics written ``muc+bcub`` (as scorer.pl's
        users write several metrics)."""
        signature = TaskOptions.signature(self, task, *read)
        joined = "+".join(self.metrics)
        settings = tuple((k, joined if k == "metrics" else v) for k, v in signature.settings)
        return signature.replaced(settings=settings)


_REPEATS = {
    "coref.key_repeat": "{count} repeated mention(s) in the key removed, each kept in the "
    "entity that occurs first in its document (scorer.pl keeps key repeats and can score above "
    "100%)",
    "coref.response_repeat": "{count} repeated mention(s) in the response that match a key "
    "mention removed, each kept in the entity that occurs first in its document, as scorer.pl "
    "does",
    "coref.response_repeat_kept": "{count} repeated mention(s) in the response match no key "
    "mention and are kept, as scorer.pl keeps them: each is one more mention in MUC, B3, CEAF "
    "and LEA, and the same mention in mention identification and BLANC",
}

Places = dict[str, list[tuple[int, str]]]
"""Per :data:`_REPEATS` code, where each repeated mention was: its line and ``path:line`` (in
memory: 0 and the document's name)."""


def _partitions(
    key: ConllDocument, response: ConllDocument | None, places: Places, options: CorefOptions
) -> tuple[Partition, Partition]:
    """The key and response partitions of one document as scored (singletons removed if the
    options say so), the repeats they drop or keep noted in ``places``."""

    def note(code: str, document: ConllDocument, lines: Sequence[int]) -> None:
        if document.path:
            places[code] += [(line, f"{document.path}:{line}") for line in lines]
        else:
            places[code] += [(0, shown_name(document.name))] * len(lines)

    key_partition, dropped = key.partition()
    note("coref.key_repeat", key, dropped.removed)
    response_partition: Partition = ()
    if response is not None:
        response_partition, dropped = response.partition({m for e in key_partition for m in e})
        note("coref.response_repeat", response, dropped.removed)
        note("coref.response_repeat_kept", response, dropped.kept)
    if options.singletons == "removed":
        key_partition = tuple(entity for entity in key_partition if len(entity) > 1)
        response_partition = tuple(entity for entity in response_partition if len(entity) > 1)
    return key_partition, response_partition


def _result(
    documents: Sequence[tuple[str, ConllDocument, ConllDocument | None]],
    options: CorefOptions,
    warnings: list[ScoreWarning | str],
    response_path: str | None = None,
) -> Result:
    """The result of each document's key and response (``None``: an empty response), what
    :func:`score_coref` and :func:`count_coref` share."""
    metrics = ("mentions", *options.metrics)
    places: Places = {code: [] for code in _REPEATS}
    per_document: dict[str, Counts] = {}
    for name, key_document, response_document in counted(documents):  # a progress line
        key, response = _partitions(key_document, response_document, places, options)
        try:
            per_document[name] = coref_counts(key, response, metrics)
        except ValueError as error:  # too many repeats to count BLANC's links
            raise InputError(str(error), response_path, document=shown_name(name)) from None
    for code, where in places.items():
        if where:
            shown = tuple(dict.fromkeys(label for _, label in sorted(where, key=lambda w: w[0])))
            examples = shown[:EXAMPLES_SHOWN]
            warnings.append(
                ScoreWarning(code, _REPEATS[code], len(where), examples, tolerated=True)
            )
    return get("coref").result(options, per_document, warnings=warnings, undefined=Undefined.zero)


_CUT = functools.partial(split_marked, word=b"begin document ", key_of=begin_name)
"""The files cut before their ``#begin document`` lines (:mod:`annoscore.scale`)."""


@chunked("coref", "lines", order="gold-first", cut_when=lambda *_: _CUT, pooled=pooled)
def score_coref(key: Path, response: Path, options: CorefOptions = CorefOptions()) -> Result:
    """Score a CoNLL-2011/2012 response file against a key file (the ``annoscore coref``
    command), as reference scorer v8.01 does (the module doc gives the reading rules).

    Counts per document, summed: ``{metric}_{recall,precision}_{num,den}`` for mention
    identification and each chosen metric (BLANC: ``blanc_coref_*``, ``blanc_noncoref_*``).
    Scores of the sums: R = recall_num / recall_den, P likewise, F1 = 2PR / (P + R), BLANC the
    mean over its kinds of links, ``conll_f1`` the mean of the MUC, B³ and CEAFe F1
    (:mod:`annoscore.metrics.coref`).

    Undefined: R when its denominator is 0, P likewise, F1 when both are; the corpus scores show
    0.0 there, as the reference scorer does (a warning names them), per-document scores ``None``.
    Settings that move a number: ``metrics`` (all), ``singletons`` (``"kept"``, the reference's).

    >>> from annoscore.samples import SAMPLES
    >>> r = score_coref(SAMPLES / "coref/key.conll", SAMPLES / "coref/response.conll")
    >>> round(r.score, 4), round(r.scores["blanc_f1"], 4)
    (0.5537, 0.4167)
    """
    documents, warnings, response_path = _read_documents(key, response)
    keep((str(key), str(response)))  # a chunk (annoscore.scale): what its pooling needs
    return _result(documents, options, warnings, response_path)


def _read_documents(
    key: Path, response: Path
) -> tuple[list[tuple[str, ConllDocument, ConllDocument | None]], list[ScoreWarning | str], str]:
    """The scored documents of two files (name, key, response or ``None``), the reading's
    warnings and the response's path."""
    key_file, response_file = read_conll(key), read_conll(response)
    saw(key, (d.name for d in key_file.documents))  # a chunk's documents (annoscore.scale)
    saw(response, (d.name for d in response_file.documents))
    if not key_file.documents:
        raise InputError(
            "no '#begin document' line: not a CoNLL-2011/2012 coreference key", key_file.path
        )
    keys, responses = key_file.by_name(), response_file.by_name()
    pairing = pair_documents(keys, responses, gold_only="empty", system_only="ignore")
    warnings: list[ScoreWarning | str] = [
        *key_file.warnings("key"),
        *response_file.warnings("response"),
    ]
    if response_file.documents:
        warnings += [
            replace(warning, examples=tuple(map(shown_name, warning.examples)))
            for warning in pairing.warnings(*_UNPAIRED)
        ]
    else:
        warnings.append(
            ScoreWarning(
                "coref.empty_response",
                "the response has no '#begin document' line: each of the {count} key "
                "document(s) is scored against an empty response, as scorer.pl does",
                len(keys),
                (f"{response_file.path}:1",),
                tolerated=True,
            )
        )
    for name in pairing.scored:
        document, answer = keys[name], responses.get(name)
        if answer is not None and answer.tokens != document.tokens:
            raise InputError(
                f"{answer.tokens} token lines in the response but {document.tokens} in the key "
                f"({key_file.path}:{document.line}); key and response must have the same token "
                "lines",
                response_file.path,
                answer.line,
                document=shown_name(document.name),
            )
    documents = [(name, keys[name], responses.get(name)) for name in pairing.scored]
    return documents, warnings, response_file.path


def coref_partitions(
    key: Path, response: Path, options: CorefOptions = CorefOptions()
) -> dict[str, tuple[Partition, Partition]]:
    """The key and response partitions :func:`score_coref` scores, by document (what the HTML
    report's error analysis needs): mentions are ``(first token, last token)`` spans."""
    documents, _, _ = _read_documents(key, response)
    places: Places = {code: [] for code in _REPEATS}
    return {name: _partitions(k, r, places, options) for name, k, r in documents}


_UNPAIRED = (
    "key document(s) are missing from the response",
    "response document(s) are not in the key",
)


def count_coref(
    key: Mapping[str, Sequence[Sequence[Span]]],
    response: Mapping[str, Sequence[Sequence[Span]]],
    options: CorefOptions = CorefOptions(),
) -> Result:
    """Score coreference partitions given in memory: ``key[document]`` and
    ``response[document]`` are lists of entities, each a list of mention spans ``(first token,
    last token)``; the scores, counts and rules are :func:`score_coref`'s (entities in the order
    given, the first entity keeping a repeated span; warnings quote document names).

    >>> key = {"d1": [[(0, 0), (5, 6)], [(2, 2)]]}
    >>> r = count_coref(key, {"d1": [[(0, 0), (5, 6), (2, 2)]]})
    >>> r.scores["muc_recall"], r.scores["muc_precision"], r.counts["mentions_recall_num"]
    (1.0, 0.5, 3)
    """
    if not key:
        raise InputError("the key has no document")
    pairing = pair_documents(key, response, gold_only="empty", system_only="ignore")
    documents = [
        (name, _document(name, key[name]), _document(name, response[name]))
        if name in response
        else (name, _document(name, key[name]), None)
        for name in pairing.scored
    ]
    return _result(documents, options, list(pairing.warnings(*_UNPAIRED)))


def _document(name: str, entities: Iterable[Iterable[object]]) -> ConllDocument:
    """In-memory entities as a document whose brackets open entity after entity, in order."""
    mentions = []
    for number, entity in enumerate(entities):
        for mention in entity:
            pair = mention if isinstance(mention, Sequence) and len(mention) == 2 else ("", "")
            if not all(isinstance(t, Integral) and not isinstance(t, bool) for t in pair):
                raise InputError(
                    f"a mention is a (first token, last token) pair of integers, not {mention!r}",
                    document=shown_name(name),
                )
            mentions.append((str(number), int(pair[0]), int(pair[1]), 0))
    return ConllDocument(name, 0, 0, tuple(mentions))
