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
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from annoscore.align import are_columns as columns
from annoscore.align.are_columns import ID_CHAINS, ID_PAIRS, SPAN_CHAINS, SPAN_PAIRS
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.files import bom_warnings
from annoscore.metrics import anaphora_columns as counting
from annoscore.metrics.anaphora import (
    fractional_muc,
    link_credits,
    link_scores,
    overlap_credits,
    pair_scores,
    success_credits,
    success_scores,
)
from annoscore.report.are import AreDetails, DocumentExplanation
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
    per_document: dict[str, Counts] | CountMatrix,
    scorer: Scorer,
    warnings: list[ScoreWarning],
    files: tuple[Path, Path, Path | None],
    explanations: list[DocumentExplanation] | None = None,
) -> Result:
    """Task ``task``'s result, either way of scoring.

    Its warnings are ``warnings``, then the byte-order marks of the ``files`` (gold, system,
    input), then one per undefined corpus score.  The text report's explanations are
    ``explanations`` (the checked way), or, when None (the columnar way), made by the checked
    way of the task (:data:`CHECKED`) on the same files when the report asks for them.
    """
    total = (
        per_document.total()
        if isinstance(per_document, CountMatrix)
        else Counts.total(per_document.values())
    )
    warnings = warnings + bom_warnings(*files) + _undefined_warnings(scorer(total))
    details = (
        AreDetails(task, explain=_explainer(CHECKED[task], *files))
        if explanations is None
        else AreDetails(task, tuple(explanations))
    )
    return Result.from_counts(
        f"are-{task}", SIGNATURES[task], per_document, scorer, warnings=warnings, details=details
    )


def _required_input(task: int, input_path: Path | None, what: str) -> Path:
    """``input_path``; an :class:`InputError` if the task needs ``--input`` (for ``what``) and
    none is given."""
    if input_path is None:
        raise InputError(f"task {task} needs --input ({what})")
    return input_path


def _checked_are_1(gold: Path, system: Path, *, input_path: Path | None = None) -> Result:
    """Task 1 (:func:`score_are_1`) the checked way: one object per element, every input
    error named by file and line."""
    from annoscore.align.are_documents import (
        IdChecker,
        collect_documents,
        id_chains,
        id_pairs,
        pronouns_to_resolve,
        require_input,
    )

    input_path = _required_input(1, input_path, "the pronouns to resolve and the candidates")
    documents, warnings = collect_documents(gold, system, input_path, needs_input=True)
    per_document: dict[str, Counts] = {}
    explanations = []
    derived = unchecked = 0
    for doc in documents:
        input_doc = require_input(doc, 1)
        check = IdChecker(input_doc)
        unchecked += check.unchecked
        chains, marked = id_chains(doc.gold, check)
        id_chains(doc.system, check)  # system chains are not scored in task 1; still checked
        pairs = id_pairs(doc.system, check)
        listed = pronouns_to_resolve(input_doc, doc.gold, chains, marked, check)
        derived += not input_doc.document.has_list
        counts, items = success_credits(listed, chains, marked | set(listed), pairs)
        per_document[doc.key] = counts
        explanations.append(DocumentExplanation(doc.key, items, None, {}))
    _task1_warnings(Counts.total(per_document.values()), derived, warnings)
    _unchecked_warning(unchecked, warnings)
    return _result(
        1, per_document, success_scores, warnings, (gold, system, input_path), explanations
    )


def _checked_are_2(gold: Path, system: Path, *, input_path: Path | None = None) -> Result:
    """Task 2 (:func:`score_are_2`) the checked way: one object per element, every input
    error named by file and line."""
    from annoscore.align.are_documents import (
        IdChecker,
        collect_documents,
        id_chains,
    )

    documents, warnings = collect_documents(gold, system, input_path)
    per_document: dict[str, Counts] = {}
    explanations = []
    unchecked = 0
    for doc in documents:
        check = IdChecker(doc.input)
        unchecked += check.unchecked
        gold_chains, _ = id_chains(doc.gold, check)
        system_chains, _ = id_chains(doc.system, check)
        counts, chains = link_credits(gold_chains, system_chains)
        per_document[doc.key] = counts
        explanations.append(DocumentExplanation(doc.key, (), chains, {}))
    _unchecked_warning(unchecked, warnings)
    return _result(2, per_document, link_scores, warnings, (gold, system, input_path), explanations)


def _checked_are_3(gold: Path, system: Path, *, input_path: Path | None = None) -> Result:
    """Task 3 (:func:`score_are_3`) the checked way: one object per element, every input
    error named by file and line."""
    from annoscore.align.are_documents import (
        Mentions,
        collect_documents,
        mention_chains,
        mention_pairs,
        require_input,
    )

    input_path = _required_input(3, input_path, TOKEN_NODES)
    documents, warnings = collect_documents(gold, system, input_path, needs_input=True)
    per_document: dict[str, Counts] = {}
    explanations = []
    for doc in documents:
        mentions = Mentions(require_input(doc, 3))
        chains, pronominal = mention_chains(doc.gold, mentions)
        mention_chains(doc.system, mentions)
        pairs = mention_pairs(doc.system, mentions)
        counts, items = overlap_credits(chains, pronominal, pairs)
        per_document[doc.key] = counts
        explanations.append(DocumentExplanation(doc.key, items, None, mentions.labels))
    _task3_warnings(Counts.total(per_document.values()), warnings)
    return _result(3, per_document, pair_scores, warnings, (gold, system, input_path), explanations)


