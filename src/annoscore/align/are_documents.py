"""The documents of ``annoscore are``: reading the three sides once, pairing their documents,
and gathering each side's columns over the scored documents.

Files (``../shared/spec/are.md``, decision 5): ``gold``, ``system`` and ``input_path`` each name
one XML file, or each a folder of ``*.xml`` files paired by file name; one file may hold several
``<document>`` elements, paired across files by their ``id`` attribute when every one has one,
else by position (different counts: an input error).  A gold document without a system document
is scored against an empty output, a system document without a gold one against an empty gold
standard (both named in warnings).

Every file is read once (:func:`annoscore.formats.are.read_are`), a pipe too.  The result is a
:class:`Corpus`: the scored documents in order and, for each side, one :class:`Side` holding the
reader's columns of those documents, every item in document order (a document a side lacks has
no item there).  Codes that stand for names (ids that are not canonical decimals) are renumbered
over the whole corpus, so that equal codes mean equal texts across files
(:meth:`Corpus.text` gives a code's text back).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annoscore.align.documents import pair_documents
from annoscore.errors import InputError
from annoscore.formats.are import AreFile, ItemColumns, Refs, read_are
from annoscore.formats.files import bom_warning, list_folder_with_warnings
from annoscore.score_warnings import ScoreWarning


@dataclass(frozen=True, slots=True)
class Placed:
    """Document ``index`` of ``file``."""

    file: AreFile
    index: int


@dataclass(frozen=True, slots=True)
class DocumentSet:
    """One scored document: its key and where its gold, system and input documents are (any
    may be ``None``: a one-sided document is scored against an empty other side)."""

    key: str
    gold: Placed | None
    system: Placed | None
    input: Placed | None


@dataclass(frozen=True, slots=True)
class Side(ItemColumns):
    """One side (gold, system or input) of every scored document, as columns.

    Per document: ``present`` (the side has the document), ``has_list``, and ``token_sizes``,
    ``entity_sizes``, ``listed_sizes``, ``chain_counts``, ``pair_counts``.  Per item, in
    document order: the columns of :class:`~annoscore.formats.are.AreFile` (``tokens``,
    ``entities``, ``listed``, ``chain_sizes``, ``members``, ``pronominal``, ``pronouns``,
    ``antecedents``), codes renumbered corpus-wide.  Derived: ``chain_document`` (each chain's
    document), ``member_chain`` and ``member_document``, ``pair_document``, ``token_starts``
    (where each document's tokens begin).
    """

    present: Any
    has_list: Any

    @property
    def chain_document(self) -> Any:
        import numpy as np

        return np.repeat(np.arange(len(self.chain_counts)), self.chain_counts)

    @property
    def member_chain(self) -> Any:
        import numpy as np

        return np.repeat(np.arange(len(self.chain_sizes)), self.chain_sizes)

    @property
    def member_document(self) -> Any:
        return self.chain_document[self.member_chain]

    @property
    def pair_document(self) -> Any:
        import numpy as np

        return np.repeat(np.arange(len(self.pair_counts)), self.pair_counts)

    @property
    def token_starts(self) -> Any:
        import numpy as np

        starts: Any = np.cumsum(self.token_sizes) - self.token_sizes
        return starts


@dataclass(frozen=True, slots=True)
class Corpus:
    """The scored documents (``documents``, in order, with their ``keys``), each side's columns,
    the corpus-wide ``names`` (the texts of the codes below -1) and the files read (``files``:
    gold, then system, then input files)."""

    documents: tuple[DocumentSet, ...]
    gold: Side
    system: Side
    input: Side
    names: tuple[str, ...]
    files: tuple[AreFile, ...]

    @property
    def keys(self) -> list[str]:
        return [d.key for d in self.documents]

    def bom_warnings(self) -> list[ScoreWarning]:
        """The byte-order-mark warning for the files read that began with one."""
        found = [str(f.path) for f in self.files if f.bom]
        return [bom_warning(found)] if found else []


# --- reading and pairing --------------------------------------------------------------------


def _within_files(
    files: Sequence[AreFile | None], prefix: str | None
) -> list[tuple[str, list[Placed | None]]]:
    """Pair the documents of (gold, system, input) files: by id when every one has an id, else
    by position (different counts: InputError)."""
    present = [f for f in files if f is not None]
    by_id = all(key is not None for f in present for key in f.keys)
    sides: list[dict[str, Placed]] = []
    for f in files:
        docs: dict[str, Placed] = {}
        if f is not None:
            for position, document_key in enumerate(f.keys, start=1):
                key = document_key if by_id and document_key is not None else str(position)
                if key in docs:
                    raise InputError(
                        f'<document id="{key}"> appears twice in the file; document ids must be '
                        "unique",
                        f.path,
                        f.lines().documents[position - 1],
                    )
                docs[key] = Placed(f, position - 1)
        sides.append(docs)
    if not by_id:
        counts = {f.path: len(f.keys) for f in present}
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


def _read_sides(
    gold: Path, system: Path, input_path: Path | None
) -> tuple[list[tuple[str | None, list[AreFile | None]]], list[ScoreWarning]]:
    """The files of the three sides, grouped by file name in folders: ``(prefix, [gold,
    system, input])`` per name (``prefix`` ``None`` for single files), and the warnings."""
    warnings: list[ScoreWarning] = []
    if not (gold.is_dir() or system.is_dir()):
        files = [
            read_are(gold),
            read_are(system),
            None if input_path is None else read_are(input_path),
        ]
        return [(None, files)], warnings
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
    return triples, warnings


def collect_documents(
    gold: Path, system: Path, input_path: Path | None, *, needs_input: bool = False
) -> tuple[Corpus, list[ScoreWarning]]:
    """Read the three sides, pair their documents and gather their columns (see the module doc).

    With ``needs_input`` (tasks 1, 3, 4), a system document that has neither a gold nor an
    input document cannot be scored and is left out (warning).
    """
    triples, warnings = _read_sides(gold, system, input_path)
    return _collect(triples, warnings, needs_input)


def collect_files(
    gold: AreFile, system: AreFile, source: AreFile | None, *, needs_input: bool = False
) -> tuple[Corpus, list[ScoreWarning]]:
    """:func:`collect_documents` of three files already read (``source``: the input)."""
    return _collect([(None, [gold, system, source])], [], needs_input)


def _collect(
    triples: list[tuple[str | None, list[AreFile | None]]],
    warnings: list[ScoreWarning],
    needs_input: bool,
) -> tuple[Corpus, list[ScoreWarning]]:
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
    texts = (
        "gold document(s) have no system document and are scored as an empty output",
        "system document(s) have neither a gold nor an input document and are left out",
        "system document(s) have no gold document and are scored against an empty gold standard",
    )
    codes = ("documents.gold-only", "are.system-only-no-input", "documents.system-only")
    for code, ids, text in zip(codes, (gold_only, unscorable, system_only), texts, strict=True):
        if ids:
            warnings.append(ScoreWarning(code, "{count} " + text, len(ids), tuple(ids[:5])))
    read = tuple(f for side in range(3) for _, fs in triples if (f := fs[side]) is not None)
    names, renumbering = _corpus_names(read)
    gold_side, system_side, input_side = (
        _gather([getattr(d, side) for d in documents], renumbering)
        for side in ("gold", "system", "input")
    )
    corpus = Corpus(tuple(documents), gold_side, system_side, input_side, names, read)
    return corpus, warnings


# --- the columns of the scored documents ----------------------------------------------------


def _corpus_names(files: Sequence[AreFile]) -> tuple[tuple[str, ...], dict[int, Any]]:
    """The corpus-wide names and, per file with names (by ``id``), the corpus code of each of
    its own names (its code ``-2 - k`` becomes ``renumbering[k]``)."""
    import numpy as np

    index: dict[str, int] = {}
    renumbering: dict[int, Any] = {}
    for f in files:
        if f.names:
            renumbering[id(f)] = np.array(
                [-2 - index.setdefault(name, len(index)) for name in f.names], dtype=np.int64
            )
    return tuple(index), renumbering


def _renumbered(column: Any, renumber: Any | None) -> Any:

    if renumber is None or not len(column):
        return column
    named = column <= -2
    if not named.any():
        return column
    out = column.copy()
    out[named] = renumber[-2 - column[named]]
    return out


_PER_DOCUMENT = ("token_sizes", "entity_sizes", "listed_sizes", "chain_counts", "pair_counts")
_ITEMS = {  # per-item columns, and the per-document size that counts them
    "tokens": "token_sizes",
    "entities": "entity_sizes",
    "listed": "listed_sizes",
    "chain_sizes": "chain_counts",
    "pair": "pair_counts",
    "member": "member_counts",
}


def _member_counts(f: AreFile) -> Any:
    """The number of chain members in each document of a file."""
    import numpy as np

    chain_document = np.repeat(np.arange(len(f.chain_counts)), f.chain_counts)
    return np.bincount(chain_document, weights=f.chain_sizes, minlength=len(f.keys)).astype(
        np.int64
    )


def _ranges(starts: Any, sizes: Any) -> Any:
    """The indexes ``starts[k] .. starts[k] + sizes[k] - 1`` of every ``k``, in order."""
    import numpy as np

    total = int(sizes.sum())
    return np.repeat(starts - (np.cumsum(sizes) - sizes), sizes) + np.arange(total)


def _gather(placed: Sequence[Placed | None], renumbering: dict[int, Any]) -> Side:
    """One side's columns over the scored documents (``placed``: where each is, or ``None``)."""
    import numpy as np

    count = len(placed)
    present = np.array([p is not None for p in placed], dtype=bool)
    files: list[AreFile] = []
    for p in placed:
        if p is not None and all(p.file is not f for f in files):
            files.append(p.file)
    if (
        len(files) == 1
        and count == len(files[0].keys)
        and all(p is not None and p.index == d for d, p in enumerate(placed))
    ):  # the usual case: one file, every document in order
        f = files[0]
        renumber = renumbering.get(id(f))
        return Side(
            present=present,
            has_list=np.array(f.has_list, dtype=bool),
            token_sizes=f.token_sizes,
            tokens=_renumbered(f.tokens, renumber),
            entity_sizes=f.entity_sizes,
            entities=_renumbered(f.entities, renumber),
            listed_sizes=f.listed_sizes,
            listed=_renumbered(f.listed, renumber),
            chain_counts=f.chain_counts,
            chain_sizes=f.chain_sizes,
            members=Refs(*(_renumbered(c, renumber) for c in f.members)),
            pronominal=f.pronominal,
            pair_counts=f.pair_counts,
            pronouns=Refs(*(_renumbered(c, renumber) for c in f.pronouns)),
            antecedents=Refs(*(_renumbered(c, renumber) for c in f.antecedents)),
        )
    # several files, or documents in another order: every column gathered document by document
    sizes: dict[str, list[Any]] = {name: [] for name in (*_PER_DOCUMENT, "member_counts")}
    columns: dict[str, list[Any]] = {
        name: [] for name in ("tokens", "entities", "listed", "chain_sizes", "pronominal")
    }
    refs: dict[str, list[list[Any]]] = {
        name: [[], [], []] for name in ("members", "pronouns", "antecedents")
    }
    bases = {name: 0 for name in _ITEMS}
    file_bases: dict[int, dict[str, int]] = {}
    file_starts: dict[int, dict[str, Any]] = {}
    file_sizes: dict[int, dict[str, list[int]]] = {}
    for f in files:
        file_bases[id(f)] = dict(bases)
        per_document = {name: getattr(f, name) for name in _PER_DOCUMENT}
        per_document["member_counts"] = _member_counts(f)
        file_sizes[id(f)] = {name: c.tolist() for name, c in per_document.items()}
        file_starts[id(f)] = {}
        for item, size in _ITEMS.items():
            counts = per_document[size]
            file_starts[id(f)][item] = np.cumsum(counts) - counts
            bases[item] += int(counts.sum())
        renumber = renumbering.get(id(f))
        for name in ("tokens", "entities", "listed"):
            columns[name].append(_renumbered(getattr(f, name), renumber))
        columns["chain_sizes"].append(f.chain_sizes)
        columns["pronominal"].append(f.pronominal)
        for name in refs:
            for k, column in enumerate(getattr(f, name)):
                refs[name][k].append(_renumbered(column, renumber))
    has_list = np.zeros(count, dtype=bool)
    starts: dict[str, list[int]] = {item: [] for item in _ITEMS}
    for d, p in enumerate(placed):
        for name in sizes:
            if p is None:
                sizes[name].append(0)
        if p is None:
            for item in _ITEMS:
                starts[item].append(0)
            continue
        f, k = p.file, p.index
        has_list[d] = f.has_list[k]
        for name, values in file_sizes[id(f)].items():
            sizes[name].append(values[k])
        for item in _ITEMS:
            starts[item].append(file_bases[id(f)][item] + int(file_starts[id(f)][item][k]))
    size_arrays = {name: np.array(values, dtype=np.int64) for name, values in sizes.items()}

    def take(parts: list[Any], item: str, dtype: Any = np.int64) -> Any:
        whole = np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
        index = _ranges(np.array(starts[item], dtype=np.int64), size_arrays[_ITEMS[item]])
        return whole[index].astype(dtype, copy=False)

    return Side(
        present=present,
        has_list=has_list,
        token_sizes=size_arrays["token_sizes"],
        tokens=take(columns["tokens"], "tokens"),
        entity_sizes=size_arrays["entity_sizes"],
        entities=take(columns["entities"], "entities"),
        listed_sizes=size_arrays["listed_sizes"],
        listed=take(columns["listed"], "listed"),
        chain_counts=size_arrays["chain_counts"],
        chain_sizes=take(columns["chain_sizes"], "chain_sizes"),
        members=Refs(*(take(c, "member") for c in refs["members"])),
        pronominal=take(columns["pronominal"], "member", bool),
        pair_counts=size_arrays["pair_counts"],
        pronouns=Refs(*(take(c, "pair") for c in refs["pronouns"])),
        antecedents=Refs(*(take(c, "pair") for c in refs["antecedents"])),
    )


def item_starts(f: AreFile, index: int) -> dict[str, int]:
    """Where document ``index`` of a file begins in each of its item columns (``tokens``,
    ``entities``, ``listed``, ``chains``, ``members``, ``pairs``)."""
    import numpy as np

    def before(sizes: Any) -> int:
        return int(np.sum(sizes[:index]))

    chains = before(f.chain_counts)
    return {
        "tokens": before(f.token_sizes),
        "entities": before(f.entity_sizes),
        "listed": before(f.listed_sizes),
        "chains": chains,
        "members": int(np.sum(f.chain_sizes[:chains])),
        "pairs": before(f.pair_counts),
    }
