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

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate, compress, repeat
from itertools import chain as chain_items
from pathlib import Path
from typing import Any, TypeVar, cast

from annoscore.align.assignment import max_weight_matching
from annoscore.align.documents import pair_documents
from annoscore.counts import Counts
from annoscore.errors import InputError
from annoscore.formats.are import _NUMBERS, AreDocument, AreFile, Ref, read_are
from annoscore.formats.are_columns import ColumnFile, read_columns
from annoscore.formats.files import bom_warnings, list_folder_with_warnings
from annoscore.metrics.anaphora import (
    fractional_muc,
    link_credits,
    link_scores,
    overlap_credits,
    pair_scores,
    success_counts,
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


@dataclass(frozen=True, slots=True)
class Located:
    """A document and the file it came from (for messages)."""

    path: Path
    document: AreDocument


@dataclass(frozen=True, slots=True)
class DocumentSet:
    """One scored document: its key and its gold, system and input documents (any may be
    ``None``: a one-sided document is scored against an empty other side)."""

    key: str
    gold: Located | None
    system: Located | None
    input: Located | None


# --- reading and pairing --------------------------------------------------------------------


def _within_files(
    files: Sequence[AreFile | None], prefix: str | None
) -> list[tuple[str, list[Located | None]]]:
    """Pair the documents of (gold, system, input) files: by id when every one has an id, else
    by position (different counts: InputError)."""
    present = [f for f in files if f is not None]
    by_id = all(d.key is not None for f in present for d in f.documents)
    sides: list[dict[str, Located]] = []
    for f in files:
        docs: dict[str, Located] = {}
        if f is not None:
            for position, document in enumerate(f.documents, start=1):
                key = document.key if by_id and document.key is not None else str(position)
                if key in docs:
                    raise InputError(
                        f'<document id="{key}"> appears twice in the file; document ids must be '
                        "unique",
                        f.path,
                        document.line,
                    )
                docs[key] = Located(f.path, document)
        sides.append(docs)
    if not by_id:
        counts = {f.path: len(f.documents) for f in present}
        if len(set(counts.values())) > 1:
            listed = ", ".join(f"{path}: {n}" for path, n in counts.items())
            raise InputError(
                "the files hold different numbers of documents and not every document has an "
                f"id attribute to pair them by ({listed})",
                present[0].path,
            )
    keys = list(dict.fromkeys(k for side in sides[:2] for k in side))
    single = len(keys) == 1
    out = []
    for key in keys:
        name = key if prefix is None else (prefix if single else f"{prefix}/{key}")
        out.append((name, [side.get(key) for side in sides]))
    return out


def collect_documents(
    gold: Path, system: Path, input_path: Path | None, *, needs_input: bool = False
) -> tuple[list[DocumentSet], list[ScoreWarning]]:
    """Read and pair the documents of the three sides (see the module doc).

    With ``needs_input`` (tasks 1, 3, 4), a system document that has neither a gold nor an
    input document cannot be scored and is left out (warning); a gold document without an
    input document is an :class:`~annoscore.errors.InputError`.
    """
    warnings: list[ScoreWarning] = []
    if gold.is_dir() or system.is_dir():
        for path, what in ((gold, "--gold"), (system, "--pred"), (input_path, "--input")):
            if path is not None and not path.is_dir():
                raise InputError(
                    f"{what} is not a folder; --gold, --pred and --input must all be files or "
                    "all be folders",
                    path,
                )
        sides: list[dict[str, Path]] = []
        for folder in (gold, system, input_path):
            if folder is None:
                sides.append({})
                continue
            found, skipped = list_folder_with_warnings(folder, (".xml",), "ARE XML files")
            sides.append({p.name: p for p in found})
            warnings += skipped
        gold_files, system_files, input_files = sides
        pairing = pair_documents(gold_files, system_files)
        warnings += pairing.warnings(
            "gold file(s) have no system file of the same name",
            "system file(s) have no gold file of the same name",
        )
        unused = [name for name in input_files if name not in pairing.scored]
        if unused:
            warnings.append(
                ScoreWarning(
                    "are.input-only",
                    "{count} input file(s) have no gold or system file and are not used",
                    len(unused),
                    tuple(unused[:5]),
                )
            )
        triples: list[tuple[str | None, list[AreFile | None]]] = [
            (
                Path(name).stem,
                [
                    read_are(side[name]) if name in side else None
                    for side in (gold_files, system_files, input_files)
                ],
            )
            for name in pairing.scored
        ]
    else:
        triples = [
            (
                None,
                [
                    read_are(gold),
                    read_are(system),
                    None if input_path is None else read_are(input_path),
                ],
            )
        ]
    documents: list[DocumentSet] = []
    gold_only: list[str] = []
    system_only: list[str] = []
    unscorable: list[str] = []
    for prefix, files in triples:
        for key, (g, s, i) in _within_files(files, prefix):
            if g is None and s is None:
                continue
            if needs_input and g is None and i is None:
                unscorable.append(key)
                continue
            if g is not None and s is None and files[1] is not None:
                gold_only.append(key)
            if s is not None and g is None and files[0] is not None:
                system_only.append(key)
            documents.append(DocumentSet(key, g, s, i))
    if gold_only:
        warnings.append(
            ScoreWarning(
                "documents.gold-only",
                "{count} gold document(s) have no system document and are scored as an empty "
                "output",
                len(gold_only),
                tuple(gold_only[:5]),
            )
        )
    if unscorable:
        warnings.append(
            ScoreWarning(
                "are.system-only-no-input",
                "{count} system document(s) have neither a gold nor an input document and are "
                "left out",
                len(unscorable),
                tuple(unscorable[:5]),
            )
        )
    if system_only:
        warnings.append(
            ScoreWarning(
                "documents.system-only",
                "{count} system document(s) have no gold document and are scored against an "
                "empty gold standard",
                len(system_only),
                tuple(system_only[:5]),
            )
        )
    return documents, warnings


def _require_input(doc: DocumentSet, task: int) -> Located:
    if doc.input is None:
        where = doc.gold or doc.system
        assert where is not None
        raise InputError(
            f"document {doc.key!r} has no counterpart in --input; task {task} needs the input "
            "(the pronouns to resolve and the candidates)"
            if task == 1
            else f"document {doc.key!r} has no counterpart in --input; task {task} needs the "
            "input's token <node> elements to count mention lengths",
            where.path,
            where.document.line,
        )
    return doc.input


# --- references to ids (tasks 1, 2) and to mentions (tasks 3, 4) -----------------------------


def _ref_id(path: Path, ref: Ref, what: str) -> str:
    if ref.id is None:
        raise InputError(
            f"<{ref.element}> {what} has no id attribute (tasks 1 and 2 refer to entities by id)",
            path,
            ref.line,
        )
    return ref.id


class _IdChecker:
    """Checks that ids are entities of the input (when the input marks entities);
    ``unchecked`` says the input was given but marks none."""

    def __init__(self, input_doc: Located | None) -> None:
        self.path = None if input_doc is None else input_doc.path
        self.known: frozenset[str] | None = None
        self.unchecked = input_doc is not None and not input_doc.document.entities
        if input_doc is not None and input_doc.document.entities:
            self.known = input_doc.document.entities | frozenset(
                r.id for r in input_doc.document.listed if r.id is not None
            )

    def __call__(self, path: Path, ref: Ref, value: str) -> str:
        if self.known is not None and value not in self.known:
            raise InputError(
                f'<{ref.element} id="{value}">: id {value} is not an <entity> of the input '
                f"({self.path})",
                path,
                ref.line,
            )
        return value


def _id_chains(located: Located | None, check: _IdChecker) -> tuple[list[list[str]], set[str]]:
    """A side's chains as lists of ids, and the ids marked ``type="pronoun"``.

    The usual case takes one pass per chain; any problem (a member without an id, an id the
    input does not know, an id twice) is found again by :func:`_checked_id_chains`, which says
    what and where.
    """
    if located is None:
        return [], set()
    chains = []
    flat: list[str | None] = []
    pronouns = []
    for chain in located.document.chains:
        refs = chain.members
        ids = [r.id for r in refs]
        chains.append(ids)
        flat += ids
        pronouns += [r.id for r in refs if r.pronoun]
    distinct = set(flat)
    known = check.known
    if (
        len(distinct) != len(flat)
        or None in distinct
        or (known is not None and not distinct.issubset(known))
    ):
        return _checked_id_chains(located, check)
    return cast("list[list[str]]", chains), cast("set[str]", set(pronouns))


def _checked_id_chains(located: Located, check: _IdChecker) -> tuple[list[list[str]], set[str]]:
    """:func:`_id_chains` member by member: raises the error that says what and where."""
    chains: list[list[str]] = []
    pronominal: set[str] = set()
    seen: dict[str, int] = {}
    known = check.known
    for chain in located.document.chains:
        members = []
        for ref in chain.members:
            value = ref.id
            if value is None or (known is not None and value not in known):  # say why
                value = check(located.path, ref, _ref_id(located.path, ref, "in a <chain>"))
            if value in seen:
                raise InputError(
                    f'<{ref.element} id="{value}">: id {value} is already in the chain of line '
                    f"{seen[value]}; an id may appear once in one chain and in one chain only",
                    located.path,
                    ref.line,
                )
            seen[value] = chain.line
            members.append(value)
            if ref.pronoun:
                pronominal.add(value)
        chains.append(members)
    return chains, pronominal


def _id_pairs(located: Located | None, check: _IdChecker) -> list[tuple[str, str]]:
    if located is None:
        return []
    path = located.path
    return [
        (
            check(path, pair.pronoun, _ref_id(path, pair.pronoun, "in a <pair>")),
            check(path, pair.antecedent, _ref_id(path, pair.antecedent, "in a <pair>")),
        )
        for pair in located.document.pairs
    ]


Mention = tuple[int, int]


class MentionLabels(Mapping[Hashable, str]):
    """How the report prints a mention (token positions ``(first, last)``): its start token id,
    or ``start..end``; made from the input's tokens when first asked for (only the text report
    asks).  Keys are the mentions of the document's input; anything else is not a key."""

    def __init__(self, tokens: Mapping[str, int]) -> None:
        self._tokens = tokens
        self._ids: list[str] | None = None

    def _names(self) -> list[str]:
        if self._ids is None:
            ids = [""] * len(self._tokens)
            for token, position in self._tokens.items():
                ids[position] = token
            self._ids = ids
        return self._ids

    def __getitem__(self, key: Hashable) -> str:
        ids = self._names()
        if isinstance(key, tuple) and len(key) == 2:
            first, last = key
            if isinstance(first, int) and isinstance(last, int) and 0 <= first <= last < len(ids):
                return ids[first] if first == last else f"{ids[first]}..{ids[last]}"
        raise KeyError(key)

    def __iter__(self) -> Iterator[Hashable]:
        size = len(self._tokens)
        return ((first, last) for first in range(size) for last in range(first, size))

    def __len__(self) -> int:
        size = len(self._tokens)
        return size * (size + 1) // 2


class _Mentions:
    """Turns ``start``/``end`` token ids into token positions of the input; keeps labels."""

    def __init__(self, input_doc: Located) -> None:
        self.input = input_doc
        self.tokens = input_doc.document.tokens
        self.labels = MentionLabels(self.tokens)

    def __call__(self, path: Path, ref: Ref) -> Mention:
        if ref.start is None or ref.end is None:
            raise InputError(
                f"<{ref.element}> needs start and end attributes (token node ids; tasks 3 and "
                "4 refer to mentions by their first and last token)",
                path,
                ref.line,
            )
        first = self.tokens.get(ref.start)
        last = self.tokens.get(ref.end)
        for name, value, position in (("start", ref.start, first), ("end", ref.end, last)):
            if position is None:
                raise InputError(
                    f'<{ref.element} {name}="{value}">: {value} is not a token <node> id of the '
                    f"input ({self.input.path})",
                    path,
                    ref.line,
                )
        assert first is not None and last is not None
        if first > last:
            raise InputError(
                f'<{ref.element} start="{ref.start}" end="{ref.end}">: the start comes after the '
                "end in the input text",
                path,
                ref.line,
            )
        return (first, last)


def _mention_chains(
    located: Located | None, mentions: _Mentions
) -> tuple[list[list[Mention]], set[Mention]]:
    """A side's chains as lists of mentions, and the mentions marked ``type="pronoun"``.

    The usual case takes one pass per chain; any problem (an unknown token, a start after its
    end, a mention twice) is found again by :func:`_checked_mention_chains`, which says where.
    """
    if located is None:
        return [], set()
    position = mentions.tokens.get
    chains = []
    flat: list[tuple[int | None, int | None]] = []
    pronouns = []
    for chain in located.document.chains:
        refs = chain.members
        members = [(position(r.start), position(r.end)) for r in refs]  # type: ignore[arg-type]
        chains.append(members)
        flat += members
        pronouns += [m for m, r in zip(members, refs, strict=True) if r.pronoun]
    if len(set(flat)) != len(flat) or any(
        first is None or last is None or first > last for first, last in flat
    ):
        return _checked_mention_chains(located, mentions)
    return cast("list[list[Mention]]", chains), cast("set[Mention]", set(pronouns))


def _checked_mention_chains(
    located: Located, mentions: _Mentions
) -> tuple[list[list[Mention]], set[Mention]]:
    """:func:`_mention_chains` member by member: raises the error that says what and where."""
    chains: list[list[Mention]] = []
    pronominal: set[Mention] = set()
    seen: dict[Mention, int] = {}
    for chain in located.document.chains:
        members = []
        for ref in chain.members:
            mention = mentions(located.path, ref)
            if mention in seen:
                raise InputError(
                    f'<{ref.element} start="{ref.start}" end="{ref.end}">: this mention is '
                    f"already in the chain of line {seen[mention]}; a mention may appear once in "
                    "one chain and in one chain only",
                    located.path,
                    ref.line,
                )
            seen[mention] = chain.line
            members.append(mention)
            if ref.pronoun:
                pronominal.add(mention)
        chains.append(members)
    return chains, pronominal


def _mention_pairs(located: Located | None, mentions: _Mentions) -> list[tuple[Mention, Mention]]:
    if located is None:
        return []
    path = located.path
    return [
        (mentions(path, pair.pronoun), mentions(path, pair.antecedent))
        for pair in located.document.pairs
    ]


# --- the four tasks ---------------------------------------------------------------------------


T = TypeVar("T")


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
    explanations: list[DocumentExplanation] | Callable[[], tuple[DocumentExplanation, ...]],
) -> Result:
    total = (
        per_document.total()
        if isinstance(per_document, CountMatrix)
        else Counts.total(per_document.values())
    )
    warnings = warnings + _undefined_warnings(scorer(total))
    details = (
        AreDetails(task, explain=explanations)
        if callable(explanations)
        else AreDetails(task, tuple(explanations))
    )
    return Result.from_counts(
        f"are-{task}", SIGNATURES[task], per_document, scorer, warnings=warnings, details=details
    )


