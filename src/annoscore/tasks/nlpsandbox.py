"""NLP Sandbox PHI de-identification (nlpsandbox-client 4.3.1 evaluation), one task per category.

``nlpsandbox-date``, ``-person``, ``-location``, ``-id``, ``-contact``, ``-covid-symptom`` score
one category of a gold and a prediction file (:mod:`annoscore.formats.nlpsandbox`);
``nlpsandbox-all`` scores every category present in either file.  Counting is in
:mod:`annoscore.metrics.phi`; each note is a document, so the corpus counts (the official pooled
micro counts) are the sums of the note counts.  The files are read as columns
(:func:`~annoscore.formats.nlpsandbox.read_sandbox`), every distinct annotation text of the run
is tokenized once (:func:`~annoscore.metrics.phi_tokens.span_table`), and each category is
counted for all notes at once (:func:`~annoscore.metrics.phi_counts.category_counts`).

Keys (``scores``, exact fractions; ``counts``, their ``tp``/``fp``/``fn``):
``instance_relax_*``, ``instance_strict_*``, ``token_strict_*``, ``type_*`` and, for locations,
``hipaa_*``; with ``all`` each key is prefixed by the category (``location_token_strict_f1``).
The JSON also carries ``leaderboard``: the controller's flattened keys with the official rounding
(``location_F1_token_strict``...; per category under ``all``).

Settings that move a number (official defaults; all in the signature):

- ``tokenizer``: ``treebank`` (4.3.x) or ``whitespace`` (up to 4.2.0, the 2021 benchmark);
- ``quotes``: ``fixed`` (annoscore, per the spec's decision: Treebank's rewritten ``"`` are found
  in the text) or ``official`` (the official bogus offsets); ``fixed`` is the default and a
  warning counts the texts where it differs;
- ``same_start``: ``last`` (official) or ``first``: which of several annotations at one
  (note, start) the instance level keeps;
- ``relax_margin``: the relax level's length tolerance (official 2).

Beyond the official: ``type_*`` for date (``dateFormat``) and person (``personType``), which
the official reports as NaN; ``hipaa_*`` for locations (the task page's HIPAA-PHI flag of the
location type compared instead of the type); per-note scores.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from annoscore.errors import InputError
from annoscore.formats.files import bom_warnings
from annoscore.formats.nlpsandbox import (
    CATEGORIES,
    Numbering,
    SandboxFile,
    read_notes,
    read_sandbox,
)
from annoscore.metrics.phi import (
    Quotes,
    SameStart,
    Tokenizer,
    all_scores,
    hipaa_flags,
    leaderboard,
    phi_scores,
)
from annoscore.metrics.phi_counts import Columns, category_counts
from annoscore.metrics.phi_tokens import TokenSpans, span_table
from annoscore.result import CountMatrix, Result, ScoreWarning
from annoscore.signature import Signature
from annoscore.tasks.registry import first_fixed

if TYPE_CHECKING:
    from annoscore.metrics.phi import IntArray

TASK_PREFIX = "nlpsandbox-"
ALL_TASK = "nlpsandbox-all"


def _prefix(category: str) -> str:
    return category.replace("-", "_") + "_"


def _documents(gold: SandboxFile, pred: SandboxFile) -> list[str]:
    return list(dict.fromkeys((*gold.note_ids, *pred.note_ids)))


def _warnings(
    gold: SandboxFile,
    pred: SandboxFile,
    categories: Iterable[str],
    overwritten: dict[str, int],
    unknown_hipaa: int,
    spans: TokenSpans,
) -> list[ScoreWarning]:
    out: list[ScoreWarning] = []
    sides = (("gold", gold, overwritten["gold"]), ("prediction", pred, overwritten["pred"]))
    for side, file, n in sides:
        name = file.path.name
        if n:
            out.append(
                ScoreWarning(
                    "same-start",
                    f"{{count}} {side} annotations ({name}) were overwritten by a later one at "
                    "the same start in the same note (instance level; official: the last wins, "
                    "--same-start)",
                    n,
                )
            )
        if file.merged_notes:
            out.append(
                ScoreWarning(
                    "merged-notes",
                    f"{{count}} objects in {name} repeat an earlier note id (basename of "
                    "resourceSource.name); their annotations were pooled with it, as official",
                    file.merged_notes,
                )
            )
        for category in categories:
            notes = file.categories[category]
            array = CATEGORIES[category].arrays[0]
            if notes.missing_array:
                out.append(
                    ScoreWarning(
                        "missing-array",
                        f"{{count}} objects in {name} have no {array} array; read as empty "
                        "(the official script stops with a KeyError)",
                        notes.missing_array,
                    )
                )
            if notes.length_mismatch:
                out.append(
                    ScoreWarning(
                        "length-mismatch",
                        f"{{count}} {category} annotations in {name} declare a length other than "
                        "their text's; the instance level uses the length, the token level the "
                        "text (as official)",
                        notes.length_mismatch,
                    )
                )
    gold_ids, pred_ids = set(gold.note_ids), set(pred.note_ids)
    one_side = [n for n in pred.note_ids if n not in gold_ids]
    if one_side:
        out.append(
            ScoreWarning(
                "prediction-only-notes",
                "{count} notes appear only in the prediction; their annotations count as false "
                "positives",
                len(one_side),
                tuple(one_side[:5]),
            )
        )
    missing = [n for n in gold.note_ids if n not in pred_ids]
    if missing:
        out.append(
            ScoreWarning(
                "gold-only-notes",
                "{count} gold notes have no prediction; their annotations count as false negatives",
                len(missing),
                tuple(missing[:5]),
            )
        )
    if unknown_hipaa:
        known = ", ".join(sorted({"city", "organization", "street", "zip", "country"}))
        out.append(
            ScoreWarning(
                "unknown-location-type",
                "{count} location annotations have a type with no HIPAA-PHI flag; they never "
                f"match at the hipaa level (known types include {known}, ...)",
                unknown_hipaa,
            )
        )
    if spans.quote_fixes:
        out.append(
            ScoreWarning(
                "quote-offsets",
                "{count} annotation texts contain a double quote, which the Treebank tokenizer "
                "rewrites so the official offset search fails; their tokens were found in the "
                "text instead (--quotes official reproduces the official bogus offsets)",
                spans.quote_fixes,
            )
        )
    return out


def note_text_warnings(
    notes: dict[str, str], files: list[SandboxFile], categories: list[str], texts: Numbering
) -> list[ScoreWarning]:
    """What checking the annotations against the notes found, file by file: annotations whose
    ``text`` is not the note's text at ``[start, start + length)``, and annotations of a note the
    notes file does not have (an annotation without a ``text`` is not checked).  A warning names
    the file, its examples the note and the offset.  Nothing is changed or dropped: the
    official script never reads the notes, and its counts stand.
    """
    values = texts.values()
    out = []
    for file in files:
        differ: list[str] = []
        unknown: list[str] = []
        for category in categories:
            read = file.categories[category]
            for note, start, length, text in zip(
                read.note, read.start, read.length, read.text, strict=True
            ):
                written = values[text]
                if not isinstance(written, str):
                    continue
                note_id = file.note_ids[note]
                where = f"note {note_id} at {start}"  # the message names the file
                note_text = notes.get(note_id)
                if note_text is None:
                    unknown.append(where)
                elif note_text[start : start + length] != written:
                    shown = note_text[start : start + length][:30]
                    differ.append(f"{where}: {written[:30]!r}, the note has {shown!r}")
        name = file.path.name
        for code, message, items in (
            (
                "nlpsandbox.text-differs",
                f"{{count}} annotations of {name} differ from their note's text at their "
                "offsets (--notes); they are scored as written",
                differ,
            ),
            (
                "nlpsandbox.unknown-note",
                f"{{count}} annotations of {name} name a note the notes file does not have "
                "(--notes); they are scored, not checked",
                unknown,
            ),
        ):
            if items:
                out.append(ScoreWarning(code, message, len(items), tuple(items[:5])))
    return out


def _signature(
    task: str, tokenizer: Tokenizer, quotes: Quotes, same_start: SameStart, relax_margin: int
) -> Signature:
    return Signature.of(
        task,
        tokenizer=tokenizer.value,
        quotes=quotes.value,
        same_start=same_start.value,
        relax_margin=relax_margin,
    )


def _columns(file: SandboxFile, category: str, documents: dict[str, int]) -> Columns:
    import numpy as np

    read = file.categories[category]
    where = np.array([documents[note] for note in file.note_ids], dtype=np.int64)
    note, start, length, text, kind = (
        np.frombuffer(column, dtype=np.int64) if len(column) else np.zeros(0, dtype=np.int64)
        for column in (read.note, read.start, read.length, read.text, read.kind)
    )
    return Columns(where[note], start, length, text, kind)


def _score(
    categories: list[str],
    gold_path: Path,
    pred_path: Path,
    *,
    tokenizer: Tokenizer,
    quotes: Quotes,
    same_start: SameStart,
    relax_margin: int,
    all_categories: bool,
    notes: Path | None = None,
) -> Result:
    if relax_margin < 0:
        raise InputError(f"the relax margin must be 0 or more, not {relax_margin}")
    texts = Numbering()
    kinds: dict[str, Numbering] = {}
    gold = read_sandbox(gold_path, categories, texts=texts, kinds=kinds)
    pred = read_sandbox(pred_path, categories, texts=texts, kinds=kinds)
    if all_categories:
        categories = [c for c in categories if gold.present(c) or pred.present(c)]
        if not categories:
            raise InputError("no PHI annotation array (textDateAnnotations, ...) in either file")
    documents = _documents(gold, pred)
    position = {doc: d for d, doc in enumerate(documents)}
    spans = TokenSpans(Tokenizer(tokenizer), Quotes(quotes))
    table = span_table(texts.values(), spans)
    columns: dict[str, IntArray] = {}
    overwritten = {"gold": 0, "pred": 0}
    unknown_hipaa = 0
    for category in categories:
        prefix = _prefix(category) if all_categories else ""
        tally = category_counts(
            _columns(gold, category, position),
            _columns(pred, category, position),
            table,
            len(documents),
            relax_margin=relax_margin,
            same_start=SameStart(same_start),
            hipaa=hipaa_flags(kinds[category].values()) if category == "location" else None,
        )
        columns.update((prefix + name, column) for name, column in tally.columns.items())
        overwritten["gold"] += tally.overwritten_gold
        overwritten["pred"] += tally.overwritten_pred
        unknown_hipaa += tally.unknown_hipaa
        spans.quote_fixes += tally.quote_fixes
    task = ALL_TASK if all_categories else TASK_PREFIX + categories[0]
    scorer = all_scores if all_categories else phi_scores
    result = Result.from_counts(
        task,
        _signature(task, tokenizer, quotes, same_start, relax_margin),
        CountMatrix.from_columns(documents, columns, integer=columns),
        scorer,
        warnings=[
            *_warnings(gold, pred, categories, overwritten, unknown_hipaa, spans),
            *bom_warnings(gold_path, pred_path),
            *(
                []
                if notes is None
                else note_text_warnings(read_notes(Path(notes)), [gold, pred], categories, texts)
            ),
        ],
    )
    board: dict[str, dict[str, object]] = {}
    for category in categories:
        prefix = _prefix(category) if all_categories else ""
        board[category] = leaderboard(result.counts, category, prefix)
    if all_categories:
        return result.with_extra(categories=list(categories), leaderboard=board)
    return result.with_extra(leaderboard=board[categories[0]])


def score_category(
    category: str,
    gold: Path,
    pred: Path,
    *,
    tokenizer: Tokenizer = Tokenizer.treebank,
    quotes: Quotes = Quotes.fixed,
    same_start: SameStart = SameStart.last,
    relax_margin: int = 2,
    notes: Path | None = None,
) -> Result:
    """One category (``date``, ``person``, ``location``, ``id``, ``contact``, ``covid-symptom``).

    Counts per note as :mod:`annoscore.metrics.phi` defines them; scores are
    :func:`annoscore.metrics.phi.phi_scores` of their sums (precision undefined when nothing was
    predicted, recall when the gold is empty, F undefined only when both are).  With ``notes``
    (a notes file, :func:`annoscore.formats.nlpsandbox.read_notes`) every annotation's ``text``
    is checked against its note's text at its offsets (:func:`note_text_warnings`): no number
    moves.
    """
    if category not in CATEGORIES:
        known = ", ".join(CATEGORIES)
        raise InputError(f"unknown category {category!r}; expected one of {known}")
    return _score(
        [category],
        Path(gold),
        Path(pred),
        tokenizer=tokenizer,
        quotes=quotes,
        same_start=same_start,
        relax_margin=relax_margin,
        all_categories=False,
        notes=notes,
    )


def score_all(
    gold: Path,
    pred: Path,
    *,
    tokenizer: Tokenizer = Tokenizer.treebank,
    quotes: Quotes = Quotes.fixed,
    same_start: SameStart = SameStart.last,
    relax_margin: int = 2,
    notes: Path | None = None,
) -> Result:
    """Every category whose array is in either file, read once; keys prefixed by category
    (``notes``: as :func:`score_category`)."""
    return _score(
        list(CATEGORIES),
        Path(gold),
        Path(pred),
        tokenizer=tokenizer,
        quotes=quotes,
        same_start=same_start,
        relax_margin=relax_margin,
        all_categories=True,
        notes=notes,
    )


def _category_function(category: str) -> Callable[..., Result]:
    return first_fixed(
        score_category,
        category,
        name=f"score_{category.replace('-', '_')}",
        doc=f"""The {category} category: :func:`score_category` with ``category="{category}"``.""",
    )


score_date = _category_function("date")
score_person = _category_function("person")
score_location = _category_function("location")
score_id = _category_function("id")
score_contact = _category_function("contact")
score_covid_symptom = _category_function("covid-symptom")
