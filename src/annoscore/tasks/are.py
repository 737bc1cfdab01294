"""``annoscore are 1|2|3|4``: the four tasks of the Anaphora Resolution Exercise (ARE 2007).

No scorer survives, so annoscore is the reference: the definitions are
``../shared/spec/are.md``'s (binding), written out in :mod:`annoscore.metrics.anaphora`; each
``score_are_N`` says its counts, formula and undefined cases.  Every definition that moves a
number is fixed by the spec, and the signature records each as a constant.  The one option is
the task input given to systems (``input_path``, ``--input``): required for tasks 1, 3 and 4 (the
pronouns to resolve; the token order), optional for task 2 (it lets unknown ids be reported).

Files and documents are paired as :mod:`annoscore.align.are_documents` says (decision 5);
counts are summed over documents before dividing.  ``count_are_N`` scores files already read
(:func:`~annoscore.formats.are.read_are`, or :func:`~annoscore.formats.are.parse_are` of bytes).
Ids, not values (decision 10): ``value`` attributes are never read.  A broken reference is an
input error naming file, line and element (:mod:`annoscore.align.are_checks`).  References are
resolved by :mod:`annoscore.align.are`, counted by :mod:`annoscore.metrics.anaphora`; the text
report's items are :class:`~annoscore.metrics.anaphora_items.AreDetails`, made when asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annoscore.align.are import align_mentions, id_chains, id_links, mention_chains
from annoscore.align.are_documents import Corpus, collect_documents, collect_files
from annoscore.errors import InputError
from annoscore.formats.are import AreFile, read_are
from annoscore.metrics.anaphora import (
    fractional_muc_counts,
    muc_counts,
    overlap_counts,
    success_counts,
)
from annoscore.metrics.anaphora_items import AreDetails, Labels, aligned_chain_links, id_chain_links
from annoscore.options import Setting, TaskOptions, constant, fields, option
from annoscore.result import CountMatrix, Result
from annoscore.score_warnings import ScoreWarning
from annoscore.tasks.registry import get

# --- the options ------------------------------------------------------------------------------


def _input(what: str, *, required: bool = True) -> Path | None:
    """The ``input_path`` option: the task input given to systems, which gives ``what``."""
    return option(
        None,
        f"The task input given to systems{'' if required else ' (optional)'}: {what}.",
        flags=("--input", "--input-path", "-i"),
        moves=False,
        required=required,
    )


_PRONOUNS = "the pronouns to resolve (<anaphoric_pronouns>) and the candidate <entity> ids"
_IDS = "every id of the chains must then be an <entity> of it"
_TOKENS = "the token <node> elements of the text (the token order)"
_CREDIT = (
    "A pronoun answered with a pronoun of its chain earns full credit only when the system's own "
    "answers lead from that pronoun, inside the chain and without a loop, to a noun phrase of "
    "it; else half (are.md, decision 1)."
)
_OVERLAP = (
    "Overlap of two mentions = token positions they share / the longer one's length in tokens, "
    "counted in the order of the input's <node> elements."
)


@dataclass(frozen=True, slots=True)
class Are1Options(TaskOptions):
    """The settings of ``annoscore are 1`` (pronoun resolution over entity ids)."""

    input_path: Path | None = _input(_PRONOUNS)  # noqa: RUF009 (a field, not a call)
    credit: str = constant("walk", _CREDIT)


@dataclass(frozen=True, slots=True)
class Are2Options(TaskOptions):
    """The settings of ``annoscore are 2`` (coreference chains over entity ids)."""

    input_path: Path | None = _input(_IDS, required=False)  # noqa: RUF009 (a field)
    metric: str = constant("muc", "MUC (Vilain et al. 1995), as annoscore coref's muc metric.")


@dataclass(frozen=True, slots=True)
class Are3Options(TaskOptions):
    """The settings of ``annoscore are 3`` (pronoun resolution over token spans)."""

    input_path: Path | None = _input(_TOKENS)  # noqa: RUF009 (a field, not a call)
    credit: str = constant("walk", _CREDIT)
    overlap: str = constant("shared/max-length", _OVERLAP)


@dataclass(frozen=True, slots=True)
class Are4Options(TaskOptions):
    """The settings of ``annoscore are 4`` (coreference chains over token spans)."""

    input_path: Path | None = _input(_TOKENS)  # noqa: RUF009 (a field, not a call)
    overlap: str = constant("shared/max-length", _OVERLAP)
    alignment: str = constant(
        "max-total-overlap",
        "Mentions aligned one to one for the largest total overlap (linear_sum_assignment), "
        "pairs with overlap 0 dropped.",
    )


AreOptions = Are1Options | Are2Options | Are3Options | Are4Options


def _input_spec(options: AreOptions) -> Setting:
    return next(f.setting for f in fields(type(options)) if f.name == "input_path")


def _source(task: int, options: AreOptions) -> Path | None:
    """``options.input_path``; an :class:`InputError` when the task needs its input (its
    options class says so) and it is not given."""
    spec = _input_spec(options)
    if options.input_path is None and spec.required:
        raise InputError(f"task {task} needs --input (input_path). {spec.help}")
    return options.input_path


def _from_paths(
    task: int, gold: Path | str, system: Path | str, options: AreOptions
) -> tuple[Corpus, list[ScoreWarning]]:
    """The documents of ``gold``, ``system`` and ``options.input_path``, paired."""
    source, needs = _source(task, options), _input_spec(options).required
    return collect_documents(Path(gold), Path(system), source, needs_input=needs)


def _from_files(
    task: int, gold: AreFile, system: AreFile, given: AreFile | None, options: AreOptions
) -> tuple[Corpus, list[ScoreWarning]]:
    """The documents of files already read: the input is ``given``, else the file
    ``options.input_path`` names (giving both is an error)."""
    if given is None:
        source = _source(task, options)
        given = None if source is None else read_are(source)
    elif not isinstance(given, AreFile):
        raise TypeError(f"count_are_{task}: input_file is a file read, not {given!r}")
    elif options.input_path is not None:
        raise InputError(
            f"task {task}: the input is given twice (input_file and options.input_path); give one"
        )
    return collect_files(gold, system, given, needs_input=_input_spec(options).required)


# --- warnings ----------------------------------------------------------------------------------

COUNTED: dict[int, tuple[tuple[str, str, str], ...]] = {
    1: (
        ("unresolved", "are.unresolved",
         "{count} pronoun(s) to resolve have no answer in the output and earn 0"),
        ("unlisted_pairs", "are.unlisted-pairs",
         "{count} system pair(s) resolve a pronoun that is not in the input's list and are "
         "ignored"),
        ("repeated_pairs", "are.repeated-pairs",
         "{count} system pair(s) answer a pronoun a second time and are ignored (the first in "
         "document order counts)"),
        ("chainless", "are.chainless",
         "{count} listed pronoun(s) are in no gold chain or alone in one; they count in the "
         "denominator and can earn nothing"),
    ),
    3: (
        ("unresolved", "are.unresolved",
         "{count} gold pronoun(s) are not resolved by the output (recall counts them, credit "
         "0)"),
        ("nonreferential_pairs", "are.nonreferential-pairs",
         "{count} system pair(s) resolve a pronoun the gold does not list (non-referential, or "
         "not a pronoun): precision counts them, credit 0"),
        ("partial_pronoun_pairs", "are.partial-pronoun-pairs",
         "{count} system pair(s) have a pronoun that only partly matches a gold pronoun: "
         "precision counts them, credit 0"),
        ("repeated_pairs", "are.repeated-pairs",
         "{count} system pair(s) answer a gold pronoun a second time: precision counts them, "
         "credit 0 (the first in document order counts)"),
    ),
}  # fmt: skip
"""The warnings of tasks 1 and 3 that count items of the corpus: (count, code, message)."""

TOLERATED = frozenset({"are.unlisted-pairs", "are.repeated-pairs"})
"""Warnings about system pairs the spec ignores rather than refuses (``--strict-input``)."""


def _counted_warnings(task: int, counts: dict[str, Any], warnings: list[ScoreWarning]) -> None:
    """Task ``task``'s :data:`COUNTED` warnings, from the corpus counts."""
    for key, code, message in COUNTED[task]:
        count = int(counts[key].sum())
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