def _checked_are_1(gold: Path, system: Path, *, input_path: Path | None = None) -> Result:
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
    if input_path is None:
        raise InputError("task 1 needs --input (the pronouns to resolve and the candidates)")
    documents, warnings = collect_documents(gold, system, input_path, needs_input=True)
    per_document: dict[str, Counts] = {}
    explanations = []
    derived = unchecked = 0
    for doc in documents:
        input_doc = _require_input(doc, 1)
        check = _IdChecker(input_doc)
        unchecked += check.unchecked
        chains, marked = _id_chains(doc.gold, check)
        _id_chains(doc.system, check)  # system chains are not scored in task 1; still checked
        pairs = _id_pairs(doc.system, check)
        if input_doc.document.has_list:
            listed: list[str] = []
            seen: set[str] = set()
            for ref in input_doc.document.listed:
                value = check(input_doc.path, ref, _ref_id(input_doc.path, ref, "in the list"))
                if value in seen:
                    raise InputError(
                        f'<pronoun id="{value}"> is listed twice in <anaphoric_pronouns>',
                        input_doc.path,
                        ref.line,
                    )
                seen.add(value)
                listed.append(value)
        elif doc.gold is not None and any(
            r.pronoun for c in doc.gold.document.chains for r in c.members
        ):
            listed = [m for chain in chains if len(chain) > 1 for m in chain if m in marked]
            derived += 1
        else:
            raise InputError(
                "task 1 needs the pronouns to resolve: the input has no <anaphoric_pronouns> "
                'and the gold marks no <node type="pronoun">',
                input_doc.path,
                input_doc.document.line,
            )
        counts, items = success_credits(listed, chains, marked | set(listed), pairs)
        per_document[doc.key] = counts
        explanations.append(DocumentExplanation(doc.key, items, None, {}))
    _task1_warnings(Counts.total(per_document.values()), derived, warnings)
    _unchecked_warning(unchecked, warnings)
    warnings.extend(bom_warnings(gold, system, input_path))
    return _result(1, per_document, success_scores, warnings, explanations)


