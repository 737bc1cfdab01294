"""What ``annoscore validate`` checks beyond what scoring refuses (``../shared/spec/campaign.md``).

A submission that scores may still hold documents the gold standard does not have, miss gold
documents, name codes outside the valid list or place annotations beyond the gold text: the
scoring program scores those (with a warning, as the official script does), ``validate`` names
each as a problem with the submission's file and line as uploaded (a missing document: its id
and the gold file).  :func:`audit` reads the cleaned copy of the submission once more with the
task's own readers, after :func:`annoscore.cli.campaign.check` has scored it, so every file here
is known to be readable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from annoscore.cli.campaign import Prepared, Problem
from annoscore.errors import InputError

if TYPE_CHECKING:
    from annoscore.tasks.registry import Task

Auditor = Callable[[Path, Prepared, Any], Iterator[Problem]]


def audit(task: Task, gold: Path, prepared: Prepared, options: Any, limit: int) -> list[Problem]:
    """The problems of the submission ``prepared`` that its scoring tolerates, for the tasks
    that have such checks (others: none), at most ``limit`` (then one more saying so)."""
    auditor = _AUDITORS.get(task.name)
    if auditor is None and task.name.startswith("nlpsandbox-"):
        auditor = _nlpsandbox
    if auditor is None:
        return []
    found: list[Problem] = []
    for problem in auditor(gold, prepared, options):
        if len(found) == limit:
            found.append(Problem("more problems not shown"))
            break
        found.append(problem)
    return found


def _documents(
    prepared: Prepared,
    gold: Path,
    gold_ids: Iterable[str],
    submitted: Iterable[tuple[str, Path | str, int | None]],
    what: str = "document",
    required: Iterable[str] | None = None,
) -> Iterator[Problem]:
    """Unknown documents (each at its first line in the submission) and missing ones (each
    named with the gold file): ``submitted`` gives (id, file of the copy, line) per record;
    ``required``: the gold documents a submission must have (default: every one)."""
    known = dict.fromkeys(gold_ids)
    seen: set[str] = set()
    for document, path, line in submitted:
        if document in seen:
            continue
        seen.add(document)
        if document not in known:
            shown = prepared.shown(str(path))
            at = None if line is None else prepared.line(path, line)
            message = f"{what} {document!r} is not in the gold standard ({gold.name})"
            yield Problem(message, shown, at)
    for document in known if required is None else dict.fromkeys(required):
        if document not in seen:
            yield Problem(f"{what} {document!r} is missing from the submission", str(gold))


def _invalid_code(prepared: Prepared, path: Path, line: int, code: str, lists: str) -> Problem:
    message = f"code {code!r} is not in the valid-code list ({lists})"
    return Problem(message, prepared.shown(str(path)), prepared.line(path, line))


# --- CodiEsp ---------------------------------------------------------------------------------


def _codiesp_ranked(gold: Path, prepared: Prepared, options: Any) -> Iterator[Problem]:
    """CodiEsp D and P: documents, and codes outside ``options.codes`` (compared as the
    scorer compares them: lower-cased unless ``--no-lowercase``).  A gold document is missing
    only when it has a valid code: one without any cannot be predicted (the official script
    drops every prediction outside the list)."""
    from annoscore.formats.codiesp import read_code_file, read_valid_code_file

    if options.codes is None:
        return
    valid = read_valid_code_file(options.codes).codes
    gold_rows = read_code_file(gold, "gold", lowercase=options.lowercase).rows
    gold_codes = (gold_rows.codes[c] for c in gold_rows.code.tolist())
    gold_docs = [gold_rows.documents[d] for d in gold_rows.doc.tolist()]
    predictable = (d for d, c in zip(gold_docs, gold_codes, strict=True) if c in valid)
    path = prepared.path
    rows = read_code_file(path, "predictions", lowercase=False, allow_empty=True).rows
    lines = range(1, len(rows.doc) + 1) if rows.lines is None else rows.lines.tolist()
    docs = [rows.documents[d] for d in rows.doc.tolist()]
    submitted = zip(docs, [path] * len(docs), lines, strict=True)
    yield from _documents(prepared, gold, gold_docs, submitted, required=predictable)
    for line, index in zip(lines, rows.code.tolist(), strict=True):
        code = rows.codes[index]
        if (code.lower() if options.lowercase else code) not in valid:
            yield _invalid_code(prepared, path, line, code, options.codes.name)


def _codiesp_x(gold: Path, prepared: Prepared, options: Any) -> Iterator[Problem]:
    """CodiEsp X: documents (missing: as for D and P, a gold document with a valid code), and
    codes in neither valid list.  (Its gold holds no document text, only the referenced words:
    no offset is checked against a text.)"""
    from annoscore.formats.codiesp import (
        read_gold_reference_file,
        read_predicted_reference_file,
        read_valid_code_file,
    )

    lists = [p for p in (options.codes_d, options.codes_p) if p is not None]
    valid = frozenset[str]().union(*(read_valid_code_file(p).codes for p in lists))
    gold_refs = read_gold_reference_file(gold, lowercase=options.lowercase).references
    predictable = (r.document for r in gold_refs if r.code in valid)
    path = prepared.path
    refs = read_predicted_reference_file(path, lowercase=False, allow_empty=True).references
    ids = (r.document for r in gold_refs)
    submitted = ((r.document, path, r.line) for r in refs)
    yield from _documents(prepared, gold, ids, submitted, required=predictable)
    names = " or ".join(p.name for p in lists)
    for ref in refs:
        if lists and (ref.code.lower() if options.lowercase else ref.code) not in valid:
            yield _invalid_code(prepared, path, ref.line, ref.code, names)


# --- NLP Sandbox -----------------------------------------------------------------------------


def _nlpsandbox(gold: Path, prepared: Prepared, options: Any) -> Iterator[Problem]:
    """NLP Sandbox: notes (documents; a JSON file has no line per note), and, with the notes
    (``--option notes=...``), annotations that end beyond their note's text."""
    from annoscore.formats.nlpsandbox import CATEGORIES, read_notes, read_sandbox

    if not gold.is_file():
        return
    path = prepared.path
    gold_file = read_sandbox(gold)
    pred_file = read_sandbox(path)
    pairs = ((n, path, None) for n in pred_file.note_ids)
    yield from _documents(prepared, gold, gold_file.note_ids, pairs, "note")
    if options.notes is None:
        return
    notes = read_notes(options.notes)
    shown = prepared.shown(str(path))
    for category in CATEGORIES:
        read = pred_file.categories[category]
        for note, start, length in zip(read.note, read.start, read.length, strict=True):
            note_id = pred_file.note_ids[note]
            text = notes.get(note_id)
            if text is not None and start + length > len(text):
                yield Problem(
                    f"note {note_id!r}: a {category} annotation at {start} (length {length}) "
                    f"ends beyond the note's text ({len(text)} characters, {options.notes.name})",
                    shown,
                )


