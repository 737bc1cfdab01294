"""MUC object alignment ("mapping") of one document at a time, for TE, TR and ST: the driver.

The last step of the MUC alignment flow, the one callers use: :class:`MucAligner` checks a
document's objects against the configuration (:meth:`MucAligner.validate`) and aligns one
document's key and response objects (:meth:`MucAligner.align`), class by class in
``:class_defs`` order, into a :class:`~annoscore.align.muc_records.DocumentAlignment`.  It builds
on the steps below it, each a module of its own:

- :mod:`annoscore.align.muc_compare`: how one key/response object pair scores, slot by slot
  (fills, alternatives, pointers, optional objects and slots; the pair's F and weighted score);
- :mod:`annoscore.align.muc_codes`: the same comparison from precomputed equality codes, with
  records remembered across equal pairs;
- :mod:`annoscore.align.muc_mapping`: which pairs of a class align (candidates above the
  threshold, greedy by F) and the leftovers;
- :mod:`annoscore.align.muc_records`: the records the metrics and reports read.

Per document, classes are aligned in ``:class_defs`` order, so a pointer compares against the
alignment of the classes before it.  The ``:template_name`` class (``TEMPLATE``) is not searched:
the document's key and response template objects are paired directly; its object row counts NON
(the manual's ST report).  For ST, the document's relevance (text filter) is whether the first
template's content slot is filled.

Cost: linear in documents; within a document and class, at most quadratic in its objects and
bounded (see :mod:`annoscore.align.muc_mapping`).  tests/equivalence/test_muc.py holds the
alignment and its tallies to a plain reference written from the manual (tests/oracles/muc.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from pathlib import Path

from annoscore.align.muc_compare import DocumentContext, document_context
from annoscore.align.muc_mapping import ClassMapping
from annoscore.align.muc_records import ClassAlignment, DocumentAlignment, ObjectPair
from annoscore.errors import InputError
from annoscore.formats.muc_config import MucConfig
from annoscore.score_warnings import ScoreWarning
from annoscore.templates import TemplateDocument, TemplateObject


class TextFilter(str, Enum):
    """How scenario template's TEXT FILTERING row counts a document
    (:meth:`MucAligner._text_filter`)."""

    agreement = "agreement"
    """The manual: one COR when key and response agree on the document's relevance, else INC."""
    relevance = "relevance"
    """The MUC-6 scorer: COR both relevant, MIS the key only, SPU the response only, NON neither."""


def _by_class(objects: Sequence[TemplateObject]) -> dict[str, list[TemplateObject]]:
    """The objects of each class (lower-case name), in order."""
    grouped: dict[str, list[TemplateObject]] = {}
    for obj in objects:
        members = grouped.get(obj.class_name)
        if members is None:
            members = grouped[obj.class_name] = []
        members.append(obj)
    out = {name.lower(): members for name, members in grouped.items()}
    if len(out) < len(grouped):  # a class written in two cases: one list, in file order
        out = {}
        for obj in objects:
            out.setdefault(obj.class_name.lower(), []).append(obj)
    return out