def _checked_are_2(gold: Path, system: Path, *, input_path: Path | None = None) -> Result:
    """Task 2: MUC recall, precision and F1 of the system chains over entity ids.

    The MUC function is :func:`annoscore.metrics.coref.muc` (``annoscore coref``'s); with
    ``input_path``, every id must be an entity of the input.

    >>> from annoscore.samples import SAMPLES
    >>> are = SAMPLES / "are"
    >>> r = score_are_2(are / "task1-gold.xml", are / "task2-system.xml")
    >>> r.counts["recall_num"], r.counts["recall_den"], r.counts["precision_den"]
    (3, 4, 5)
    """
    documents, warnings = collect_documents(gold, system, input_path)
    per_document: dict[str, Counts] = {}
    explanations = []
    unchecked = 0
    for doc in documents:
        check = _IdChecker(doc.input)
        unchecked += check.unchecked
        gold_chains, _ = _id_chains(doc.gold, check)
        system_chains, _ = _id_chains(doc.system, check)
        counts, chains = link_credits(gold_chains, system_chains)
        per_document[doc.key] = counts
        explanations.append(DocumentExplanation(doc.key, (), chains, {}))
    _unchecked_warning(unchecked, warnings)
    warnings.extend(bom_warnings(gold, system, input_path))
    return _result(2, per_document, link_scores, warnings, explanations)


