"""The warnings of ``annoscore spans`` on chunks of two single files, pooled as one run makes
them (:mod:`annoscore.scale`): PubTator files (cut by :func:`~annoscore.scale.split_lines`),
JSON Lines files (cut by :func:`~annoscore.scale.cut_json.split_json_lines`) and BioC files (cut by
:mod:`annoscore.scale.cut_xml`).

One run's warnings, in order: what the readers said of each file (gold's, then the system's:
the format recognised, the same in every chunk; Prodigy lines left out, added up), the options
with no effect (the same in every chunk), the unpaired documents of each side (counts added,
the first five ids in sorted order), the readers' warnings about documents (the first three in
full, in the order one run lists the documents, then how many more), in ``concepts`` mode a
side without any concept id, the repeated mentions (counts added), and the paired documents
whose texts differ (counts added, the first examples in order of the ids).  Each chunk keeps what
its own warnings cannot show (:class:`Kept`: each side's first three document warnings with
their document ids, their number, and in ``concepts`` mode each side's mentions and whether
any carries an id).  A warning of another kind makes the input be scored in one run.
"""

from __future__ import annotations

import heapq
import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annoscore.align.documents import text_warnings
from annoscore.formats.annotations import left_out
from annoscore.formats.brat_model import AnnFile
from annoscore.model import AnnotatedDocument
from annoscore.score_warnings import EXAMPLES_SHOWN, ScoreWarning, note

READER_SHOWN = 3
"""The documents' reader warnings one run shows in full
(:func:`~annoscore.formats.brat.reader_warnings`)."""

UNPAIRED = ("documents.gold-only", "documents.system-only")