# --- the four tasks ---------------------------------------------------------------------------


def _result(
    options: AreOptions,
    corpus: Corpus,
    counts: dict[str, Any],
    integer: list[str],
    warnings: list[ScoreWarning],
    details: AreDetails,
) -> Result:
    """The task's result: its per-document counts, then as warnings ``warnings`` and the
    byte-order marks of the files read (the registry adds the undefined scores')."""
    task = get(f"are-{details.task}")
    if type(options) is not task.options_class():
        raise TypeError(f"{task.name} takes {task.options_class().__name__}, not {options!r}")
    keys = corpus.keys
    matrix = CountMatrix.from_columns(keys, counts, integer=integer) if keys else CountMatrix.of({})
    return task.result(options, matrix, warnings=warnings + corpus.bom_warnings(), details=details)


def score_are_1(
    gold: Path | str, system: Path | str, options: Are1Options = Are1Options()
) -> Result:
    """Task 1: success rate of pronoun resolution over entity ids.

    The pronouns to resolve are the input's ``<anaphoric_pronouns>``; without that list, the
    gold's ``type="pronoun"`` nodes that share a chain with another node (warning).  Per pronoun
    p (K its gold chain, a the system's first antecedent for p): 0 when p is unresolved, a is not
    in K or a = p; 1 when a is a noun phrase; when a is a pronoun, 1 or 0.5 by the walk
    (``credit:walk``, :mod:`annoscore.metrics.anaphora`).  Counts ``credit_sum``, ``pronouns``
    (and ``full``, ``half``, ``zero``, ``unresolved``, ...); ``success_rate = credit_sum /
    pronouns``.  Undefined: ``success_rate`` with no pronoun to resolve (``None``).  Settings:
    ``input_path`` (required); nothing else moves the number.

    >>> from annoscore.samples import SAMPLES
    >>> are = SAMPLES / "are"
    >>> r = score_are_1(are / "task1-gold.xml", are / "task1-system.xml",
    ...                 Are1Options(input_path=are / "task1-input.xml"))
    >>> r.scores["success_rate"], r.counts["credit_sum"], r.counts["pronouns"]
    (0.625, 2.5, 4)
    """
    return _task1(*_from_paths(1, gold, system, options), options)