def _checked_are_3(gold: Path, system: Path, *, input_path: Path | None = None) -> Result:
    """Task 3: pronoun resolution over token spans with overlap credit (see the module doc).

    >>> from annoscore.samples import SAMPLES
    >>> are = SAMPLES / "are"
    >>> r = score_are_3(are / "task3-gold.xml", are / "task3-system.xml",
    ...                 input_path=are / "task3-input.xml")
    >>> r.counts["credit_sum"], r.counts["pairs"], r.counts["pronouns"]
    (2.5, 4, 3)
    """
    if input_path is None:
        raise InputError("task 3 needs --input (the token <node> elements of the text)")
    documents, warnings = collect_documents(gold, system, input_path, needs_input=True)
    per_document: dict[str, Counts] = {}
    explanations = []
    for doc in documents:
        mentions = _Mentions(_require_input(doc, 3))
        chains, pronominal = _mention_chains(doc.gold, mentions)
        _mention_chains(doc.system, mentions)
        pairs = _mention_pairs(doc.system, mentions)
        counts, items = overlap_credits(chains, pronominal, pairs)
        per_document[doc.key] = counts
        explanations.append(DocumentExplanation(doc.key, items, None, mentions.labels))
    _task3_warnings(Counts.total(per_document.values()), warnings)
    warnings.extend(bom_warnings(gold, system, input_path))
    return _result(3, per_document, pair_scores, warnings, explanations)