def _checked_are_4(gold: Path, system: Path, *, input_path: Path | None = None) -> Result:
    """Task 4 (:func:`score_are_4`) the checked way: one object per element, every input
    error named by file and line."""
    from annoscore.align.are_documents import (
        Mentions,
        collect_documents,
        mention_chains,
        require_input,
    )

    input_path = _required_input(4, input_path, TOKEN_NODES)
    documents, warnings = collect_documents(gold, system, input_path, needs_input=True)
    per_document: dict[str, Counts] = {}
    explanations = []
    for doc in documents:
        mentions = Mentions(require_input(doc, 4))
        gold_chains, _ = mention_chains(doc.gold, mentions)
        system_chains, _ = mention_chains(doc.system, mentions)
        counts, chains, _alignment = fractional_muc(gold_chains, system_chains)
        per_document[doc.key] = counts
        explanations.append(DocumentExplanation(doc.key, (), chains, mentions.labels))
    return _result(4, per_document, link_scores, warnings, (gold, system, input_path), explanations)


CHECKED: dict[int, Callable[..., Result]] = {
    1: _checked_are_1,
    2: _checked_are_2,
    3: _checked_are_3,
    4: _checked_are_4,
}
"""The checked way of each task number (the columnar way's explanations are made by it)."""


# --- the columnar way: whole corpora at once, for files of the usual layout -----------------
#
# Each task first pairs the three files as columns (:func:`annoscore.align.are_columns.
# pair_files`: each one file of the usual layout, holding the same documents in the same
# order), aligns them (:mod:`annoscore.align.are_columns`) and counts every document at once
# (:mod:`annoscore.metrics.anaphora_columns`), making no object per element.  At the first thing
# the columns do not handle (another layout, folders, documents to pair, any input error) it
# returns ``None`` and the task is scored the checked way (:func:`_checked_are_1` ...), which
# says what is wrong, naming file and line.  Both ways give the same numbers (tests compare them
# on random corpora); the text report's items are made the checked way when it asks for them.


def _explainer(
    checked: Callable[..., Result], gold: Path, system: Path, input_path: Path | None
) -> Callable[[], tuple[DocumentExplanation, ...]]:
    def explain() -> tuple[DocumentExplanation, ...]:
        details: AreDetails = checked(gold, system, input_path=input_path).details
        return details.explanations()

    return explain


def _fast_are_1(gold: Path, system: Path, input_path: Path) -> Result | None:
    """Task 1 the columnar way (see above); ``None``: score it the checked way."""
    corpus = columns.pair_files(gold, system, input_path, (ID_CHAINS, ID_PAIRS, ("entities",)))
    ids = None if corpus is None else columns.id_columns(corpus)
    if corpus is None or ids is None:
        return None
    counts = counting.success_count_columns(ids, len(corpus.keys))
    matrix = CountMatrix.from_columns(corpus.keys, counts, integer=list(counts)[1:])
    warnings: list[ScoreWarning] = []
    _task1_warnings(matrix.total(), 0, warnings)
    return _result(1, matrix, success_scores, warnings, (gold, system, input_path))


def _fast_are_2(gold: Path, system: Path, input_path: Path | None) -> Result | None:
    """Task 2 the columnar way: MUC over the corpus with NumPy (see above)."""
    corpus = columns.pair_files(gold, system, input_path, (ID_CHAINS, ID_CHAINS, ("entities",)))
    matched = None if corpus is None else columns.id_chain_matches(corpus)
    if corpus is None or matched is None:
        return None
    counts = counting.muc_columns(*matched, len(corpus.keys))
    matrix = CountMatrix.from_columns(corpus.keys, counts, integer=counts)
    return _result(2, matrix, link_scores, [], (gold, system, input_path))


def _fast_are_3(gold: Path, system: Path, input_path: Path) -> Result | None:
    """Task 3 the columnar way (see above)."""
    corpus = columns.pair_files(gold, system, input_path, (SPAN_CHAINS, SPAN_PAIRS, ("tokens",)))
    if corpus is None or corpus.input is None:
        return None
    tokens = columns.numbered_tokens(corpus.input)
    if tokens is None:
        return None
    mentions = columns.mention_chains(corpus.gold, tokens)
    pairs = columns.mention_pairs(corpus.system, tokens)
    if mentions is None or pairs is None:
        return None
    width = int(tokens.max(initial=0)) + 1
    counts = counting.overlap_count_columns(
        mentions, corpus.gold.pronoun, pairs, width, len(corpus.keys)
    )
    if counts is None:
        return None
    whole = [name for name in counts if name != "credit_sum"]
    matrix = CountMatrix.from_columns(corpus.keys, counts, integer=whole)
    warnings: list[ScoreWarning] = []
    _task3_warnings(matrix.total(), warnings)
    return _result(3, matrix, pair_scores, warnings, (gold, system, input_path))


