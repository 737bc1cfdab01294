"""PharmaCoNER scoring, written from ``pharmaconer.md`` and the issues that corrected it (24),
one document and one item at a time.

NER: a document is the **set** of its ``(type, fragments)`` entities, read as the official
script reads them (:func:`tests.oracles.brat.read`, ``official=True``; the plain script reads
every file of a system folder, files of one name one document).  Indexing: the set of codes of
its TSV rows (a line's trailing whitespace removed, the rest compared as written).

Documents found on one side only (``missing``): ``official`` is the script's rule (plain: a
gold document without a system file is scored, all its items missed, and a system document
without gold is left out; CodaLab: both left out); ``ignore`` leaves both out, ``count`` scores
both against nothing.  Per document: tp = |G & S|, fp = |S - G|, fn = |G - S|, each item also
under its own type; ``documents`` = 1.  Micro P/R/F1 over the scored documents, 0.0 on a zero
denominator (the official scripts) or undefined (``undefined="null"``); either way a warning
(``undefined``) names the corpus scores the rule leaves undefined (design.md).

CodaLab: UNCLEAR entities are removed from both sides (NER); a gold code is dropped when every
mention it normalises (``AnnotatorNotes`` of the gold ``.ann`` of the document the TSV row
names) is UNCLEAR (indexing).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from tests.oracles import brat

UNCLEAR = "UNCLEAR"


@dataclass
class Outcome:
    """What scoring gives: per-document counts (nonzero, ``type:NAME:stat`` included), warning
    counts by code, and the micro scores; or the refusal (``error``: path and line)."""

    documents: dict[str, dict[str, int]] = field(default_factory=dict)
    warnings: dict[str, int] = field(default_factory=dict)
    scores: dict[str, float | None] = field(default_factory=dict)
    error: tuple[str, int | None] | None = None

    def warn(self, code: str, n: int = 1) -> None:
        if n:
            self.warnings[code] = self.warnings.get(code, 0) + n


def rules(missing: str, codalab: bool) -> tuple[bool, bool]:
    """Whether a gold-only and a system-only document are scored."""
    if missing == "count":
        return True, True
    if missing == "official" and not codalab:
        return True, False
    return False, False


def pairing(
    gold: set[str], system: set[str], missing: str, codalab: bool, out: Outcome
) -> list[str]:
    gold_scored, system_scored = rules(missing, codalab)
    out.warn("documents.gold-only", len(gold - system))
    out.warn("documents.system-only", len(system - gold))
    scored = gold & system
    if gold_scored:
        scored |= gold
    if system_scored:
        scored |= system
    return sorted(scored)


def set_counts(gold: set[tuple[str, object]], system: set[tuple[str, object]]) -> dict[str, int]:
    """tp/fp/fn of two sets of ``(type, item)``, each item also under its type."""
    out: dict[str, int] = {"documents": 1}
    for item in gold | system:
        stat = "tp" if item in gold and item in system else ("fn" if item in gold else "fp")
        out[stat] = out.get(stat, 0) + 1
        key = f"type:{item[0]}:{stat}"
        out[key] = out.get(key, 0) + 1
    return out


def score(out: Outcome, undefined: str) -> None:
    """The micro scores of ``out``'s documents, and the warning naming the undefined ones."""
    out.scores = scores(out.documents, undefined)
    if None in scores(out.documents, "null").values():
        out.warn("undefined")


def scores(documents: dict[str, dict[str, int]], undefined: str) -> dict[str, float | None]:
    tp = sum(d.get("tp", 0) for d in documents.values())
    fp = sum(d.get("fp", 0) for d in documents.values())
    fn = sum(d.get("fn", 0) for d in documents.values())
    if undefined == "null":
        precision = tp / (tp + fp) if tp + fp else None
        recall = tp / (tp + fn) if tp + fn else None
        f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else None
        return {"precision": precision, "recall": recall, "f1": f1}
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


# ------------------------------------------------------------------------------- NER


@dataclass
class AnnDocument:
    entities: list[brat.Entity] = field(default_factory=list)
    notes: list[brat.Note] = field(default_factory=list)
    warnings: dict[str, int] = field(default_factory=dict)


def read_ann_folder(
    folder: Path, *, every_file: bool, check_text: bool
) -> tuple[dict[str, AnnDocument], int]:
    """The documents of a folder read as the official script reads them, and how many files
    did not end in ``.ann``; an :class:`~tests.oracles.brat.OracleError` for a line it stops
    on."""
    documents: dict[str, AnnDocument] = {}
    others = 0
    for path in sorted(str(p) for p in folder.iterdir() if p.is_file()):
        name = os.path.basename(path)
        if not (every_file or name.endswith(".ann")):
            continue
        stem, extension = os.path.splitext(name)
        if extension != ".ann":
            others += 1
        text = None
        txt = path[:-4] + ".txt"
        if check_text and extension == ".ann" and os.path.exists(txt):
            text = Path(txt).read_bytes().decode("utf-8")
        file = brat.read(Path(path).read_bytes().decode("utf-8"), path, text, official=True)
        document = documents.setdefault(stem, AnnDocument())
        document.entities.extend(file.entities)
        document.notes.extend(file.notes)
        for code, n in file.warnings.items():
            document.warnings[code] = document.warnings.get(code, 0) + n
    return documents, others