def _checked_are_4(gold: Path, system: Path, *, input_path: Path | None = None) -> Result:
    """Task 4: MUC with fractional (overlap) credit over aligned token-span mentions.

    >>> from annoscore.samples import SAMPLES
    >>> are = SAMPLES / "are"
    >>> r = score_are_4(are / "task3-gold.xml", are / "task4-system.xml",
    ...                 input_path=are / "task3-input.xml")
    >>> r.counts["recall_den"], r.counts["precision_den"], round(r.scores["recall"], 4)
    (3, 4, 0.8889)
    """
    if input_path is None:
        raise InputError("task 4 needs --input (the token <node> elements of the text)")
    documents, warnings = collect_documents(gold, system, input_path, needs_input=True)
    per_document: dict[str, Counts] = {}
    explanations = []
    for doc in documents:
        mentions = _Mentions(_require_input(doc, 4))
        gold_chains, _ = _mention_chains(doc.gold, mentions)
        system_chains, _ = _mention_chains(doc.system, mentions)
        counts, chains, _alignment = fractional_muc(gold_chains, system_chains)
        per_document[doc.key] = counts
        explanations.append(DocumentExplanation(doc.key, (), chains, mentions.labels))
    warnings.extend(bom_warnings(gold, system, input_path))
    return _result(4, per_document, link_scores, warnings, explanations)


# --- the columnar way: whole corpora at once, for files of the usual layout -----------------
#
# Each task first tries :func:`_corpus`: the three sides each one file that
# :func:`annoscore.formats.are_columns.read_columns` reads as columns, holding the same
# documents in the same order.  It scores them with list, set and NumPy operations over the
# corpus and makes no object per element; at the first thing it does not handle (another
# layout, folders, documents to pair, any input error) it gives up and the task is scored the
# checked way (:func:`_checked_are_1` ...), which says what is wrong, naming file and line.  So
# both ways give the same numbers (tests compare them on random corpora); the text report's
# items are made the checked way when it asks for them.

_ID_CHAINS = ("id-chains", "empty")
_SPAN_CHAINS = ("span-chains", "empty")
_ID_PAIRS = ("id-pairs", "empty")
_SPAN_PAIRS = ("span-pairs", "empty")


@dataclass(frozen=True, slots=True)
class _Corpus:
    """The three files as columns, and the names of their documents (paired by position)."""

    keys: list[str]
    gold: ColumnFile
    system: ColumnFile
    input: ColumnFile | None


def _corpus(
    gold: Path, system: Path, input_path: Path | None, kinds: tuple[tuple[str, ...], ...]
) -> _Corpus | None:
    """The three files as columns when each is one file of the expected shape and they hold
    the same documents (by id when every one has one, else by position), in the same order."""
    paths = (gold, system, input_path)
    if any(path is not None and path.is_dir() for path in paths):
        return None
    files: list[ColumnFile | None] = []
    for path, allowed in zip(paths, kinds, strict=True):
        if path is None:
            files.append(None)
            continue
        columns = read_columns(path)
        if columns is None or columns.kind not in allowed:
            return None
        files.append(columns)
    present = [f for f in files if f is not None]
    count = len(present[0].keys)
    if not count or any(len(f.keys) != count for f in present):
        return None
    if all(key is not None for f in present for key in f.keys):
        keys = cast("list[str]", present[0].keys)
        if len(set(keys)) != count or any(f.keys != keys for f in present):
            return None
    else:
        keys = [str(position) for position in range(1, count + 1)]
    gold_columns, system_columns, input_columns = files
    assert gold_columns is not None and system_columns is not None
    return _Corpus(keys, gold_columns, system_columns, input_columns)


def _at(sizes: Sequence[int]) -> list[int]:
    """Where each document's items start, and the end: ``[0, s0, s0 + s1, ...]``."""
    return [0, *accumulate(sizes)]


def _chain_offsets(f: ColumnFile) -> tuple[list[int], list[int]]:
    """Where each document's chains start (in ``chain_sizes``), and each chain's members."""
    return _at(f.sizes), _at(f.chain_sizes)


def _document_chains(
    items: Sequence[T], chain_at: list[int], member_at: list[int], d: int
) -> tuple[list[Sequence[T]], Sequence[T]]:
    """Document ``d``'s chains (lists of items) and its items in order."""
    first, last = chain_at[d], chain_at[d + 1]
    chains = [items[member_at[c] : member_at[c + 1]] for c in range(first, last)]
    return chains, items[member_at[first] : member_at[last]]


def _numbered_tokens(f: ColumnFile) -> bool:
    """Whether every document's token ids are ``"1"``, ``"2"``, ... in text order."""
    expected: list[str] = []
    longest = max(f.sizes, default=0)
    if len(_NUMBERS) < longest:
        _NUMBERS.extend(str(k) for k in range(len(_NUMBERS) + 1, longest + 1))
    for size in f.sizes:
        expected += _NUMBERS[:size]
    return f.tokens == expected


_POSITIONS: dict[str, int] = {}


