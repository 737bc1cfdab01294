"""``annoscore coref``: the CoNLL-2011/2012 coreference metrics as reference scorer v8.01 has them.

Preset (../shared/spec/coref.md, "Decisions for annoscore"):

* reader: :mod:`annoscore.formats.conll` (duplicates removed with a warning, first opening wins);
* documents: paired by the exact ``#begin document`` name; every key document is scored, against
  an empty response when the response lacks it (warning); response documents absent from the key
  are ignored (warning); paired documents must have the same number of token lines (else
  :class:`~annoscore.errors.InputError`);
* metrics: :mod:`annoscore.metrics.coref` on the raw (de-duplicated) partitions; counts summed over
  documents (micro average); 0 for a 0 denominator, with a warning saying which;
* ``remove_singletons`` (off by default, beyond the reference): drop one-mention entities from key
  and response before scoring, as coval's ``remove_singletons`` does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from pathlib import Path

from annoscore.align.documents import pair_documents
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.conll import ConllFile, read_conll
from annoscore.metrics.coref import CONLL_METRICS, METRICS, coref_counts, coref_scores
from annoscore.model import CorefDocument, TokenSpan
from annoscore.result import Result, ScoreWarning
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


def _partition(
    document: CorefDocument | None, remove_singletons: bool
) -> tuple[frozenset[TokenSpan], ...]:
    if document is None:
        return ()
    if remove_singletons:
        return tuple(entity for entity in document.entities if len(entity) > 1)
    return document.entities


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
    responses = response.by_name()
    keys = {document.name: document for document in key.documents}
    pairing = pair_documents(keys, responses, gold_only="empty", system_only="ignore")
    warnings: list[ScoreWarning | str] = [*key.warnings("key"), *response.warnings("response")]
    warnings += pairing.warnings(
        "key document(s) are missing from the response", "response document(s) are not in the key"
    )
    per_document: dict[str, Counts] = {}
    for name in pairing.scored:
        document, answer = keys[name], responses.get(name)
        if answer is not None and answer.tokens != document.tokens:
            raise InputError(
                f"{answer.tokens} token lines in the response but {document.tokens} in the key "
                f"({key.path}:{document.line}); key and response must have the same token lines",
                response.path,
                answer.line,
                document=document.name,
            )
        per_document[name] = coref_counts(
            _partition(document, remove_singletons),
            _partition(answer, remove_singletons),
            metrics,
        )
    total = Counts.total(per_document.values())
    warnings.extend(_zero_denominator_warnings(total, metrics))
    signature = Signature.of(
        TASK,
        reference=REFERENCE_VERSION,
        metrics="+".join(name for name in metrics if name != "mentions"),
        singletons="removed" if remove_singletons else "kept",
        duplicates="first-kept",
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
    if isinstance(metrics, str):
        metrics = parse_metrics([metrics])
    return score_conll(
        read_conll(key),
        read_conll(response),
        metrics=metrics,
        remove_singletons=remove_singletons,
    )
