"""``annoscore are 1|2|3|4``: the four tasks of the Anaphora Resolution Exercise (ARE 2007).

The seed describes the scoring and no scorer survives, so annoscore is the reference; the
definitions are ``../shared/spec/are.md``'s (binding), written out in
:mod:`annoscore.metrics.anaphora`.  Presets:

============  ===================================  ====================================
task          counts per document                  scores
============  ===================================  ====================================
``are-1``     ``credit_sum``, ``pronouns``, ...    ``success_rate = credit_sum / pronouns``
``are-2``     MUC ``recall_num``/``_den``, ...     ``recall``, ``precision``, ``f1``
``are-3``     ``credit_sum``, ``pairs``,           recall = credit_sum / pronouns,
              ``pronouns``, ...                    precision = credit_sum / pairs, ``f1``
``are-4``     fractional MUC numerators, dens      ``recall``, ``precision``, ``f1``
============  ===================================  ====================================

Files (decision 5): ``gold``, ``system`` and ``input_path`` each name one XML file, or each a
folder of ``*.xml`` files paired by file name; one file may hold several ``<document>``
elements, paired across files by their ``id`` attribute when every one has one, else by
position.  A gold document without a system document is scored against an empty output, a
system document without a gold one against an empty gold standard (both named in warnings).
Counts are summed over documents before dividing.  ``--input`` is required for tasks 1, 3 and 4
(the pronouns to resolve; the token order), optional for task 2 (it lets unknown ids be
reported).

Ids, not values (decision 10): ``value`` attributes are never read.  Input errors (exit 2,
naming file, line and element): a member, pronoun or antecedent without its id (tasks 1-2) or
its start and end (tasks 3-4), an id that is not an entity of the input, a start or end that is
not a token node of the input, a start after its end, an id or mention twice in one chain or in
two chains of one side.

One path for every file and corpus: each file read once into columns
(:func:`annoscore.formats.are.read_are`), the documents paired and gathered
(:func:`annoscore.align.are_documents.collect_documents`), every reference checked and
resolved, the first problem named by file and line (:mod:`annoscore.align.are`,
:mod:`annoscore.align.are_checks`), task 4's mentions aligned, every document counted at once
(:mod:`annoscore.metrics.anaphora`); the text report's items are data of the result's
:class:`~annoscore.report.are.AreDetails`, put together when the report asks.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from annoscore.align.are import align_mentions, id_chains, id_links, mention_chains
from annoscore.align.are_documents import Corpus, collect_documents
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.metrics.anaphora import (
    aligned_chain_links,
    fractional_muc_counts,
    id_chain_links,
    link_scores,
    muc_counts,
    overlap_counts,
    pair_scores,
    success_counts,
    success_scores,
)
from annoscore.report.are import AreDetails, Labels
from annoscore.result import CountMatrix, Result, Scorer, ScoreWarning
from annoscore.signature import Signature

SIGNATURES = {
    1: Signature.of("are-1", credit="walk"),
    2: Signature.of("are-2", metric="muc"),
    3: Signature.of("are-3", credit="walk", overlap="shared/max-length"),
    4: Signature.of("are-4", overlap="shared/max-length", alignment="max-total-overlap"),
}
"""The signature of each task (every definition that moves a number is fixed by the spec)."""


# --- the four tasks ---------------------------------------------------------------------------


TOKEN_NODES = "the token <node> elements of the text"
"""What ``--input`` gives tasks 3 and 4 (named when it is missing)."""

TOLERATED = frozenset({"are.unlisted-pairs", "are.repeated-pairs"})
"""Warnings about system pairs the spec ignores rather than refuses (``--strict-input``)."""


def _count_warning(
    total: Counts, key: str, code: str, message: str, warnings: list[ScoreWarning]
) -> None:
    count = int(total[key])
    if count:
        warnings.append(ScoreWarning(code, message, count, tolerated=code in TOLERATED))


def _unchecked_warning(count: int, warnings: list[ScoreWarning]) -> None:
    if count:
        warnings.append(
            ScoreWarning(
                "are.ids-unchecked",
                "{count} input document(s) mark no <entity>; the ids of their chains and pairs "
                "were not checked against the input",
                count,
            )
        )


def _undefined_warnings(scores: dict[str, float | None]) -> list[ScoreWarning]:
    return [
        ScoreWarning(
            f"are.undefined-{name}",
            f"{name} is undefined (its denominator is 0) and reported as null",
        )
        for name, value in scores.items()
        if value is None
    ]


def _task1_warnings(total: Counts, derived: int, warnings: list[ScoreWarning]) -> None:
    """Task 1's warnings from the corpus counts (both ways of scoring)."""
    if derived:
        warnings.append(
            ScoreWarning(
                "are.list-from-gold",
                "{count} input document(s) have no <anaphoric_pronouns>; the pronouns to resolve "
                'are the gold\'s type="pronoun" nodes that share a chain with another node',
                derived,
            )
        )
    _count_warning(
        total,
        "unresolved",
        "are.unresolved",
        "{count} pronoun(s) to resolve have no answer in the output and earn 0",
        warnings,
    )
    _count_warning(
        total,
        "unlisted_pairs",
        "are.unlisted-pairs",
        "{count} system pair(s) resolve a pronoun that is not in the input's list and are ignored",
        warnings,
    )
    _count_warning(
        total,
        "repeated_pairs",
        "are.repeated-pairs",
        "{count} system pair(s) answer a pronoun a second time and are ignored (the first in "
        "document order counts)",
        warnings,
    )
    _count_warning(
        total,
        "chainless",
        "are.chainless",
        "{count} listed pronoun(s) are in no gold chain or alone in one; they count in the "
        "denominator and can earn nothing",
        warnings,
    )