# --- brat ------------------------------------------------------------------------------------


def _brat(gold: Path, prepared: Prepared, **reading: Any) -> Iterator[Problem]:
    """brat: entities that end beyond the gold document's ``.txt`` (where the gold has one)."""
    from annoscore.formats.brat import read_brat_corpus

    try:
        corpus = read_brat_corpus(prepared.path, check_text=False, **reading)
    except InputError:  # not brat (spans reads other formats too): nothing to check here
        return
    for document, file in corpus.files.items():
        text_path = gold / f"{document}.txt" if gold.is_dir() else gold.with_suffix(".txt")
        if not gold.is_dir() and gold.stem != document:
            continue
        try:
            length = len(text_path.read_bytes().decode("utf-8", errors="replace"))
        except OSError:
            continue
        for k, fragments in enumerate(file.entity_fragments()):
            end = max(max(start, stop) for start, stop in fragments)
            if end > length:
                yield Problem(
                    f"entity {file.ids[k]} ends at {end}, beyond the text of the document "
                    f"({text_path.name}: {length} characters)",
                    prepared.shown(file.path),
                    prepared.line(file.path, file.line_of(k)),
                )


def _pharmaconer_ner(gold: Path, prepared: Prepared, options: Any) -> Iterator[Problem]:
    return _brat(gold, prepared, dialect="pharmaconer", every_file=not options.codalab)


def _spans(gold: Path, prepared: Prepared, options: Any) -> Iterator[Problem]:
    brat = options.system_format in (None, "brat") and options.gold_format in (None, "brat")
    if brat and (gold.is_dir() or gold.suffix == ".ann"):
        yield from _brat(gold, prepared)


_AUDITORS: dict[str, Auditor] = {
    "codiesp-d": _codiesp_ranked,
    "codiesp-p": _codiesp_ranked,
    "codiesp-x": _codiesp_x,
    "pharmaconer-ner": _pharmaconer_ner,
    "spans": _spans,
}