def count_are_1(
    gold: AreFile,
    system: AreFile,
    input_file: AreFile | None = None,
    options: Are1Options = Are1Options(),
) -> Result:
    """Task 1 (:func:`score_are_1`) of files already read: ``input_file`` is the input (else
    the file ``options.input_path`` names).

    >>> from annoscore.formats.are import parse_are
    >>> def xml(text): return parse_are(Path("memory.xml"), text.encode())
    >>> source = xml('<r><text><entity id="1">Ann</entity> <entity id="2">she</entity></text>'
    ...              '<anaphoric_pronouns><pronoun id="2"/></anaphoric_pronouns></r>')
    >>> gold = xml('<r><chain><node id="1"/><node id="2"/></chain></r>')
    >>> system = xml('<r><pair><pronoun id="2"/><antecedent id="1"/></pair></r>')
    >>> count_are_1(gold, system, input_file=source).score
    1.0
    """
    return _task1(*_from_files(1, gold, system, input_file, options), options)


def _task1(corpus: Corpus, warnings: list[ScoreWarning], options: Are1Options) -> Result:
    links = id_links(corpus)
    counts, items = success_counts(links, len(corpus.documents))
    if links.derived:
        warnings.append(
            ScoreWarning(
                "are.list-from-gold",
                "{count} input document(s) have no <anaphoric_pronouns>; the pronouns to resolve "
                'are the gold\'s type="pronoun" nodes that share a chain with another node',
                links.derived,
            )
        )
    _counted_warnings(1, counts, warnings)
    _unchecked_warning(links.unchecked, warnings)
    details = AreDetails(1, tuple(corpus.keys), Labels.of_ids(corpus), pronouns=items)
    return _result(options, corpus, counts, list(counts)[1:], warnings, details)