def _task3_warnings(total: Counts, warnings: list[ScoreWarning]) -> None:
    """Task 3's warnings from the corpus counts (both ways of scoring)."""
    _count_warning(
        total,
        "unresolved",
        "are.unresolved",
        "{count} gold pronoun(s) are not resolved by the output (recall counts them, credit 0)",
        warnings,
    )
    _count_warning(
        total,
        "nonreferential_pairs",
        "are.nonreferential-pairs",
        "{count} system pair(s) resolve a pronoun the gold does not list (non-referential, or "
        "not a pronoun): precision counts them, credit 0",
        warnings,
    )
    _count_warning(
        total,
        "partial_pronoun_pairs",
        "are.partial-pronoun-pairs",
        "{count} system pair(s) have a pronoun that only partly matches a gold pronoun: "
        "precision counts them, credit 0",
        warnings,
    )
    _count_warning(
        total,
        "repeated_pairs",
        "are.repeated-pairs",
        "{count} system pair(s) answer a gold pronoun a second time: precision counts them, "
        "credit 0 (the first in document order counts)",
        warnings,
    )


def _result(
    task: int,
    corpus: Corpus,
    counts: dict[str, Any],
    integer: list[str],
    scorer: Scorer,
    warnings: list[ScoreWarning],
    details: AreDetails,
) -> Result:
    """Task ``task``'s result: its per-document counts, then as warnings ``warnings``, the
    byte-order marks of the files read and one per undefined corpus score."""
    keys = corpus.keys
    matrix = CountMatrix.from_columns(keys, counts, integer=integer) if keys else CountMatrix.of({})
    warnings = warnings + corpus.bom_warnings() + _undefined_warnings(scorer(matrix.total()))
    return Result.from_counts(
        f"are-{task}", SIGNATURES[task], matrix, scorer, warnings=warnings, details=details
    )


def _required_input(task: int, input_path: Path | None, what: str) -> Path:
    """``input_path``; an :class:`InputError` if the task needs ``--input`` (for ``what``) and
    none is given."""
    if input_path is None:
        raise InputError(f"task {task} needs --input ({what})")
    return input_path


def score_are_1(gold: Path, system: Path, *, input_path: Path | None = None) -> Result:
    """Task 1: success rate of pronoun resolution over entity ids (see the module doc).

    The pronouns to resolve are the input's ``<anaphoric_pronouns>``; without that list, the
    gold's ``type="pronoun"`` nodes that share a chain with another node (warning).

    >>> from annoscore.samples import SAMPLES
    >>> are = SAMPLES / "are"
    >>> r = score_are_1(are / "task1-gold.xml", are / "task1-system.xml",
    ...                 input_path=are / "task1-input.xml")
    >>> r.scores["success_rate"], r.counts["credit_sum"], r.counts["pronouns"]
    (0.625, 2.5, 4)
    """
    input_path = _required_input(1, input_path, "the pronouns to resolve and the candidates")
    corpus, warnings = collect_documents(gold, system, input_path, needs_input=True)
    links = id_links(corpus)
    counts, items = success_counts(links, len(corpus.documents))
    _task1_warnings(_total(counts), links.derived, warnings)
    _unchecked_warning(links.unchecked, warnings)
    details = AreDetails(1, tuple(corpus.keys), Labels.of_ids(corpus), pronouns=items)
    return _result(1, corpus, counts, list(counts)[1:], success_scores, warnings, details)


