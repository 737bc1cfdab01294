"""``annoscore coref``: the CoNLL-2011/2012 coreference metrics as reference scorer v8.01 has them.

Preset (../shared/spec/coref.md, "Decisions for annoscore", and scorer.pl's observed behaviour):

* reader: :mod:`annoscore.formats.conll`;
* documents: paired by the exact ``#begin document`` name (of two documents with one name in a
  file, the last one); every key document is scored, against an empty response when the response
  lacks it (warning), and against an empty response when the response file has no document at all
  (warning); response documents absent from the key are ignored (warning); paired documents must
  have the same number of token lines (else :class:`~annoscore.errors.InputError`);
* repeated mentions (:meth:`~annoscore.formats.conll.ConllDocument.partition`): a span given in
  several entities stays in the entity that occurs first in the document.  In the response, a
  repeat is removed only when its span is a key mention; a repeat that matches no key mention is
  kept, as scorer.pl keeps it: one more mention in MUC, B3, CEAF and LEA, the same mention in
  mention identification and in BLANC's links (:mod:`annoscore.metrics.coref`).  In the key
  every repeat is removed (scorer.pl keeps them and can then score above 100%: the spec's
  decision).  Each case is a warning naming file and line; document names in messages are
  escaped (:func:`~annoscore.formats.conll.shown_name`);
* metrics: :mod:`annoscore.metrics.coref` on the raw (de-duplicated) partitions; counts summed over
  documents (micro average); 0 for a 0 denominator, with a warning saying which;
* ``remove_singletons`` (off by default, beyond the reference): drop one-mention entities from key
  and response before scoring, as coval's ``remove_singletons`` does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path

from annoscore.align.documents import pair_documents
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.conll import ConllFile, Partition, read_conll, shown_name
from annoscore.metrics.coref import CONLL_METRICS, METRICS, coref_counts, coref_scores
from annoscore.result import EXAMPLES_SHOWN, Result, ScoreWarning
from annoscore.signature import Signature

TASK = "coref"
REFERENCE_VERSION = "8.01"
"""The reference scorer version reproduced (LEA: its LEA-scorer branch, 9.0.0-alpha)."""

METRIC_CHOICES = (*METRICS, "conll", "all")
"""Names accepted by :func:`parse_metrics`: a metric, ``conll`` (MUC + B³ + CEAFe) or ``all``."""


def parse_metrics(names: Iterable[str]) -> tuple[str, ...]:
    """Expand names (``muc``, ``muc,bcub``, ``muc+bcub``, ``conll``, ``all``) in report order.

    Mention identification is always included (it is printed with every metric, as the reference
    does).  An unknown name raises ``ValueError``.
    """
    wanted = {"mentions"}
    for item in names:
        for name in item.replace("+", ",").split(","):
            name = name.strip().lower()
            if not name:
                continue
            if name == "all":
                wanted.update(METRICS)
            elif name == "conll":
                wanted.update(CONLL_METRICS)
            elif name in METRICS:
                wanted.add(name)
            else:
                raise ValueError(
                    f"unknown metric {name!r}; expected one of {', '.join(METRIC_CHOICES)}"
                )
    if wanted == {"mentions"}:
        wanted.update(METRICS)
    return tuple(name for name in METRICS if name in wanted)


def _without_singletons(partition: Partition, remove_singletons: bool) -> Partition:
    if remove_singletons:
        return tuple(entity for entity in partition if len(entity) > 1)
    return partition


def _repeat_warning(code: str, message: str, path: str, lines: list[int]) -> list[ScoreWarning]:
    if not lines:
        return []
    distinct = sorted(set(lines))[:EXAMPLES_SHOWN]
    examples = tuple(f"{path}:{line}" for line in distinct)
    return [ScoreWarning(code, message, len(lines), examples, tolerated=True)]


def _zero_denominator_warnings(counts: Counts, metrics: Sequence[str]) -> list[str]:
    out = []
    for name in metrics:
        prefixes = ["blanc_coref_", "blanc_noncoref_"] if name == "blanc" else [name + "_"]
        for prefix in prefixes:
            for side, what in (("recall", "key"), ("precision", "response")):
                if counts[f"{prefix}{side}_den"] == 0:
                    label = prefix.rstrip("_").replace("_", " ")
                    out.append(
                        f"{label} {side} has a 0 denominator (nothing to find in the {what}); "
                        "scored 0 as the reference scorer does"
                    )
    return out


def score_conll(
    key: ConllFile,
    response: ConllFile,
    *,
    metrics: Sequence[str] = METRICS,
    remove_singletons: bool = False,
) -> Result:
    """Score parsed CoNLL files (see the module doc); ``metrics`` as :func:`parse_metrics` gives.

    Counts: ``{metric}_{recall,precision}_{num,den}`` per document (BLANC: its coreference and
    non-coreference links), summed over documents; scores
    :func:`~annoscore.metrics.coref.coref_scores` of the sums.
    """
    if not key.documents:
        raise InputError(
            "no '#begin document' line: not a CoNLL-2011/2012 coreference key", key.path
        )
    keys = key.by_name()
    responses = response.by_name()
    pairing = pair_documents(keys, responses, gold_only="empty", system_only="ignore")
    warnings: list[ScoreWarning | str] = [*key.warnings("key"), *response.warnings("response")]
    if response.documents:
        warnings += [
            replace(warning, examples=tuple(map(shown_name, warning.examples)))
            for warning in pairing.warnings(
                "key document(s) are missing from the response",
                "response document(s) are not in the key",
            )
        ]
    else:
        warnings.append(
            ScoreWarning(
                "coref.empty_response",
                "the response has no '#begin document' line: each of the {count} key "
                "document(s) is scored against an empty response, as scorer.pl does",
                len(keys),
                (f"{response.path}:1",),
                tolerated=True,
            )
        )
    key_removed: list[int] = []
    response_removed: list[int] = []
    response_kept: list[int] = []
    per_document: dict[str, Counts] = {}
    for name in pairing.scored:
        document, answer = keys[name], responses.get(name)
        key_partition, dropped = document.partition()
        key_removed += dropped.removed
        response_partition: Partition = ()
        if answer is not None:
            if answer.tokens != document.tokens:
                raise InputError(
                    f"{answer.tokens} token lines in the response but {document.tokens} in the "
                    f"key ({key.path}:{document.line}); key and response must have the same "
                    "token lines",
                    response.path,
                    answer.line,
                    document=shown_name(document.name),
                )
            key_spans = {span for entity in key_partition for span in entity}
            response_partition, dropped = answer.partition(key_spans)
            response_removed += dropped.removed
            response_kept += dropped.kept
        try:
            per_document[name] = coref_counts(
                _without_singletons(key_partition, remove_singletons),
                _without_singletons(response_partition, remove_singletons),
                metrics,
            )
        except ValueError as error:  # too many repeats to count BLANC's links
            raise InputError(str(error), response.path, document=shown_name(name)) from None
    warnings += _repeat_warning(
        "coref.key_repeat",
        "{count} repeated mention(s) in the key removed, each kept in the entity that occurs "
        "first in its document (scorer.pl keeps key repeats and can score above 100%)",
        key.path,
        key_removed,
    )
    warnings += _repeat_warning(
        "coref.response_repeat",
        "{count} repeated mention(s) in the response that match a key mention removed, each "
        "kept in the entity that occurs first in its document, as scorer.pl does",
        response.path,
        response_removed,
    )
    warnings += _repeat_warning(
        "coref.response_repeat_kept",
        "{count} repeated mention(s) in the response match no key mention and are kept, as "
        "scorer.pl keeps them: each is one more mention in MUC, B3, CEAF and LEA, and the same "
        "mention in mention identification and BLANC",
        response.path,
        response_kept,
    )
    total = Counts.total(per_document.values())
    warnings.extend(_zero_denominator_warnings(total, metrics))
    signature = Signature.of(
        TASK,
        reference=REFERENCE_VERSION,
        metrics="+".join(name for name in metrics if name != "mentions"),
        singletons="removed" if remove_singletons else "kept",
        duplicates="scorer.pl",
        blanc_edge="key",
    )
    scorer = coref_scores if tuple(metrics) == METRICS else partial(coref_scores, metrics=metrics)
    return Result.from_counts(
        TASK, signature, per_document, scorer, warnings=warnings, details=tuple(metrics)
    )


def score_coref(
    key: Path,
    response: Path,
    *,
    metrics: Sequence[str] = METRICS,
    remove_singletons: bool = False,
) -> Result:
    """Read two CoNLL-2011/2012 files and score them (the ``annoscore coref`` command).

    ``metrics``: names or groups as :func:`parse_metrics` reads them (``"conll"``,
    ``"muc,bcub"``...); ``remove_singletons`` drops one-mention entities first.

    >>> from annoscore.samples import SAMPLES
    >>> r = score_coref(SAMPLES / "coref/key.conll", SAMPLES / "coref/response.conll")
    >>> sorted(r.scores)[:3], round(r.scores["conll_f1"], 4)
    (['bcub_f1', 'bcub_precision', 'bcub_recall'], 0.5537)
    """
    try:  # a sequence is read as the command line's --metric is: groups, any order
        metrics = parse_metrics([metrics] if isinstance(metrics, str) else metrics)
    except ValueError as error:
        raise InputError(f"metrics: {error}") from None
    return score_conll(
        read_conll(key),
        read_conll(response),
        metrics=metrics,
        remove_singletons=remove_singletons,
    )