_SKIPPED = re.compile(r"(.*): (\d+) line\(s\) left out \(answer not ([a-z ]+)\)", re.DOTALL)
_RECOGNISED = re.compile(r"(.*): read as \S+ \(recognised from .*\)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a chunk: how many reader warnings its documents have, the first
    :data:`READER_SHOWN` of them in one run's order with their document ids, and (``concepts``
    mode) its mentions and whether any of them carries a concept id."""

    total: int
    firsts: tuple[tuple[str, str], ...]
    mentions: int = 0
    identified: bool = False


@dataclass(frozen=True, slots=True)
class Kept:
    """What a chunk keeps for the pooling (:func:`annoscore.scale.keep`); ``texts``: how many
    paired documents carry texts that differ, and the first :data:`~annoscore.result.
    EXAMPLES_SHOWN` of them (id, example) in order of their ids."""

    paths: tuple[str, str]
    sides: tuple[Side, Side]
    concepts: bool
    texts: tuple[int, tuple[tuple[str, str], ...]] = (0, ())


def kept(
    gold: str,
    system: str,
    gold_docs: Mapping[str, object],
    system_docs: Mapping[str, object],
    concepts: bool,
    rule: str,
) -> Kept | None:
    """The :class:`Kept` of a chunk's documents (``None``: documents that are neither the
    reader's document objects nor its columns, which a file of lines never gives; columns are
    documents without reader warnings: the column readers keep the others as objects)."""
    from annoscore.align.documents import differing_texts, pair_documents
    from annoscore.metrics.concepts import concept_items

    docs = (gold_docs, system_docs)
    if concepts:  # every document of a side, in the order read
        orders: tuple[list[str], list[str]] = (list(gold_docs), list(system_docs))
    else:  # the documents scored, sorted by id
        scored = pair_documents(
            gold_docs,
            system_docs,
            gold_only=rule,  # type: ignore[arg-type]
            system_only=rule,  # type: ignore[arg-type]
            sort=True,
        ).scored
        orders = ([d for d in scored if d in gold_docs], [d for d in scored if d in system_docs])
    sides: list[Side] = []
    for side, order in zip(docs, orders, strict=True):
        total, firsts = 0, list[tuple[str, str]]()
        for name in order:
            document = side[name]
            if isinstance(document, AnnFile):  # columns: a document without reader warnings
                continue
            if not isinstance(document, AnnotatedDocument):
                return None
            total += len(document.warnings)
            firsts += [(name, w) for w in document.warnings[: READER_SHOWN - len(firsts)]]
        mentions = identified = 0
        if concepts:
            models = [
                d if isinstance(d, AnnotatedDocument) else d.document()
                for d in side.values()
                if isinstance(d, AnnotatedDocument | AnnFile)
            ]
            mentions = sum(len(d.mentions) for d in models)
            identified = any(concept_items(d) for d in models)
        sides.append(Side(total, tuple(firsts), mentions, bool(identified)))
    # documents of the reader (checked above): their texts compared as one run compares them
    both = [(d, gold_docs[d], system_docs[d]) for d in gold_docs if d in system_docs]
    differing = differing_texts(both)  # type: ignore[arg-type]
    texts = (len(differing), tuple(differing[:EXAMPLES_SHOWN]))
    return Kept((gold, system), (sides[0], sides[1]), concepts, texts)


def pooled(
    options: Any, warned: Sequence[Sequence[ScoreWarning]], kept: Sequence[tuple[Any, ...]]
) -> list[ScoreWarning | str] | None:
    """One run's warnings of the chunks' (``warned``, in chunk order) and what each kept; the
    module doc gives the order.  ``None`` when a chunk kept nothing or warned of another
    kind."""
    materials = [k[0] for k in kept if len(k) == 1 and isinstance(k[0], Kept)]
    if not materials or len(materials) != len(kept):
        return None
    gold_path, system_path = materials[0].paths
    skipped = {gold_path: 0, system_path: 0}
    recognised: dict[str, list[str]] = {}
    infon: list[ScoreWarning] | None = None
    unpaired: dict[str, tuple[str, int, list[str]]] = {}
    repeated: tuple[str, int] | None = None
    unidentified: dict[str, str] = {}
    differ = 0
    for warnings in warned:
        options_warnings = []
        for w in warnings:
            if w.code == "format.read":
                found = _SKIPPED.fullmatch(w.message) or _RECOGNISED.fullmatch(w.message)
                if found is None or found[1] not in skipped or w.count != 1:
                    return None
                if found.re is _RECOGNISED:  # the same in every chunk (the whole file's head)
                    recognised.setdefault(found[1], []).append(w.message)
                else:
                    skipped[found[1]] += int(found[2])
            elif w.code in ("spans.infon-unused", "spans.option-unused"):
                options_warnings.append(w)
            elif w.code in UNPAIRED:
                message, count, examples = unpaired.get(w.code, (w.message, 0, []))
                if message != w.message:
                    return None
                unpaired[w.code] = (message, count + w.count, [*examples, *w.examples])
            elif w.code == "spans.duplicates":
                if repeated is not None and repeated[0] != w.message:
                    return None
                repeated = (w.message, w.count + (repeated[1] if repeated else 0))
            elif w.code.startswith("spans.no-concept-ids-"):
                unidentified[w.code] = w.message
            elif w.code == "spans.text-differs":
                differ += w.count
            elif w.code != "note":  # notes: the readers' warnings about documents, kept apart
                return None
        if infon is None:
            infon = options_warnings
        elif infon != options_warnings:
            return None
    out: list[ScoreWarning | str] = []
    for path, count in skipped.items():
        said = recognised.get(path, [])
        if said:
            if len(said) != len(warned) or len(set(said)) != 1:
                return None
            out.append(note(said[0], "format.read"))
        if count:
            out.append(note(left_out(path, count, options.answers), "format.read"))
    out += infon or []
    for code in UNPAIRED:
        if code in unpaired:
            message, count, examples = unpaired[code]
            out.append(ScoreWarning(code, message, count, tuple(sorted(examples))[:5]))
    out += _reader_warnings(materials)
    if materials[0].concepts:
        for n, name in enumerate(("gold", "system")):
            mentions = sum(m.sides[n].mentions for m in materials)
            code = f"spans.no-concept-ids-{name}"
            if mentions and not any(m.sides[n].identified for m in materials):
                if code not in unidentified:
                    return None
                out.append(ScoreWarning(code, unidentified[code], mentions))
    if repeated is not None:
        out.append(ScoreWarning("spans.duplicates", repeated[0], repeated[1]))
    if differ != sum(m.texts[0] for m in materials):
        return None
    firsts = heapq.merge(*(m.texts[1] for m in materials), key=lambda item: item[0])
    out += text_warnings([*itertools.islice(firsts, EXAMPLES_SHOWN)], differ)
    return out


def _reader_warnings(materials: Sequence[Kept]) -> list[str]:
    """The documents' reader warnings of one run: the first :data:`READER_SHOWN` of the gold
    side's then the system side's, in one run's order of the documents (sorted by id, or in
    ``concepts`` mode as read: the chunks' order), then how many more."""
    found: list[str] = []
    for n in (0, 1):
        lists = [m.sides[n].firsts for m in materials]
        if materials[0].concepts:
            found += [w for firsts in lists for _, w in firsts]
        else:
            found += [w for _, w in heapq.merge(*lists, key=lambda item: item[0])]
    total = sum(side.total for m in materials for side in m.sides)
    if total > READER_SHOWN:
        return [*found[:READER_SHOWN], f"... and {total - READER_SHOWN} more such reader warnings"]
    return found