def _token_positions(written: Sequence[str], limits: Any) -> Any:
    """The positions (0-based) of numbered token ids as written, or ``None`` when one is not a
    token of its document (``limits``: each item's document's token count).  Only ``"1"``,
    ``"2"``, ... are token ids: ``"01"`` or ``" 1"`` is none."""
    import numpy as np

    longest = int(limits.max(initial=0))
    if len(_POSITIONS) < longest:
        _NUMBERS.extend(str(k) for k in range(len(_NUMBERS) + 1, longest + 1))
        _POSITIONS.update(zip(_NUMBERS[:longest], range(longest), strict=True))
    positions = np.fromiter(
        map(_POSITIONS.get, written, repeat(-1)), dtype=np.int64, count=len(written)
    )
    if len(positions) and ((positions < 0).any() or (positions >= limits).any()):
        return None
    return positions


def _mention_columns(
    starts: Sequence[str], ends: Sequence[str], limits: Any
) -> tuple[Any, Any] | None:
    """First and last token positions of mentions; ``None`` on any unknown token or a start
    after its end."""
    first = _token_positions(starts, limits)
    last = _token_positions(ends, limits)
    if first is None or last is None or (first > last).any():
        return None
    return first, last


def _explainer(
    checked: Callable[..., Result], gold: Path, system: Path, input_path: Path | None
) -> Callable[[], tuple[DocumentExplanation, ...]]:
    def explain() -> tuple[DocumentExplanation, ...]:
        details: AreDetails = checked(gold, system, input_path=input_path).details
        return details.explanations()

    return explain


def _fast_are_1(gold: Path, system: Path, input_path: Path) -> Result | None:
    """Task 1 the columnar way (see above); ``None``: score it the checked way."""
    corpus = _corpus(gold, system, input_path, (_ID_CHAINS, _ID_PAIRS, ("entities",)))
    if corpus is None or corpus.input is None:
        return None
    source, g, s = corpus.input, corpus.gold, corpus.system
    if not all(source.has_list) or 0 in source.sizes:
        return None  # derived lists, unchecked ids: the checked way
    entity_at, listed_at = _at(source.sizes), _at(source.listed_sizes)
    chain_at, member_at = _chain_offsets(g)
    pair_at = _at(s.sizes)
    per_document: dict[str, Counts] = {}
    for d, key in enumerate(corpus.keys):
        listed = source.listed[listed_at[d] : listed_at[d + 1]]
        asked = set(listed)
        known = set(source.entities[entity_at[d] : entity_at[d + 1]]) | asked
        chains, members = _document_chains(g.members, chain_at, member_at, d)
        marks = g.marks[member_at[chain_at[d]] : member_at[chain_at[d + 1]]]
        pairs = cast("list[tuple[str, str]]", s.pairs[pair_at[d] : pair_at[d + 1]])
        if (
            len(asked) != len(listed)
            or len(set(members)) != len(members)
            or not known.issuperset(members)
            or not known.issuperset(chain_items.from_iterable(pairs))
        ):
            return None
        pronominal = set(compress(members, marks)) | asked
        per_document[key] = success_counts(listed, chains, pronominal, pairs)
    warnings: list[ScoreWarning] = []
    _task1_warnings(Counts.total(per_document.values()), 0, warnings)
    warnings.extend(bom_warnings(gold, system, input_path))
    explain = _explainer(_checked_are_1, gold, system, input_path)
    return _result(1, per_document, success_scores, warnings, explain)