def score_are_2(
    gold: Path | str, system: Path | str, options: Are2Options = Are2Options()
) -> Result:
    """Task 2: MUC recall, precision and F1 of the system chains over entity ids.

    Counts (Vilain et al. 1995, :func:`annoscore.metrics.coref.muc`'s numbers):
    ``recall_num = precision_num`` = Σ (|P| - 1) over the parts P (a gold chain cut by the
    system chains), ``recall_den`` = Σ (|k| - 1) over the gold chains k, ``precision_den`` over
    the system chains; recall and precision are their ratios, F1 = 2PR/(P+R).  Undefined: a
    ratio whose denominator is 0 (``None``); F1 only when both are (it is 0 when one side has
    no link).  Settings: ``input_path`` (optional: every id must then be an entity of it);
    nothing moves the number.

    >>> from annoscore.samples import SAMPLES
    >>> are = SAMPLES / "are"
    >>> r = score_are_2(are / "task1-gold.xml", are / "task2-system.xml")
    >>> r.counts["recall_num"], r.counts["recall_den"], r.counts["precision_den"]
    (3, 4, 5)
    """
    return _task2(*_from_paths(2, gold, system, options), options)


def count_are_2(
    gold: AreFile,
    system: AreFile,
    input_file: AreFile | None = None,
    options: Are2Options = Are2Options(),
) -> Result:
    """Task 2 (:func:`score_are_2`) of files already read (``input_file``: the input, if any).

    >>> from annoscore.formats.are import parse_are
    >>> gold = parse_are(Path("g.xml"), b'<r><chain><node id="a"/><node id="b"/>'
    ...                                 b'<node id="c"/></chain></r>')
    >>> system = parse_are(Path("s.xml"), b'<r><chain><node id="a"/><node id="b"/></chain></r>')
    >>> r = count_are_2(gold, system)
    >>> r.scores["recall"], r.scores["precision"]
    (0.5, 1.0)
    """
    return _task2(*_from_files(2, gold, system, input_file, options), options)


def _task2(corpus: Corpus, warnings: list[ScoreWarning], options: Are2Options) -> Result:
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
    return _result(options, corpus, counts, list(counts), warnings, details)


def score_are_3(
    gold: Path | str, system: Path | str, options: Are3Options = Are3Options()
) -> Result:
    """Task 3: pronoun resolution over token spans with overlap credit.

    A system pair (p, a) earns credit only when p is exactly a gold pronoun and it is the first
    pair for p: overlap(a, m*), m* the member of p's gold chain overlapping a most
    (``overlap:shared/max-length``), halved by task 1's walk when m* is a pronoun
    (``credit:walk``).  Counts ``credit_sum``, ``pairs`` (every system pair), ``pronouns``
    (gold pronouns whose chain has another mention); recall = credit_sum / pronouns,
    precision = credit_sum / pairs, F1 = 2PR/(P+R).  Undefined: a ratio whose denominator is 0
    (``None``); F1 only when both are.  Settings: ``input_path`` (required).

    >>> from annoscore.samples import SAMPLES
    >>> are = SAMPLES / "are"
    >>> r = score_are_3(are / "task3-gold.xml", are / "task3-system.xml",
    ...                 Are3Options(input_path=are / "task3-input.xml"))
    >>> r.counts["credit_sum"], r.counts["pairs"], r.counts["pronouns"]
    (2.5, 4, 3)
    """
    return _task3(*_from_paths(3, gold, system, options), options)