def score_ner(
    gold: Path, system: Path, *, codalab: bool, missing: str, undefined: str = "zero"
) -> Outcome:
    """The official number of the NER sub-track (strict mode)."""
    out = Outcome()
    try:
        gold_docs, _ = read_ann_folder(gold, every_file=False, check_text=True)
        system_docs, others = read_ann_folder(system, every_file=not codalab, check_text=False)
    except brat.OracleError as error:
        out.error = (error.path, error.line)
        return out
    out.warn("pharmaconer.non-ann-files", others)
    dropped = 0
    if codalab:
        for document in (*gold_docs.values(), *system_docs.values()):
            kept = [e for e in document.entities if e.type != UNCLEAR]
            dropped += len(document.entities) - len(kept)
            document.entities = kept
    repeated = 0
    for doc_id in pairing(set(gold_docs), set(system_docs), missing, codalab, out):
        sets = []
        for side in (gold_docs, system_docs):
            document = side.get(doc_id)
            items = [] if document is None else [(e.type, e.fragments) for e in document.entities]
            repeated += len(items) - len(set(items))
            sets.append(set(items))
            if document is not None:
                for code, n in document.warnings.items():
                    out.warn(code, n)
        out.documents[doc_id] = {k: v for k, v in set_counts(sets[0], sets[1]).items() if v}
    out.warn("pharmaconer.duplicates", repeated)
    out.warn("pharmaconer.unclear", dropped)
    score(out, undefined)
    return out


# -------------------------------------------------------------------------------- indexing


class TsvError(Exception):
    def __init__(self, path: str, line: int) -> None:
        super().__init__(f"{path}:{line}")
        self.path, self.line = path, line


@dataclass
class Tsv:
    rows: list[tuple[str, str]] = field(default_factory=list)
    warnings: dict[str, int] = field(default_factory=dict)

    def warn(self, code: str) -> None:
        self.warnings[code] = self.warnings.get(code, 0) + 1


def read_tsv(content: str, path: str, doc_id: str) -> Tsv:
    """One indexing file: rows ``(document named, code)``."""
    tsv = Tsv()
    if content.startswith("\ufeff"):
        tsv.warn("pharmaconer.bom")  # and the mark stays in the first row's document id
    lines = content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    codes: set[str] = set()
    for number, raw in enumerate(lines, start=1):
        line = raw[:-1] if raw.endswith("\r") else raw
        if not line.strip():
            tsv.warn("pharmaconer.blank-line")
            continue
        kept = line.rstrip()
        if kept != line:
            tsv.warn("pharmaconer.trailing-whitespace")
        columns = kept.split("\t")
        if len(columns) != 2 or not columns[1].strip():
            raise TsvError(path, number)
        name, code = columns
        if name != doc_id:
            tsv.warn("pharmaconer.other-document")
        if code != code.strip():
            tsv.warn("pharmaconer.code-whitespace")
        if code in codes:
            tsv.warn("pharmaconer.duplicate-code")
        codes.add(code)
        tsv.rows.append((name, code))
    return tsv


def read_tsv_folder(folder: Path) -> dict[str, Tsv]:
    out = {}
    for path in sorted(str(p) for p in folder.iterdir() if p.name.endswith(".tsv")):
        stem = os.path.splitext(os.path.basename(path))[0]
        out[stem] = read_tsv(Path(path).read_bytes().decode("utf-8"), path, stem)
    return out


def unclear_only(document: AnnDocument) -> set[str]:
    """Codes whose every linked mention is UNCLEAR (at least one link)."""
    type_of = {e.id: e.type for e in document.entities}
    codes_linked = [
        (note.text.strip(), type_of[note.target])
        for note in document.notes
        if note.type == "AnnotatorNotes" and note.target in type_of
    ]
    codes = {code for code, _ in codes_linked}
    not_unclear = {code for code, kind in codes_linked if kind != UNCLEAR}
    return codes - not_unclear


def score_indexing(
    gold: Path,
    system: Path,
    *,
    codalab: bool,
    missing: str,
    gold_ann: Path | None = None,
    undefined: str = "zero",
) -> Outcome:
    """The official number of the indexing sub-track."""
    out = Outcome()
    try:
        gold_docs, system_docs = read_tsv_folder(gold), read_tsv_folder(system)
    except TsvError as error:
        out.error = (error.path, error.line)
        return out
    unclear: dict[str, set[str]] = {}
    if codalab:
        assert gold_ann is not None
        try:
            ann_docs, _ = read_ann_folder(gold_ann, every_file=False, check_text=False)
        except brat.OracleError as error:
            out.error = (error.path, error.line)
            return out
        if set(gold_docs) - set(ann_docs):
            out.error = (str(gold_ann), None)
            return out
        unclear = {d: unclear_only(doc) for d, doc in ann_docs.items()}
        for document in ann_docs.values():
            for code, n in document.warnings.items():
                out.warn(code, n)
    dropped = moved = 0
    for doc_id in pairing(set(gold_docs), set(system_docs), missing, codalab, out):
        g, s = gold_docs.get(doc_id), system_docs.get(doc_id)
        g_codes = {code for _, code in g.rows} if g else set()
        if codalab and g is not None:
            kept = {code for name, code in g.rows if code not in unclear.get(name, set())}
            dropped += len(g_codes) - len(kept)
            moved += len(
                {
                    name
                    for name, code in g.rows
                    if name != doc_id and code in unclear.get(name, set())
                }
            )
            g_codes = kept
        s_codes = {code for _, code in s.rows} if s else set()
        counts = set_counts({("", c) for c in g_codes}, {("", c) for c in s_codes})
        out.documents[doc_id] = {k: v for k, v in counts.items() if v and ":" not in k}
        for tsv in (g, s):
            if tsv is not None:
                for code, n in tsv.warnings.items():
                    out.warn(code, n)
    out.warn("pharmaconer.unclear-codes", dropped)
    out.warn("pharmaconer.unclear-other-document", moved)
    score(out, undefined)
    return out
