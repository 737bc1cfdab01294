"""Reading and pairing the documents of ``annoscore are`` the checked way, and turning their
references into what the metrics compare: ids (tasks 1, 2) and mentions as token positions
(tasks 3, 4).

Files (decision 5): ``gold``, ``system`` and ``input_path`` each name one XML file, or each a
folder of ``*.xml`` files paired by file name; one file may hold several ``<document>``
elements, paired across files by their ``id`` attribute when every one has one, else by
position.  A gold document without a system document is scored against an empty output, a
system document without a gold one against an empty gold standard (both named in warnings).

Input errors (:class:`~annoscore.errors.InputError`, naming file, line and element): a member,
pronoun or antecedent without its id (tasks 1-2) or its start and end (tasks 3-4), an id that is
not an entity of the input, a start or end that is not a token node of the input, a start after
its end, an id or mention twice in one chain or in two chains of one side.  Mentions are
``(first, last)`` token positions of the input (inclusive), counted in the order of its
``<node>`` elements, never by id arithmetic (decision 8).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar, cast

from annoscore.align.documents import pair_documents
from annoscore.errors import InputError
from annoscore.formats.are import AreDocument, AreFile, Ref, read_are
from annoscore.formats.files import list_folder_with_warnings
from annoscore.result import ScoreWarning

M = TypeVar("M", bound=Hashable)
"""A chain member: an id or a mention."""


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


def require_input(doc: DocumentSet, task: int) -> Located:
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


def ref_id(path: Path, ref: Ref, what: str) -> str:
    if ref.id is None:
        raise InputError(
            f"<{ref.element}> {what} has no id attribute (tasks 1 and 2 refer to entities by id)",
            path,
            ref.line,
        )
    return ref.id


class IdChecker:
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


def id_chains(located: Located | None, check: IdChecker) -> tuple[list[list[str]], set[str]]:
    """A side's chains as lists of ids, and the ids marked ``type="pronoun"``.

    The usual case takes one pass per chain; any problem (a member without an id, an id the
    input does not know, an id twice) is found again by :func:`checked_id_chains`, which says
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
        return checked_id_chains(located, check)
    return cast("list[list[str]]", chains), cast("set[str]", set(pronouns))


def checked_id_chains(located: Located, check: IdChecker) -> tuple[list[list[str]], set[str]]:
    """:func:`id_chains` member by member: raises the error that says what and where."""
    known = check.known

    def member(path: Path, ref: Ref) -> str:
        value = ref.id
        if value is None or (known is not None and value not in known):  # say why
            value = check(path, ref, ref_id(path, ref, "in a <chain>"))
        return value

    def repeated(ref: Ref, value: str, line: int) -> str:
        return (
            f'<{ref.element} id="{value}">: id {value} is already in the chain of line {line}; '
            "an id may appear once in one chain and in one chain only"
        )

    return _checked_chains(located, member, repeated)


def id_pairs(located: Located | None, check: IdChecker) -> list[tuple[str, str]]:
    if located is None:
        return []
    path = located.path
    return [
        (
            check(path, pair.pronoun, ref_id(path, pair.pronoun, "in a <pair>")),
            check(path, pair.antecedent, ref_id(path, pair.antecedent, "in a <pair>")),
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


class Mentions:
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


def mention_chains(
    located: Located | None, mentions: Mentions
) -> tuple[list[list[Mention]], set[Mention]]:
    """A side's chains as lists of mentions, and the mentions marked ``type="pronoun"``.

    The usual case takes one pass per chain; any problem (an unknown token, a start after its
    end, a mention twice) is found again by :func:`checked_mention_chains`, which says where.
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
        return checked_mention_chains(located, mentions)
    return cast("list[list[Mention]]", chains), cast("set[Mention]", set(pronouns))


def checked_mention_chains(
    located: Located, mentions: Mentions
) -> tuple[list[list[Mention]], set[Mention]]:
    """:func:`mention_chains` member by member: raises the error that says what and where."""

    def repeated(ref: Ref, _: Mention, line: int) -> str:
        return (
            f'<{ref.element} start="{ref.start}" end="{ref.end}">: this mention is already in '
            f"the chain of line {line}; a mention may appear once in one chain and in one chain "
            "only"
        )

    return _checked_chains(located, mentions, repeated)


def _checked_chains(
    located: Located,
    member: Callable[[Path, Ref], M],
    repeated: Callable[[Ref, M, int], str],
) -> tuple[list[list[M]], set[M]]:
    """The chains of a document, each member made by ``member`` (which raises for a bad
    reference), and the pronominal members; a member in two places is an error, its message
    ``repeated(ref, member, line of the chain that has it first)``."""
    chains: list[list[M]] = []
    pronominal: set[M] = set()
    seen: dict[M, int] = {}
    for chain in located.document.chains:
        members = []
        for ref in chain.members:
            value = member(located.path, ref)
            if value in seen:
                raise InputError(repeated(ref, value, seen[value]), located.path, ref.line)
            seen[value] = chain.line
            members.append(value)
            if ref.pronoun:
                pronominal.add(value)
        chains.append(members)
    return chains, pronominal


def mention_pairs(located: Located | None, mentions: Mentions) -> list[tuple[Mention, Mention]]:
    if located is None:
        return []
    path = located.path
    return [
        (mentions(path, pair.pronoun), mentions(path, pair.antecedent))
        for pair in located.document.pairs
    ]


def pronouns_to_resolve(
    input_doc: Located,
    gold: Located | None,
    chains: Sequence[Sequence[str]],
    marked: set[str],
    check: IdChecker,
) -> list[str]:
    """Task 1's pronouns to resolve: the input's ``<anaphoric_pronouns>`` in order (each id
    checked, none twice); without that list, the gold's ``type="pronoun"`` members of chains of
    two or more (``chains`` and ``marked``: the gold's, from :func:`id_chains`).  Neither: an
    :class:`~annoscore.errors.InputError`."""
    if input_doc.document.has_list:
        listed: list[str] = []
        seen: set[str] = set()
        for ref in input_doc.document.listed:
            value = check(input_doc.path, ref, ref_id(input_doc.path, ref, "in the list"))
            if value in seen:
                raise InputError(
                    f'<pronoun id="{value}"> is listed twice in <anaphoric_pronouns>',
                    input_doc.path,
                    ref.line,
                )
            seen.add(value)
            listed.append(value)
        return listed
    if gold is not None and any(r.pronoun for c in gold.document.chains for r in c.members):
        return [m for chain in chains if len(chain) > 1 for m in chain if m in marked]
    raise InputError(
        "task 1 needs the pronouns to resolve: the input has no <anaphoric_pronouns> "
        'and the gold marks no <node type="pronoun">',
        input_doc.path,
        input_doc.document.line,
    )