class MucAligner(ClassMapping):
    """Aligns and compares the objects of one document at a time (see the module docstring)."""

    def __init__(self, config: MucConfig, text_filter: TextFilter = TextFilter.agreement) -> None:
        """``text_filter``: how ST counts a document's relevance (:class:`TextFilter`)."""
        super().__init__(config)
        self.text_filter_mode = TextFilter(text_filter)
        self.warnings: list[str | ScoreWarning] = []

    def restarted(self) -> None:
        """This aligner for another set of documents (a chunk of a run:
        :func:`~annoscore.formats.muc_config.kept_per_process`): no warnings, no pairs scored;
        what it remembers (codes, records, bands) kept, as it is for every document of one
        run (each entry holds what its key names)."""
        self.warnings = []
        self.pairs_scored = 0

    def validate(self, document: TemplateDocument) -> None:
        """Classes and slots must be defined; pointers must point to earlier classes.

        A pointer to an object the file does not have, or to a class not in ``:class_defs``, is
        scored as the manual's scorer scores it (a fill that matches nothing) and counted in a
        warning naming file and line.
        """
        path = document.path
        ids = {obj.id for obj in document.objects}
        dangling: list[str] = []
        for obj in document.objects:
            cls = obj.class_name.lower()
            if cls not in self.order:
                raise InputError(
                    f"class {obj.class_name} of <{obj.id}> is not in :class_defs", path, obj.line
                )
            names = self.slot_names[cls]
            for slot in obj.slots:
                if slot.name.lower() not in names:
                    raise InputError(
                        f"slot {slot.name} of class {obj.class_name} is not in :slot_defs",
                        path,
                        slot.line,
                    )
                for fill in (f for alternative in slot.alternatives for f in alternative):
                    if not fill.is_pointer:
                        continue
                    target = fill.text.split("-", 1)[0].lower()
                    if fill.text not in ids:
                        dangling.append(f"{path}:{fill.line} <{fill.text}>")
                    if target in self.order and self.order[target] >= self.order[cls]:
                        raise InputError(
                            f"<{fill.text}> points to class {target}, which :class_defs lists "
                            f"at or after {obj.class_name}; list pointed-to classes first",
                            path,
                            fill.line,
                        )
        if dangling:
            self.warnings.append(
                ScoreWarning(
                    "muc.dangling-pointers",
                    "{count} pointer fill(s) point to an object the file does not have (or of a "
                    "class not in :class_defs); scored as fills that match nothing",
                    len(dangling),
                    tuple(dangling[:5]),
                    tolerated=True,
                )
            )

    def align(
        self, document: str, key: TemplateDocument | None, rsp: TemplateDocument | None
    ) -> DocumentAlignment:
        """Align one document's key and response objects, class by class."""
        key_objects = key.objects if key is not None else ()
        rsp_objects = rsp.objects if rsp is not None else ()
        self.document = document
        source = key if key is not None else rsp
        self.document_path = Path(source.path) if source is not None and source.path else None
        self.comparisons = self.document_pairs = 0
        ctx = document_context(key_objects, rsp_objects, self.task, self.equatable)
        by_class_k = _by_class(key_objects)
        by_class_r = _by_class(rsp_objects)
        classes: list[ClassAlignment] = []
        text_filter: str | None = None
        for definition in self.classes:
            name = definition.name.lower()
            keys = by_class_k.get(name, [])
            rsps = by_class_r.get(name, [])
            if name == self.template:
                pairs = self._align_templates(keys, rsps, ctx)
                if self.task == "scenario_template":
                    text_filter = self._text_filter(keys, rsps)
            else:
                pairs = self._align_class(definition, keys, rsps, ctx)
            classes.append(ClassAlignment(definition, pairs))
        return DocumentAlignment(document, classes, text_filter)

    def _align_templates(
        self,
        keys: list[TemplateObject],
        rsps: list[TemplateObject],
        ctx: DocumentContext,
    ) -> list[ObjectPair]:
        pairs: list[ObjectPair] = []
        several = len(keys) > 1 or len(rsps) > 1  # one on a side only: missing or spurious
        if keys and rsps:
            pair = self.compare_objects(keys[0], rsps[0], ctx)
            pair.status = "non"
            ctx.k2r[keys[0].id] = rsps[0].id
            ctx.r2k[rsps[0].id] = keys[0].id
            pairs.append(pair)
            keys, rsps = keys[1:], rsps[1:]
        if several:
            self.warnings.append(
                f"document {self.document}: more than one {self.template.upper()} object; the "
                "first of each side are paired, the others scored as missing or spurious"
            )
        pairs.extend(self.leftover(k, True, ctx) for k in keys)
        pairs.extend(self.leftover(r, False, ctx) for r in rsps)
        return pairs

    def _text_filter(self, keys: list[TemplateObject], rsps: list[TemplateObject]) -> str:
        """ST relevance of the document: the first template's content slot filled or not."""

        def relevant(objects: list[TemplateObject]) -> bool:
            if not objects:
                return False
            slot = objects[0].slot(self.content)
            return slot is not None and not slot.is_empty

        in_key, in_rsp = relevant(keys), relevant(rsps)
        if self.text_filter_mode is TextFilter.agreement:
            return "cor" if in_key == in_rsp else "inc"
        if in_key and in_rsp:
            return "cor"
        if in_key:
            return "mis"
        return "spu" if in_rsp else "non"
