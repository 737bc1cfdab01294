"""NLP Sandbox PHI de-identification (nlpsandbox-client 4.3.1 evaluation), one task per category.

``nlpsandbox-date``, ``-person``, ``-location``, ``-id``, ``-contact``, ``-covid-symptom`` score
one category of a gold and a prediction file (:mod:`annoscore.formats.nlpsandbox`);
``nlpsandbox-all`` scores every category present in either file.  Each has a score function on
files (``score_nlpsandbox_date(gold, pred, options)``) and one on the same data in memory
(``count_nlpsandbox_date(gold_notes, pred_notes, options)``: the files' JSON lists), over one
inner function.  Counting is in :mod:`annoscore.metrics.phi`; each note is a document, so the
corpus counts (the official pooled micro counts) are the sums of the note counts.  Every
distinct annotation text is tokenized once (:func:`~annoscore.metrics.phi_tokens.span_table`),
and each category is counted for all notes at once
(:func:`~annoscore.metrics.phi_counts.category_counts`).

Keys (``scores``, exact fractions, ``None`` where undefined; ``counts``, their
``tp``/``fp``/``fn``): ``instance_relax_*``, ``instance_strict_*``, ``token_strict_*``,
``type_*`` and, for locations, ``hipaa_*``; with ``all`` each key is prefixed by the category
(``location_token_strict_f1``).  The JSON also carries ``leaderboard``: the controller's
flattened keys with the official rounding (``location_F1_token_strict``...; per category under
``all``, with ``categories``).  The headline score is ``token_strict_f1``, which the leaderboards
ranked by.

Settings: :class:`NlpSandboxOptions`.  Beyond the official: ``type_*`` for date
(``dateFormat``) and person (``personType``), which the official reports as NaN; ``hipaa_*``
for locations (the task page's HIPAA-PHI flag of the location type compared instead of the
type); per-note scores; the annotation texts checked against the notes (``notes``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from annoscore.errors import InputError
from annoscore.formats.files import bom_warnings, cut_of
from annoscore.formats.nlpsandbox import (
    CATEGORIES,
    Numbering,
    SandboxFile,
    note_document,
    read_notes,
    read_objects,
    read_sandbox,
    read_sandbox_documents,
)
from annoscore.metrics.phi import Quotes, SameStart, Tokenizer, hipaa_flags, leaderboard
from annoscore.metrics.phi_counts import Columns, category_counts
from annoscore.metrics.phi_tokens import TokenSpans, span_table
from annoscore.options import TaskOptions, option
from annoscore.result import CountMatrix, Result
from annoscore.samples import sample_path
from annoscore.scale import chunked, keep
from annoscore.scale.cut_json import JsonDocuments
from annoscore.score_warnings import ScoreWarning
from annoscore.tasks.registry import get

if TYPE_CHECKING:
    from annoscore.align.span_sides import SpanSides
    from annoscore.arrays import IntArray


@dataclass(frozen=True, slots=True)
class NlpSandboxOptions(TaskOptions):
    """The options of the seven ``annoscore nlpsandbox`` tasks (nlpsandbox-client 4.3.1's
    behaviour by default, but for ``quotes``: the spec's decision)."""

    tokenizer: Tokenizer = option(
        Tokenizer.treebank,
        "treebank: NLTK TreebankWordTokenizer (official since 4.3.0, 2022); whitespace: the "
        "pre-2022 client (re.split on whitespace, offsets += len + 1).",
    )
    quotes: Quotes = option(
        Quotes.fixed,
        "Treebank rewrites \" as `` or '', which the official offset search cannot find. "
        "fixed (default): find the quote in the text; official: the official bogus offsets.",
    )
    same_start: SameStart = option(
        SameStart.last,
        "Several annotations at one (note, start): the instance level keeps the last "
        "(official) or the first.",
    )
    relax_margin: int = option(
        2, "instance relax: same start and |length difference| <= this (official 2).", low=0
    )
    notes: Path | None = option(
        None,
        "The notes (a JSON array of NLP Sandbox Note objects, identifier and text, or "
        '{"notes": [...]}): every annotation\'s text is checked against its note at its '
        "offsets and each difference is a warning; no number moves.",
        moves=False,
    )


def _prefix(category: str) -> str:
    return category.replace("-", "_") + "_"


_MESSAGES = {
    "same-start": "{{count}} {side} annotations ({name}) were overwritten by a later one at the "
    "same start in the same note (instance level; official: the last wins, --same-start)",
    "merged-notes": "{{count}} objects in {name} repeat an earlier note id (basename of "
    "resourceSource.name); their annotations were pooled with it, as official",
    "missing-array": "{{count}} objects in {name} have no {array} array; read as empty (the "
    "official script stops with a KeyError)",
    "length-mismatch": "{{count}} {category} annotations in {name} declare a length other than "
    "their text's; the instance level uses the length, the token level the text (as official)",
    "prediction-only-notes": "{{count}} notes appear only in the prediction; their annotations "
    "count as false positives",
    "gold-only-notes": "{{count}} gold notes have no prediction; their annotations count as "
    "false negatives",
    "unknown-location-type": "{{count}} location annotations have a type with no HIPAA-PHI "
    "flag; they never match at the hipaa level (known types include city, country, "
    "organization, street, zip, ...)",
    "quote-offsets": "{{count}} annotation texts contain a double quote, which the Treebank "
    "tokenizer rewrites so the official offset search fails; their tokens were found in the "
    "text instead (--quotes official reproduces the official bogus offsets)",
    "tokenizer-engine": "{{count}} distinct annotation texts hold characters that the standard "
    "library's re may class otherwise than the regex package NLTK uses (U+001C to U+001F, marks, "
    "symbols, code points newer than this Python); regex is not installed (or "
    "ANNOSCORE_NLTK_ENGINE=re), so their tokens were cut with re and may differ from the "
    "official ones",
    "nlpsandbox.text-differs": "{{count}} annotations of {name} differ from their note's text "
    "at their offsets (--notes); they are scored as written",
    "nlpsandbox.unknown-note": "{{count}} annotations of {name} name a note the notes file "
    "does not have (--notes); they are scored, not checked",
}
"""The reading's, the counting's and ``--notes``' warnings by code (``name``... filled in)."""


@dataclass(frozen=True, slots=True)
class _Tally:
    """A warning one run may give (:data:`_MESSAGES`), as chunks of notes add up: what fills
    its message, and per part (a category for ``--notes``' checks, else one) its count and its
    first examples in file order.  A chunk's tallies of the same input have the same codes and
    fills in the same order (:func:`_pooled`), zero counts included."""

    code: str
    fill: tuple[tuple[str, str], ...]
    counts: tuple[int, ...]
    examples: tuple[tuple[str, ...], ...]

    def warning(self) -> ScoreWarning | None:
        """The warning (``None``: a count of 0, no warning)."""
        count = sum(self.counts)
        if not count:
            return None
        examples = tuple(e for part in self.examples for e in part)[:5]
        return ScoreWarning(
            self.code, _MESSAGES[self.code].format(**dict(self.fill)), count, examples
        )


def _tally(
    code: str, count: int | Sequence[int], examples: Sequence[Sequence[str]] = ((),), **fill: str
) -> _Tally:
    counts = (count,) if isinstance(count, int) else tuple(count)
    cut = tuple(tuple(part[:5]) for part in examples)
    return _Tally(code, tuple(fill.items()), counts, cut)


def _given(tallies: Iterable[_Tally]) -> list[ScoreWarning]:
    return [w for w in (t.warning() for t in tallies) if w is not None]


def _tallies(
    gold: SandboxFile,
    pred: SandboxFile,
    categories: Iterable[str],
    overwritten: dict[str, int],
    unknown_hipaa: int,
    spans: TokenSpans,
) -> list[_Tally]:
    """The reading's and the counting's warnings, in one run's order, zero counts included."""
    found: list[_Tally] = []
    for side, file in (("gold", gold), ("prediction", pred)):
        name = file.path.name
        found.append(_tally("same-start", overwritten[side], side=side, name=name))
        found.append(_tally("merged-notes", file.merged_notes, name=name))
        for category in categories:
            read = file.categories[category]
            array = CATEGORIES[category].arrays[0]
            found.append(_tally("missing-array", read.missing_array, name=name, array=array))
            mismatch = read.length_mismatch
            found.append(_tally("length-mismatch", mismatch, name=name, category=category))
    gold_ids, pred_ids = set(gold.note_ids), set(pred.note_ids)
    one_side = [n for n in pred.note_ids if n not in gold_ids]
    missing = [n for n in gold.note_ids if n not in pred_ids]
    found.append(_tally("prediction-only-notes", len(one_side), (one_side,)))
    found.append(_tally("gold-only-notes", len(missing), (missing,)))
    found.append(_tally("unknown-location-type", unknown_hipaa))
    found.append(_tally("quote-offsets", spans.quote_fixes))
    found.append(_tally("tokenizer-engine", len(spans.engine_doubts)))
    return found


def _note_tallies(
    notes: dict[str, str], files: list[SandboxFile], categories: list[str], texts: Numbering
) -> list[_Tally]:
    """What checking the annotations against the notes found, file by file, one part per
    category (the examples of one run come category by category): annotations whose ``text`` is
    not the note's text at ``[start, start + length)``, and annotations of a note the notes file
    does not have (an annotation without a ``text`` is not checked).  A warning names the file,
    its examples the note and the offset.  Nothing is changed or dropped: the official script
    never reads the notes, and its counts stand.
    """
    values = texts.values()
    out: list[_Tally] = []
    for file in files:
        differ: list[list[str]] = []
        unknown: list[list[str]] = []
        for category in categories:
            read = file.categories[category]
            differ.append([])
            unknown.append([])
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
                    unknown[-1].append(where)
                elif note_text[start : start + length] != written:
                    shown = note_text[start : start + length][:30]
                    differ[-1].append(f"{where}: {written[:30]!r}, the note has {shown!r}")
        name = file.path.name
        out.append(_tally("nlpsandbox.text-differs", [*map(len, differ)], differ, name=name))
        out.append(_tally("nlpsandbox.unknown-note", [*map(len, unknown)], unknown, name=name))
    return out


def _pooled(
    options: Any, warned: Sequence[Sequence[ScoreWarning]], kept: Sequence[tuple[Any, ...]]
) -> list[ScoreWarning] | None:
    """One run's warnings of the chunks of notes (:func:`~annoscore.scale.chunked`), from the
    tallies each kept (:func:`_score`): counts added, examples in file order, capped at 5, as
    one run makes them.  ``None`` (one run) when the chunks' tallies do not line up (other
    categories), a chunk cannot know a file's byte-order mark (a URL's), or
    ``tokenizer-engine`` warned (one run counts distinct texts of the whole corpus)."""
    if any(len(k) != 1 for k in kept):
        return None
    first, boms, _ = kept[0][0]
    if boms is None:
        return None
    pooled = list(first)
    for tallies, other_boms, _ in (k[0] for k in kept[1:]):
        if other_boms != boms or len(tallies) != len(pooled):
            return None
        for n, (a, b) in enumerate(zip(pooled, tallies, strict=True)):
            if (a.code, a.fill, len(a.counts)) != (b.code, b.fill, len(b.counts)):
                return None
            pooled[n] = _Tally(
                a.code,
                a.fill,
                tuple(x + y for x, y in zip(a.counts, b.counts, strict=True)),
                tuple((x + y)[:5] for x, y in zip(a.examples, b.examples, strict=True)),
            )
    if any(t.code == "tokenizer-engine" and sum(t.counts) for t in pooled):
        return None
    split = kept[0][0][2]
    return [*_given(pooled[:split]), *boms, *_given(pooled[split:])]


def _of_url(*paths: Path | Notes) -> bool:
    """Whether a chunk reads one of ``paths`` through fsspec (its byte-order mark unseen)."""
    cuts = [cut_of(p) for p in paths if isinstance(p, Path)]
    return any(cut is not None and cut.url is not None for cut in cuts)


def _columns(file: SandboxFile, category: str, documents: dict[str, int]) -> Columns:
    import numpy as np

    read = file.categories[category]
    where = np.array([documents[note] for note in file.note_ids], dtype=np.int64)
    note, start, length, text, kind = (
        np.frombuffer(column, dtype=np.int64) if len(column) else np.zeros(0, dtype=np.int64)
        for column in (read.note, read.start, read.length, read.text, read.kind)
    )
    return Columns(where[note], start, length, text, kind)


Notes = Sequence[dict[str, Any]]
"""Annotation objects in memory, one per note: a file's JSON list as ``json.load`` gives it."""


def _read(
    source: Path | Notes,
    side: str,
    categories: list[str],
    texts: Numbering,
    kinds: dict[str, Numbering],
) -> SandboxFile:
    if isinstance(source, Path):
        return read_sandbox(source, categories, texts=texts, kinds=kinds)
    if not isinstance(source, list | tuple):
        raise InputError(
            f"expected a list of annotation objects (one per note), not a {type(source).__name__}",
            side,
        )
    return read_objects(source, Path(side), categories, texts=texts, kinds=kinds)


def _score(
    category: str | None, gold: Path | Notes, pred: Path | Notes, options: NlpSandboxOptions
) -> Result:
    """The inner function of every ``score_nlpsandbox_*`` and ``count_nlpsandbox_*``: one
    category, or every category present in either side (``None``: ``nlpsandbox-all``)."""
    categories = list(CATEGORIES) if category is None else [category]
    texts = Numbering()
    kinds: dict[str, Numbering] = {}
    gold_file = _read(gold, "gold", categories, texts, kinds)
    pred_file = _read(pred, "prediction", categories, texts, kinds)
    if category is None:
        categories = [c for c in categories if gold_file.present(c) or pred_file.present(c)]
        if not categories:
            raise InputError("no PHI annotation array (textDateAnnotations, ...) in either file")
    documents = list(dict.fromkeys((*gold_file.note_ids, *pred_file.note_ids)))
    position = {doc: d for d, doc in enumerate(documents)}
    spans = TokenSpans(options.tokenizer, options.quotes)
    table = span_table(texts.values(), spans)
    columns: dict[str, IntArray] = {}
    overwritten = {"gold": 0, "prediction": 0}
    unknown_hipaa = 0
    for name in categories:
        prefix = "" if category else _prefix(name)
        tally = category_counts(
            _columns(gold_file, name, position),
            _columns(pred_file, name, position),
            table,
            len(documents),
            relax_margin=options.relax_margin,
            same_start=options.same_start,
            hipaa=hipaa_flags(kinds[name].values()) if name == "location" else None,
        )
        columns.update((prefix + key, column) for key, column in tally.columns.items())
        overwritten["gold"] += tally.overwritten_gold
        overwritten["prediction"] += tally.overwritten_pred
        unknown_hipaa += tally.unknown_hipaa
        spans.quote_fixes += tally.quote_fixes
    tallies = _tallies(gold_file, pred_file, categories, overwritten, unknown_hipaa, spans)
    split = len(tallies)
    boms = bom_warnings(gold, pred) if isinstance(gold, Path) and isinstance(pred, Path) else []
    if options.notes is not None:
        notes = read_notes(options.notes)
        tallies += _note_tallies(notes, [gold_file, pred_file], categories, texts)
    # a chunk of notes: its warnings pooled (_pooled); a chunk of a URL sees no mark
    keep((tallies, boms if not _of_url(gold, pred) else None, split))
    warnings = [*_given(tallies[:split]), *boms, *_given(tallies[split:])]
    matrix = CountMatrix.from_columns(documents, columns, integer=columns)
    result = get(f"nlpsandbox-{category or 'all'}").result(options, matrix, warnings=warnings)
    return _with_leaderboard(result, category, categories)


def _with_leaderboard(result: Result, category: str | None, categories: list[str]) -> Result:
    """``result`` with the fields derived from its counts: the leaderboard (and with
    ``nlpsandbox-all``, the categories scored)."""
    if category is not None:
        return result.with_extra(leaderboard=leaderboard(result.counts, category))
    board = {name: leaderboard(result.counts, name, _prefix(name)) for name in categories}
    return result.with_extra(categories=categories, leaderboard=board)


def _finish(category: str | None, result: Result, parts: Sequence[Result]) -> Result | None:
    """The chunks of a file cut by notes (:mod:`annoscore.scale`) combined: the leaderboard
    made again from the whole's counts; ``None`` (scored in one run) when the chunks of
    ``nlpsandbox-all`` scored other categories (one run scores those of the whole files)."""
    categories = list(parts[0].extra.get("categories", ()))
    if any(list(part.extra.get("categories", ())) != categories for part in parts):
        return None
    return _with_leaderboard(result, category, categories)


_NOTES = JsonDocuments(
    ("annotationSource", *tuple(name for c in CATEGORIES.values() for name in c.arrays)),
    note_document,
)
"""A file's notes: the objects of its array (:func:`~annoscore.scale.cut_json.split_json`)."""


def _cut(category: str | None) -> Callable[[Any], Any]:
    """``--jobs``: the two files cut by notes, at top-level elements of their arrays."""
    return chunked(
        f"nlpsandbox-{category or 'all'}",
        "json",
        order="gold-first",
        elements=_NOTES,
        finish=partial(_finish, category),
        pooled=_pooled,
        quotes_lines=False,
    )


class _OnFiles(Protocol):
    def __call__(
        self, gold: Path, pred: Path, options: NlpSandboxOptions = NlpSandboxOptions()
    ) -> Result: ...


class _InMemory(Protocol):
    def __call__(
        self, gold_notes: Notes, pred_notes: Notes, options: NlpSandboxOptions = NlpSandboxOptions()
    ) -> Result: ...


SAMPLE = (sample_path("nlpsandbox", "gold.json"), sample_path("nlpsandbox", "pred.json"))
"""The shipped sample's gold and prediction files (the examples below)."""

_SAME = "\n\n    Scores, undefined cases and settings as :func:`score_nlpsandbox_date`."


def _name(category: str | None) -> str:
    return (category or "all").replace("-", "_")


def _on_files(category: str | None, doc: str) -> _OnFiles:
    """``score_nlpsandbox_CATEGORY(gold, pred, options)``: ``category`` (``None``: all) of a
    gold and a prediction file, cut by notes with ``--jobs`` (:func:`_cut`); ``doc`` its doc."""

    def score(gold: Path, pred: Path, options: NlpSandboxOptions = NlpSandboxOptions()) -> Result:
        return _score(category, Path(gold), Path(pred), options)

    score.__name__ = score.__qualname__ = f"score_nlpsandbox_{_name(category)}"
    summary, example = doc.split("\n\n    >>> ", 1)
    score.__doc__ = f"{summary}{_SAME if category != 'date' else ''}\n\n    >>> {example}"
    scored: _OnFiles = _cut(category)(score)
    return scored


def _in_memory(category: str | None, doc: str) -> _InMemory:
    """``count_nlpsandbox_CATEGORY(gold_notes, pred_notes, options)``: the same on annotation
    objects in memory (:data:`Notes`); ``doc`` its doc."""

    def count(
        gold_notes: Notes, pred_notes: Notes, options: NlpSandboxOptions = NlpSandboxOptions()
    ) -> Result:
        return _score(category, gold_notes, pred_notes, options)

    count.__name__ = count.__qualname__ = f"count_nlpsandbox_{_name(category)}"
    count.__doc__ = doc
    return count


score_nlpsandbox_date = _on_files(
    "date",
    """Dates (``textDateAnnotations``; type ``dateFormat``, which the official reports as NaN)
    of a gold and a prediction file.

    Per metric (``instance_relax``, ``instance_strict``, ``token_strict``, ``type``: the module
    doc), tp, fp and fn summed over the notes; P = tp/(tp+fp), R = tp/(tp+fn), F1 =
    2tp/(2tp+fp+fn).  Undefined: P when tp+fp = 0, R when tp+fn = 0, F1 when tp+fp+fn = 0
    (``None``, named in a warning; the official table prints 0).  Settings
    (:class:`NlpSandboxOptions`, official defaults): ``tokenizer`` treebank, ``quotes`` fixed
    (the spec's decision; the client: official), ``same_start`` last, ``relax_margin`` 2; the
    same for every ``score_nlpsandbox_*`` below.

    >>> r = score_nlpsandbox_date(*SAMPLE)
    >>> r.counts["token_strict_tp"], r.extra["leaderboard"]["location_F1_token_strict"]
    (3, 0.86)
    """,
)


score_nlpsandbox_person = _on_files(
    "person",
    """Person names (``textPersonNameAnnotations``; type ``personType``, NaN officially).

    >>> r = score_nlpsandbox_person(*SAMPLE)
    >>> round(r.score, 4)  # the headline: token_strict_f1
    0.9091
    """,
)


score_nlpsandbox_location = _on_files(
    "location",
    """Locations (``textLocationAnnotations``/``locationType``, or schema 1.1's
    ``textPhysicalAddressAnnotations``/``addressType``), and ``hipaa``: same start and length
    and the same HIPAA-PHI flag of the location type (never computed officially).

    >>> r = score_nlpsandbox_location(*SAMPLE)
    >>> r.counts["hipaa_tp"], r.counts["type_tp"]
    (1, 1)
    """,
)


score_nlpsandbox_id = _on_files(
    "id",
    """Ids (``textIdAnnotations``; type ``idType``) of a gold and a prediction file.

    >>> r = score_nlpsandbox_id(*SAMPLE)
    >>> r.scores["instance_strict_f1"]
    1.0
    """,
)


score_nlpsandbox_contact = _on_files(
    "contact",
    """Contacts (``textContactAnnotations``; type ``contactType``) of a gold and a prediction
    file.

    >>> r = score_nlpsandbox_contact(*SAMPLE)
    >>> r.counts["token_strict_tp"], r.counts["token_strict_fn"]
    (4, 0)
    """,
)


score_nlpsandbox_covid_symptom = _on_files(
    "covid-symptom",
    """COVID symptoms (``textCovidSymptomAnnotations``; type ``condition``), by the other
    categories' rules (nlpsandbox-client 4.3.1 declares no evaluator for them).

    >>> r = score_nlpsandbox_covid_symptom(*SAMPLE)
    >>> r.scores["type_precision"], r.scores["type_recall"]
    (0.5, 1.0)
    """,
)


score_nlpsandbox_all = _on_files(
    None,
    """Every category whose array is in either file, the files read once: each key prefixed
    by its category (``location_token_strict_f1``), ``leaderboard`` per category, and no
    headline score (no score pools the categories).

    >>> r = score_nlpsandbox_all(*SAMPLE)
    >>> r.extra["categories"]
    ['date', 'person', 'location', 'id', 'contact', 'covid-symptom']
    """,
)


count_nlpsandbox_date = _in_memory(
    "date",
    """:func:`score_nlpsandbox_date` of annotation objects in memory (:data:`Notes`).

    >>> note = {"annotationSource": {"resourceSource": {"name": "notes/n1"}}}
    >>> gold = [{**note, "textDateAnnotations": [{"start": 3, "length": 4, "text": "2/18"}]}]
    >>> pred = [{**note, "textDateAnnotations": [{"start": 3, "length": 3, "text": "2/1"}]}]
    >>> r = count_nlpsandbox_date(gold, pred)
    >>> r.scores["instance_relax_f1"], r.scores["instance_strict_f1"]
    (1.0, 0.0)
    """,
)


count_nlpsandbox_person = _in_memory(
    "person",
    """:func:`score_nlpsandbox_person` of annotation objects in memory (:data:`Notes`).

    >>> note = {"annotationSource": {"resourceSource": {"name": "n1"}}}
    >>> gold = [{**note, "textPersonNameAnnotations": [{"start": 0, "length": 7,
    ...                                                  "text": "David's"}]}]
    >>> r = count_nlpsandbox_person(gold, [note])
    >>> r.counts["token_strict_fn"], r.scores["token_strict_precision"]
    (2, None)
    """,
)


count_nlpsandbox_location = _in_memory(
    "location",
    """:func:`score_nlpsandbox_location` of annotation objects in memory (:data:`Notes`).

    >>> def at(kind):
    ...     return [{"annotationSource": {"resourceSource": {"name": "n1"}},
    ...              "textLocationAnnotations": [{"start": 0, "length": 4, "text": "EHMS",
    ...                                           "locationType": kind}]}]
    >>> r = count_nlpsandbox_location(at("organization"), at("hospital"))
    >>> r.scores["type_f1"], r.scores["hipaa_f1"]
    (0.0, 0.0)
    """,
)


count_nlpsandbox_id = _in_memory(
    "id",
    """:func:`score_nlpsandbox_id` of annotation objects in memory (:data:`Notes`).

    >>> gold = [{"annotationSource": {"resourceSource": {"name": "n1"}},
    ...          "textIdAnnotations": [{"start": 4, "length": 6, "text": "123-45",
    ...                                 "idType": "ssn"}]}]
    >>> count_nlpsandbox_id(gold, gold).scores["type_f1"]
    1.0
    """,
)


count_nlpsandbox_contact = _in_memory(
    "contact",
    """:func:`score_nlpsandbox_contact` of annotation objects in memory (:data:`Notes`).

    >>> gold = [{"annotationSource": {"resourceSource": {"name": "n1"}},
    ...          "textContactAnnotations": [{"start": 0, "length": 14,
    ...                                      "text": "(617) 555-0142"}]}]
    >>> count_nlpsandbox_contact(gold, gold).counts["token_strict_tp"]
    4
    """,
)


count_nlpsandbox_covid_symptom = _in_memory(
    "covid-symptom",
    """:func:`score_nlpsandbox_covid_symptom` of annotation objects in memory (:data:`Notes`).

    >>> gold = [{"annotationSource": {"resourceSource": {"name": "n1"}},
    ...          "textCovidSymptomAnnotations": [{"start": 9, "length": 5, "text": "fever"}]}]
    >>> count_nlpsandbox_covid_symptom(gold, gold).scores["type_f1"]  # no condition: no match
    0.0
    """,
)


count_nlpsandbox_all = _in_memory(
    None,
    """:func:`score_nlpsandbox_all` of annotation objects in memory (:data:`Notes`).

    >>> gold = [{"annotationSource": {"resourceSource": {"name": "n1"}}, "textIdAnnotations": [],
    ...          "textDateAnnotations": [{"start": 3, "length": 4, "text": "2/18"}]}]
    >>> r = count_nlpsandbox_all(gold, gold, NlpSandboxOptions(tokenizer="whitespace"))
    >>> r.extra["categories"], r.scores["date_token_strict_f1"], r.scores["id_token_strict_f1"]
    (['date', 'id'], 1.0, None)
    """,
)


SPAN_NOTE = (
    "The categories below are by exact span and category: a prediction is correct where it "
    "has a gold annotation's start, length and category (instance_strict's match); the "
    "relaxed, token and type keys of the scores match otherwise, and the type values "
    "(dateFormat, locationType...) are not compared here."
)


def nlpsandbox_sides(
    gold: Path, pred: Path, options: NlpSandboxOptions, result: Result
) -> SpanSides:
    """Both files' notes as documents for the HTML report (the registration's ``sides``): the
    annotations of the category ``result`` scored (every category's for ``all``), with their
    texts where ``--notes`` gives them; the page says what the analysis compares, what it lacks
    without the notes, and where its correct annotations are not instance_strict's true
    positives (several annotations at one start)."""
    import dataclasses

    from annoscore.align.span_sides import SpanSides, exact_matches
    from annoscore.formats.brat_model import AnnFile

    category = result.task.removeprefix("nlpsandbox-")
    notes = read_notes(options.notes) if options.notes is not None else {}

    def documents(path: Path) -> dict[str, AnnFile]:
        out = {}
        for doc in read_sandbox_documents(path):
            mentions = tuple(m for m in doc.mentions if category in ("all", m.type))
            shown = dataclasses.replace(doc, mentions=mentions, text=notes.get(doc.id))
            out[doc.id] = AnnFile.of(shown)
        return out

    sides = SpanSides(documents(gold), documents(pred))
    said = [SPAN_NOTE]
    if not notes:
        said.append(
            "No note texts (give --notes): the viewer shows offsets, and the strings listed "
            "are the annotations' own texts."
        )
    same = exact_matches(sides)
    counts = result.counts
    for kind in sorted(
        {t for f in (*sides.gold.values(), *sides.system.values()) for t in f.types}
    ):
        prefix = "" if category != "all" else kind.replace("-", "_") + "_"
        key = f"{prefix}instance_strict_tp"
        if key in counts and int(counts[key]) != same.get(kind, 0):
            said.append(
                f"Here {same.get(kind, 0)} {kind} annotations are correct by span, where "
                f"instance_strict counts {int(counts[key])} (several annotations at one start "
                "count once there: --same-start)."
            )
    return sides.replaced(note=" ".join(said))