def _fast_are_2(gold: Path, system: Path, input_path: Path | None) -> Result | None:
    """Task 2 the columnar way: MUC over the corpus with NumPy (see above)."""
    import numpy as np

    corpus = _corpus(gold, system, input_path, (_ID_CHAINS, _ID_CHAINS, ("entities",)))
    if corpus is None:
        return None
    documents = np.arange(len(corpus.keys))
    sides = []
    for f in (corpus.gold, corpus.system):
        chain_document = np.repeat(documents, f.sizes)
        sizes = np.array(f.chain_sizes, dtype=np.int64)
        member_chain = np.repeat(np.arange(len(sizes)), sizes)
        keys = list(zip(chain_document[member_chain].tolist(), f.members, strict=True))
        if len(set(keys)) != len(keys):
            return None
        sides.append((chain_document, sizes, member_chain, keys))
    if corpus.input is not None:
        source = corpus.input
        if 0 in source.sizes:
            return None  # unchecked ids: the checked way
        known = set(zip(np.repeat(documents, source.sizes).tolist(), source.entities, strict=True))
        known.update(
            zip(np.repeat(documents, source.listed_sizes).tolist(), source.listed, strict=True)
        )
        if not (known.issuperset(sides[0][3]) and known.issuperset(sides[1][3])):
            return None
    (gold_document, gold_sizes, gold_chain, gold_keys) = sides[0]
    (system_document, system_sizes, system_chain, system_keys) = sides[1]
    owner = dict(zip(gold_keys, gold_chain.tolist(), strict=True))
    match = np.fromiter(
        map(owner.get, system_keys, repeat(-1)), dtype=np.int64, count=len(system_keys)
    )
    hit = match >= 0
    size = len(corpus.keys)
    common = np.bincount(system_document[system_chain[hit]], minlength=size)
    width = max(len(system_sizes), 1)
    shared_pairs = np.unique(match[hit] * width + system_chain[hit])
    shared = np.bincount(gold_document[shared_pairs // width], minlength=size)
    numerator = common - shared
    columns = {
        "recall_num": numerator,
        "recall_den": _links(gold_document, gold_sizes, size),
        "precision_num": numerator,
        "precision_den": _links(system_document, system_sizes, size),
    }
    matrix = CountMatrix.from_columns(corpus.keys, columns, integer=columns)
    warnings = bom_warnings(gold, system, input_path)
    explain = _explainer(_checked_are_2, gold, system, input_path)
    return _result(2, matrix, link_scores, warnings, explain)


def _links(chain_document: Any, sizes: Any, documents: int) -> Any:
    """Σ (|chain| - 1) over each document's non-empty chains (MUC's denominators)."""
    import numpy as np

    return np.bincount(
        chain_document, weights=np.maximum(sizes - 1, 0), minlength=documents
    ).astype(np.int64)


def _fast_are_3(gold: Path, system: Path, input_path: Path) -> Result | None:
    """Task 3 the columnar way (see above)."""
    import numpy as np

    corpus = _corpus(gold, system, input_path, (_SPAN_CHAINS, _SPAN_PAIRS, ("tokens",)))
    if corpus is None or corpus.input is None or not _numbered_tokens(corpus.input):
        return None
    tokens = np.array(corpus.input.sizes, dtype=np.int64)
    documents = np.arange(len(corpus.keys))
    g, s = corpus.gold, corpus.system
    member_document = np.repeat(np.repeat(documents, g.sizes), g.chain_sizes)
    mentions = _mention_columns(g.members, g.ends, tokens[member_document])
    pair_limits = tokens[np.repeat(documents, s.sizes)]
    columns = list(zip(*s.pairs, strict=True)) if s.pairs else [(), (), (), ()]
    pronouns = _mention_columns(columns[0], columns[1], pair_limits)
    antecedents = _mention_columns(columns[2], columns[3], pair_limits)
    if mentions is None or pronouns is None or antecedents is None:
        return None
    spans = list(zip(mentions[0].tolist(), mentions[1].tolist(), strict=True))
    pairs = list(
        zip(
            zip(pronouns[0].tolist(), pronouns[1].tolist(), strict=True),
            zip(antecedents[0].tolist(), antecedents[1].tolist(), strict=True),
            strict=True,
        )
    )
    chain_at, member_at = _chain_offsets(g)
    pair_at = _at(s.sizes)
    per_document: dict[str, Counts] = {}
    for d, key in enumerate(corpus.keys):
        chains, members = _document_chains(spans, chain_at, member_at, d)
        if len(set(members)) != len(members):
            return None
        marks = g.marks[member_at[chain_at[d]] : member_at[chain_at[d + 1]]]
        counts, _ = overlap_credits(
            chains, set(compress(members, marks)), pairs[pair_at[d] : pair_at[d + 1]]
        )
        per_document[key] = counts
    warnings: list[ScoreWarning] = []
    _task3_warnings(Counts.total(per_document.values()), warnings)
    warnings.extend(bom_warnings(gold, system, input_path))
    explain = _explainer(_checked_are_3, gold, system, input_path)
    return _result(3, per_document, pair_scores, warnings, explain)


def _fast_are_4(gold: Path, system: Path, input_path: Path) -> Result | None:
    """Task 4 the columnar way: the alignment and the fractional MUC with NumPy (see above)."""
    import numpy as np

    corpus = _corpus(gold, system, input_path, (_SPAN_CHAINS, _SPAN_CHAINS, ("tokens",)))
    if corpus is None or corpus.input is None or not _numbered_tokens(corpus.input):
        return None
    tokens = np.array(corpus.input.sizes, dtype=np.int64)
    size = len(corpus.keys)
    documents = np.arange(size)
    sides = []
    width = int(tokens.max(initial=0)) + 1
    for f in (corpus.gold, corpus.system):
        chain_document = np.repeat(documents, f.sizes)
        sizes = np.array(f.chain_sizes, dtype=np.int64)
        chain = np.repeat(np.arange(len(sizes)), sizes)
        document = chain_document[chain]
        mentions = _mention_columns(f.members, f.ends, tokens[document])
        if mentions is None:
            return None
        first, last = mentions
        code = (document * width + first) * width + last
        if len(np.unique(code)) != len(code):
            return None  # a mention twice on one side
        sides.append((chain_document, sizes, chain, document, first, last))
    gold_side, system_side = sides
    rows, cols, weights = _overlapping_pairs(gold_side, system_side, width)
    matched_rows, matched_cols, matched_weights = _alignment(
        rows, cols, weights, gold_side, system_side
    )
    # parts: (gold chain, system chain) of the aligned pairs; each earns (n - 1) x mean w,
    # with the sums in the order of the checked way (smallest first)
    system_chains = max(len(system_side[1]), 1)
    part = gold_side[2][matched_rows] * system_chains + system_side[2][matched_cols]
    order = np.lexsort((matched_weights, part))
    part_codes, part_index, part_sizes = np.unique(
        part[order], return_inverse=True, return_counts=True
    )
    part_sums = np.bincount(part_index, weights=matched_weights[order])
    several = part_sizes > 1
    n = part_sizes[several].astype(np.float64)
    terms = (n - 1) * part_sums[several] / n
    term_document = gold_side[0][part_codes[several] // system_chains]
    order = np.lexsort((terms, term_document))
    numerator = np.bincount(term_document[order], weights=terms[order], minlength=size)
    columns = {
        "recall_num": numerator,
        "recall_den": _links(gold_side[0], gold_side[1], size),
        "precision_num": numerator,
        "precision_den": _links(system_side[0], system_side[1], size),
        "aligned": np.bincount(gold_side[3][matched_rows], minlength=size),
        "gold_mentions": np.bincount(gold_side[3], minlength=size),
        "system_mentions": np.bincount(system_side[3], minlength=size),
    }
    whole = ("recall_den", "precision_den", "aligned", "gold_mentions", "system_mentions")
    matrix = CountMatrix.from_columns(corpus.keys, columns, integer=whole)
    warnings = bom_warnings(gold, system, input_path)
    explain = _explainer(_checked_are_4, gold, system, input_path)
    return _result(4, matrix, link_scores, warnings, explain)


def _overlapping_pairs(gold: tuple[Any, ...], system: tuple[Any, ...], width: int) -> Any:
    """Every (gold mention, system mention, overlap) of one document with overlap > 0, over
    the corpus: :func:`annoscore.align.are.overlapping_pairs`' sweep, with arrays."""
    import numpy as np

    _, _, _, gold_document, gold_first, gold_last = gold
    _, _, _, system_document, system_first, system_last = system
    order = np.lexsort((system_first, system_document))
    sorted_keys = system_document[order] * width + system_first[order]
    reach = int((system_last - system_first).max(initial=0))
    low = np.searchsorted(sorted_keys, gold_document * width + gold_first - reach, "left")
    high = np.searchsorted(sorted_keys, gold_document * width + gold_last, "right")
    counts = high - low
    rows = np.repeat(np.arange(len(gold_first)), counts)
    steps = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    cols = order[np.repeat(low, counts) + steps]
    keep = (system_document[cols] == gold_document[rows]) & (system_last[cols] >= gold_first[rows])
    rows, cols = rows[keep], cols[keep]
    shared = np.minimum(gold_last[rows], system_last[cols]) - np.maximum(
        gold_first[rows], system_first[cols]
    )
    longest = np.maximum(gold_last[rows] - gold_first[rows], system_last[cols] - system_first[cols])
    return rows, cols, (shared + 1) / (longest + 1)


def _alignment(
    rows: Any, cols: Any, weights: Any, gold: tuple[Any, ...], system: tuple[Any, ...]
) -> tuple[Any, Any, Any]:
    """:func:`annoscore.align.are.align_mentions` over the corpus: a pair of mentions that
    overlap only each other is matched at once; each document's other pairs go to the
    project's optimal assignment, keyed by the mentions (so the choice among optimal
    alignments is the checked way's)."""
    import numpy as np

    gold_document, gold_first, gold_last = gold[3], gold[4], gold[5]
    system_first, system_last = system[4], system[5]
    alone = (np.bincount(rows, minlength=len(gold_first))[rows] == 1) & (
        np.bincount(cols, minlength=len(system_first))[cols] == 1
    )
    matched_rows, matched_cols = [rows[alone]], [cols[alone]]
    rest = ~alone
    if rest.any():
        rest_rows, rest_cols, rest_weights = rows[rest], cols[rest], weights[rest]
        rest_documents = gold_document[rest_rows]
        for d in np.unique(rest_documents).tolist():
            inside = rest_documents == d
            edge_rows, edge_cols = rest_rows[inside].tolist(), rest_cols[inside].tolist()
            gold_of = {(gold_first[i], gold_last[i]): i for i in edge_rows}
            system_of = {(system_first[j], system_last[j]): j for j in edge_cols}
            chosen = max_weight_matching(
                (
                    (int(gold_first[i]), int(gold_last[i])),
                    (int(system_first[j]), int(system_last[j])),
                    w,
                )
                for i, j, w in zip(edge_rows, edge_cols, rest_weights[inside].tolist(), strict=True)
            )
            matched_rows.append(np.array([gold_of[g] for g, _ in chosen], dtype=np.int64))
            matched_cols.append(np.array([system_of[s] for _, s in chosen], dtype=np.int64))
    found_rows = np.concatenate(matched_rows)
    found_cols = np.concatenate(matched_cols)
    shared = np.minimum(gold_last[found_rows], system_last[found_cols]) - np.maximum(
        gold_first[found_rows], system_first[found_cols]
    )
    longest = np.maximum(
        gold_last[found_rows] - gold_first[found_rows],
        system_last[found_cols] - system_first[found_cols],
    )
    return found_rows, found_cols, (shared + 1) / (longest + 1)


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