def _fast_are_4(gold: Path, system: Path, input_path: Path) -> Result | None:
    """Task 4 the columnar way: the alignment and the fractional MUC with NumPy (see above)."""
    corpus = columns.pair_files(gold, system, input_path, (SPAN_CHAINS, SPAN_CHAINS, ("tokens",)))
    if corpus is None or corpus.input is None:
        return None
    tokens = columns.numbered_tokens(corpus.input)
    if tokens is None:
        return None
    width = int(tokens.max(initial=0)) + 1
    sides = [columns.mention_chains(f, tokens) for f in (corpus.gold, corpus.system)]
    gold_side, system_side = sides
    if (
        gold_side is None
        or system_side is None
        or not columns.distinct_mentions(gold_side, width)
        or not columns.distinct_mentions(system_side, width)
    ):
        return None
    alignment = columns.align_mention_columns(gold_side, system_side, width)
    counts = counting.fractional_muc_columns(gold_side, system_side, *alignment, len(corpus.keys))
    whole = ("recall_den", "precision_den", "aligned", "gold_mentions", "system_mentions")
    matrix = CountMatrix.from_columns(corpus.keys, counts, integer=whole)
    return _result(4, matrix, link_scores, [], (gold, system, input_path))


def score_are_1(gold: Path, system: Path, *, input_path: Path | None = None) -> Result:
    """Task 1: success rate of pronoun resolution over entity ids (see the module doc).

    The pronouns to resolve are the input's ``<anaphoric_pronouns>``; without that list, the
    gold's ``type="pronoun"`` nodes that share a chain with another node (warning).  Scored the
    columnar way when the files allow it, else the checked way (:func:`_checked_are_1`).

    >>> from annoscore.samples import SAMPLES
    >>> are = SAMPLES / "are"
    >>> r = score_are_1(are / "task1-gold.xml", are / "task1-system.xml",
    ...                 input_path=are / "task1-input.xml")
    >>> r.scores["success_rate"], r.counts["credit_sum"], r.counts["pronouns"]
    (0.625, 2.5, 4)
    """
    fast = None if input_path is None else _fast_are_1(gold, system, input_path)
    return fast or _checked_are_1(gold, system, input_path=input_path)


def score_are_2(gold: Path, system: Path, *, input_path: Path | None = None) -> Result:
    """Task 2: MUC recall, precision and F1 of the system chains over entity ids.

    The MUC function is :func:`annoscore.metrics.coref.muc` (``annoscore coref``'s); with
    ``input_path``, every id must be an entity of the input.  Columnar when the files allow.

    >>> from annoscore.samples import SAMPLES
    >>> are = SAMPLES / "are"
    >>> r = score_are_2(are / "task1-gold.xml", are / "task2-system.xml")
    >>> r.counts["recall_num"], r.counts["recall_den"], r.counts["precision_den"]
    (3, 4, 5)
    """
    fast = _fast_are_2(gold, system, input_path)
    return fast or _checked_are_2(gold, system, input_path=input_path)


def score_are_3(gold: Path, system: Path, *, input_path: Path | None = None) -> Result:
    """Task 3: pronoun resolution over token spans with overlap credit (see the module doc).

    >>> from annoscore.samples import SAMPLES
    >>> are = SAMPLES / "are"
    >>> r = score_are_3(are / "task3-gold.xml", are / "task3-system.xml",
    ...                 input_path=are / "task3-input.xml")
    >>> r.counts["credit_sum"], r.counts["pairs"], r.counts["pronouns"]
    (2.5, 4, 3)
    """
    fast = None if input_path is None else _fast_are_3(gold, system, input_path)
    return fast or _checked_are_3(gold, system, input_path=input_path)


def score_are_4(gold: Path, system: Path, *, input_path: Path | None = None) -> Result:
    """Task 4: MUC with fractional (overlap) credit over aligned token-span mentions.

    >>> from annoscore.samples import SAMPLES
    >>> are = SAMPLES / "are"
    >>> r = score_are_4(are / "task3-gold.xml", are / "task4-system.xml",
    ...                 input_path=are / "task3-input.xml")
    >>> r.counts["recall_den"], r.counts["precision_den"], round(r.scores["recall"], 4)
    (3, 4, 0.8889)
    """
    fast = None if input_path is None else _fast_are_4(gold, system, input_path)
    return fast or _checked_are_4(gold, system, input_path=input_path)


SCORE: dict[int, Callable[..., Result]] = {
    1: score_are_1,
    2: score_are_2,
    3: score_are_3,
    4: score_are_4,
}
"""The score function of each task number."""