def count_are_3(
    gold: AreFile,
    system: AreFile,
    input_file: AreFile | None = None,
    options: Are3Options = Are3Options(),
) -> Result:
    """Task 3 (:func:`score_are_3`) of files already read (``input_file``: as in
    :func:`count_are_1`).

    >>> from annoscore.formats.are import parse_are
    >>> def xml(text): return parse_are(Path("memory.xml"), text.encode())
    >>> source = xml('<r><text><node id="1"/>The <node id="2"/>cat <node id="3"/>it</text></r>')
    >>> gold = xml('<r><chain><mention start="1" end="2"/>'
    ...            '<mention start="3" end="3" type="pronoun"/></chain></r>')
    >>> system = xml('<r><pair><pronoun start="3" end="3"/>'
    ...              '<antecedent start="2" end="2"/></pair></r>')
    >>> count_are_3(gold, system, input_file=source).counts["credit_sum"]   # 1 of 2 tokens
    0.5
    """
    return _task3(*_from_files(3, gold, system, input_file, options), options)


def _task3(corpus: Corpus, warnings: list[ScoreWarning], options: Are3Options) -> Result:
    mentions = mention_chains(corpus, 3)
    assert mentions.pairs is not None
    counts, items = overlap_counts(
        mentions.gold, corpus.gold.pronominal, mentions.pairs, len(corpus.documents)
    )
    _counted_warnings(3, counts, warnings)
    details = AreDetails(3, tuple(corpus.keys), Labels.of_mentions(corpus), pronouns=items)
    whole = [name for name in counts if name != "credit_sum"]
    return _result(options, corpus, counts, whole, warnings, details)


def score_are_4(
    gold: Path | str, system: Path | str, options: Are4Options = Are4Options()
) -> Result:
    """Task 4: MUC with fractional (overlap) credit over aligned token-span mentions.

    System mentions are aligned one to one to gold mentions for the largest total overlap
    (``alignment:max-total-overlap``, ``overlap:shared/max-length``); w(m) is a mention's
    overlap with its counterpart (0 unaligned); each part P of a chain (cut by the other side's
    chains) earns (|P| - 1) x mean w over P.  Counts ``recall_num``, ``recall_den`` (Σ |k| - 1
    over the gold chains), ``precision_num``, ``precision_den`` (system chains), ``aligned``,
    ``gold_mentions``, ``system_mentions``; recall, precision, F1 = 2PR/(P+R).  With exact
    mentions it is Vilain's MUC.  Undefined: a ratio whose denominator is 0 (``None``); F1 only
    when both are.  Settings: ``input_path`` (required).

    >>> from annoscore.samples import SAMPLES
    >>> are = SAMPLES / "are"
    >>> r = score_are_4(are / "task3-gold.xml", are / "task4-system.xml",
    ...                 Are4Options(input_path=are / "task3-input.xml"))
    >>> r.counts["recall_den"], r.counts["precision_den"], round(r.scores["recall"], 4)
    (3, 4, 0.8889)
    """
    return _task4(*_from_paths(4, gold, system, options), options)


def count_are_4(
    gold: AreFile,
    system: AreFile,
    input_file: AreFile | None = None,
    options: Are4Options = Are4Options(),
) -> Result:
    """Task 4 (:func:`score_are_4`) of files already read (``input_file``: as in
    :func:`count_are_1`).

    >>> from annoscore.formats.are import parse_are
    >>> def xml(text): return parse_are(Path("memory.xml"), text.encode())
    >>> source = xml('<r><node id="1"/>A <node id="2"/>b <node id="3"/>c <node id="4"/>d</r>')
    >>> gold = xml('<r><chain><mention start="1" end="2"/><mention start="4" end="4"/>'
    ...            '</chain></r>')
    >>> system = xml('<r><chain><mention start="1" end="1"/><mention start="4" end="4"/>'
    ...              '</chain></r>')
    >>> count_are_4(gold, system, input_file=source).scores["recall"]   # (2 - 1) x (0.5 + 1) / 2
    0.75
    """
    return _task4(*_from_files(4, gold, system, input_file, options), options)


def _task4(corpus: Corpus, warnings: list[ScoreWarning], options: Are4Options) -> Result:
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
    return _result(options, corpus, counts, whole, warnings, details)


def _rows(first: Any, last: Any) -> Any:
    import numpy as np

    return np.stack([first, last], axis=1)


def _twice(column: Any) -> Any:
    return _rows(column, column)