def score_are_2(gold: Path, system: Path, *, input_path: Path | None = None) -> Result:
    """Task 2: MUC recall, precision and F1 of the system chains over entity ids.

    The MUC counts are :func:`annoscore.metrics.coref.muc`'s (``annoscore coref``'s); with
    ``input_path``, every id must be an entity of the input.

    >>> from annoscore.samples import SAMPLES
    >>> are = SAMPLES / "are"
    >>> r = score_are_2(are / "task1-gold.xml", are / "task2-system.xml")
    >>> r.counts["recall_num"], r.counts["recall_den"], r.counts["precision_den"]
    (3, 4, 5)
    """
    corpus, warnings = collect_documents(gold, system, input_path)
    chains = id_chains(corpus)
    counts = muc_counts(chains, len(corpus.documents))
    _unchecked_warning(chains.unchecked, warnings)
    details = AreDetails(
        2,
        tuple(corpus.keys),
        Labels.of_ids(corpus),
        chains=id_chain_links(chains),
        gold_rows=_twice(corpus.gold.members.id),
        system_rows=_twice(corpus.system.members.id),
    )
    return _result(2, corpus, counts, list(counts), link_scores, warnings, details)


def score_are_3(gold: Path, system: Path, *, input_path: Path | None = None) -> Result:
    """Task 3: pronoun resolution over token spans with overlap credit (see the module doc).

    >>> from annoscore.samples import SAMPLES
    >>> are = SAMPLES / "are"
    >>> r = score_are_3(are / "task3-gold.xml", are / "task3-system.xml",
    ...                 input_path=are / "task3-input.xml")
    >>> r.counts["credit_sum"], r.counts["pairs"], r.counts["pronouns"]
    (2.5, 4, 3)
    """
    input_path = _required_input(3, input_path, TOKEN_NODES)
    corpus, warnings = collect_documents(gold, system, input_path, needs_input=True)
    mentions = mention_chains(corpus, 3)
    assert mentions.pairs is not None
    counts, items = overlap_counts(
        mentions.gold, corpus.gold.pronominal, mentions.pairs, len(corpus.documents)
    )
    _task3_warnings(_total(counts), warnings)
    details = AreDetails(3, tuple(corpus.keys), Labels.of_mentions(corpus), pronouns=items)
    whole = [name for name in counts if name != "credit_sum"]
    return _result(3, corpus, counts, whole, pair_scores, warnings, details)


def score_are_4(gold: Path, system: Path, *, input_path: Path | None = None) -> Result:
    """Task 4: MUC with fractional (overlap) credit over aligned token-span mentions.

    >>> from annoscore.samples import SAMPLES
    >>> are = SAMPLES / "are"
    >>> r = score_are_4(are / "task3-gold.xml", are / "task4-system.xml",
    ...                 input_path=are / "task3-input.xml")
    >>> r.counts["recall_den"], r.counts["precision_den"], round(r.scores["recall"], 4)
    (3, 4, 0.8889)
    """
    input_path = _required_input(4, input_path, TOKEN_NODES)
    corpus, warnings = collect_documents(gold, system, input_path, needs_input=True)
    mentions = mention_chains(corpus, 4)
    rows, cols, weights = align_mentions(mentions, corpus.keys)
    gold_side, system_side = mentions.gold, mentions.system
    counts = fractional_muc_counts(
        gold_side, system_side, rows, cols, weights, len(corpus.documents)
    )
    details = AreDetails(
        4,
        tuple(corpus.keys),
        Labels.of_mentions(corpus),
        chains=aligned_chain_links(gold_side, system_side, rows, cols, weights),
        gold_rows=_rows(gold_side.first, gold_side.last),
        system_rows=_rows(system_side.first, system_side.last),
    )
    whole = ["recall_den", "precision_den", "aligned", "gold_mentions", "system_mentions"]
    return _result(4, corpus, counts, whole, link_scores, warnings, details)


def _total(counts: dict[str, Any]) -> Counts:
    """The corpus counts (for the warnings)."""
    return Counts({name: column.sum().item() for name, column in counts.items()})


def _rows(first: Any, last: Any) -> Any:
    import numpy as np

    return np.stack([first, last], axis=1)


def _twice(column: Any) -> Any:
    return _rows(column, column)


SCORE: dict[int, Callable[..., Result]] = {
    1: score_are_1,
    2: score_are_2,
    3: score_are_3,
    4: score_are_4,
}
"""The score function of each task number."""
