"""A plain trec_eval ``map`` from the definitions, for ``tests/equivalence/test_trec.py``.

Everything is bytes and Python objects, one line at a time, as ``../shared/spec/trec.md`` and
the reader's rules (``annoscore.formats.trec``'s module doc) state it:

- A file is split at ``\\n``; the empty text after a final newline is no line.  A leading UTF-8
  byte-order mark is dropped (warning ``formats.bom``); a NUL byte anywhere is an error at its
  line, before anything else.  Fields are split at ASCII whitespace (``bytes.split()``).
- A line whose first byte is ``#`` (after a byte-order mark) is a comment, skipped (warning
  ``trec.comment-line``); with ``trec_eval`` "9.0.8" a line like any other, and every score is
  rounded to a C ``float`` before ranking.
- a line with no field is skipped (warning ``trec.blank-line``: trec_eval refuses it); qrels:
  otherwise exactly 4 fields, the relevance an optional sign, ASCII digits, and optionally a
  point and more digits (read as the integer part: warning ``trec.decimal-relevance``), within
  a signed 64-bit integer.
- run: a line with no field is skipped; otherwise at least 6 fields (more: warning
  ``trec.extra-fields``, the rest ignored); the score a decimal number with an optional
  exponent, or ``inf``/``infinity`` in any case, with an optional sign; NaN and a numeral too
  large for a double are errors.
- A line whose bytes are not UTF-8 is read (warning ``trec.non-utf8``).
- The first bad line of a file is the error (the run is read before the qrels); a file with no
  line of fields is an error; then a document retrieved twice for a query (at the second
  occurrence that comes first in the file), then two query ids that read alike once shown with
  ``\\x`` escapes.
- A judgment repeated for a (query, document) keeps the last line (warning
  ``trec.duplicate-judgments``, naming the repeating lines).
- Relevant: judged with a relevance >= max(level, 0).  Ranking: score descending, then document
  id descending (bytes); only the first ``max_docs``.  AP = sum of (relevant so far / rank) at
  each relevant rank, over the number of relevant judgments (0 if none); MAP = the mean over
  the judged queries that the run has, plus, with ``complete``, the judged
  queries it lacks with AP 0, added in the order of the ids' bytes (trec_eval's).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field


class OracleError(Exception):
    """Where the reference stops: ``(file, line)``, ``line`` None for a whole-file error."""

    def __init__(self, file: str, line: int | None, what: str) -> None:
        super().__init__(f"{file}:{line}: {what}")
        self.file, self.line, self.what = file, line, what


@dataclass
class OracleWarning:
    code: str
    count: int
    examples: list[str]
    text: str = ""  # a finished sentence (code "note"); the kind of file (a blank line's)


@dataclass
class OracleFile:
    rows: list[tuple[bytes, bytes, object, int]]  # query, document, value, line
    tags: list[bytes] = field(default_factory=list)
    warnings: list[OracleWarning] = field(default_factory=list)


@dataclass
class OracleResult:
    per_query: dict[str, tuple[float, int, int, int]]  # ap, relevant, retrieved, rel. retrieved
    map: float | None
    counts: dict[str, float]
    warnings: list[OracleWarning]
    runid: str


def shown(token: bytes) -> str:
    return token.decode("utf-8", "backslashreplace")


def _lines(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    return lines


def _relevance(token: bytes) -> tuple[int, bool] | None:
    """The relevance a token gives and whether it had a decimal point, None if malformed."""
    body = token[1:] if token[:1] in (b"+", b"-") else token
    whole, point, fraction = body.partition(b".")
    ascii_digits = b"0123456789"
    if not whole or any(c not in ascii_digits for c in whole):
        return None
    if any(c not in ascii_digits for c in fraction):
        return None
    value = 0
    for c in whole:
        value = value * 10 + (c - 48)
        if value > 2**63:
            return None  # out of range whatever follows
    value = -value if token[:1] == b"-" else value
    if not -(2**63) <= value < 2**63:
        return None
    return value, bool(point)


def _is_digits(text: bytes) -> bool:
    return bool(text) and all(48 <= c <= 57 for c in text)


def _score(token: bytes) -> float | str:
    """The score a token gives, or why it is refused."""
    body = token[1:] if token[:1] in (b"+", b"-") else token
    if body.lower() == b"nan":
        return "nan"
    if body.lower() in (b"inf", b"infinity"):
        return float(token.decode())
    mantissa, e, exponent = body.replace(b"E", b"e").partition(b"e")
    if e and not _is_digits(exponent[1:] if exponent[:1] in (b"+", b"-") else exponent):
        return "not a number"
    whole, _, fraction = mantissa.partition(b".")
    if (whole and not _is_digits(whole)) or (fraction and not _is_digits(fraction)):
        return "not a number"
    if not whole and not fraction:
        return "not a number"
    number = float(token.decode("ascii"))
    if number in (float("inf"), float("-inf")):
        return "out of range"
    return number


def read(data: bytes, kind: str, label: str, comments: bool = True) -> OracleFile:
    """One file (``kind`` "qrels" or "run") as rows; ``label`` names it in warnings."""
    warnings: list[OracleWarning] = []
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
        warnings.append(OracleWarning("formats.bom", 1, [label]))
    if b"\0" in data:
        raise OracleError(kind, data[: data.index(b"\0")].count(b"\n") + 1, "NUL")
    rows: list[tuple[bytes, bytes, object, int]] = []
    tags: list[bytes] = []
    non_utf8, blank, extra, decimal, comment = [], [], [], [], []
    for number, line in enumerate(_lines(data), 1):
        if comments and line.startswith(b"#"):
            comment.append(number)
            continue
        fields = line.split()
        if not fields:
            blank.append(number)
            continue
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            non_utf8.append(number)
        if kind == "qrels":
            if len(fields) != 4:
                raise OracleError(kind, number, "fields")
            parsed = _relevance(fields[3])
            if parsed is None:
                raise OracleError(kind, number, "relevance")
            if parsed[1]:
                decimal.append(number)
            rows.append((fields[0], fields[2], parsed[0], number))
        else:
            if len(fields) < 6:
                raise OracleError(kind, number, "fields")
            if len(fields) > 6:
                extra.append(number)
            score = _score(fields[4])
            if isinstance(score, str):
                raise OracleError(kind, number, score)
            rows.append((fields[0], fields[2], score, number))
            if fields[5] not in tags:
                tags.append(fields[5])
    if not rows:
        raise OracleError(kind, None, "empty")

    def lines_warning(code: str, lines: list[int], text: str = "") -> None:
        if lines:
            examples = [f"{label}:{n}" for n in lines[:5]]
            warnings.append(OracleWarning(code, len(lines), examples, text))

    lines_warning("trec.comment-line", comment)
    lines_warning("trec.non-utf8", non_utf8)
    lines_warning("trec.blank-line", blank, kind)  # one of each kind of file: their texts differ
    if kind == "qrels":
        lines_warning("trec.decimal-relevance", decimal)
    else:
        lines_warning("trec.extra-fields", extra)
    return OracleFile(rows, tags, warnings)


def _merged(warnings: list[OracleWarning]) -> list[OracleWarning]:
    """Warnings of one code (and sentence) as one, in first-seen order: counts added, examples
    pooled (at most 5, no repeats)."""
    out: dict[tuple[str, str], OracleWarning] = {}
    for w in warnings:
        key = (w.code, w.text)
        if key in out:
            first = out[key]
            pooled = list(dict.fromkeys(first.examples + w.examples))[:5]
            out[key] = OracleWarning(w.code, first.count + w.count, pooled, w.text)
        else:
            out[key] = OracleWarning(w.code, w.count, list(w.examples), w.text)
    return list(out.values())


def score(
    qrels_data: bytes,
    run_data: bytes,
    qrels_label: str,
    run_label: str,
    *,
    complete: bool = False,
    relevance_level: int = 1,
    max_docs: int | None = None,
    trec_eval: str = "master",
) -> OracleResult:
    """trec_eval ``map`` of the run against the qrels, by the definitions (module doc);
    :class:`OracleError` where the input is refused.  ``trec_eval`` "9.0.8": no comment lines,
    each score rounded to a C ``float`` before ranking."""
    comments = trec_eval == "master"
    run = read(run_data, "run", run_label, comments)
    qrels = read(qrels_data, "qrels", qrels_label, comments)

    judged_queries: list[bytes] = []
    judgments: dict[tuple[bytes, bytes], int] = {}
    repeated_lines = []
    for query, document, relevance, line in qrels.rows:
        if query not in judged_queries:
            judged_queries.append(query)
        if (query, document) in judgments:
            repeated_lines.append(line)
        judgments[(query, document)] = relevance  # type: ignore[assignment]

    run_queries: list[bytes] = []
    ranked: dict[bytes, list[tuple[float, bytes]]] = {}
    first_line: dict[tuple[bytes, bytes], int] = {}
    duplicates = []
    for query, document, score_, line in run.rows:
        if query not in ranked:
            run_queries.append(query)
            ranked[query] = []
        key = (query, document)
        if key in first_line:
            duplicates.append((line, first_line[key]))
            continue
        first_line[key] = line
        if not comments:  # 9.0.8 keeps each score in a C float
            score_ = ctypes.c_float(score_).value  # type: ignore[arg-type]
        ranked[query].append((score_, document))  # type: ignore[arg-type]
    if duplicates:
        line, _ = min(duplicates)
        raise OracleError("run", line, "duplicate")

    every_query = judged_queries + [q for q in run_queries if q not in judged_queries]
    names: dict[str, bytes] = {}
    for query in every_query:
        other = names.setdefault(shown(query), query)
        if other != query:
            odd = query if shown(query).encode() != query else other
            for kind, rows in (("qrels", qrels.rows), ("run", run.rows)):
                lines = [line for q, _, _, line in rows if q == odd]
                if lines:
                    raise OracleError(kind, lines[0], "query names")

    threshold = max(relevance_level, 0)
    per_query: dict[str, tuple[float, int, int, int]] = {}
    in_run = [q for q in judged_queries if q in ranked]
    missing = [q for q in judged_queries if q not in ranked]
    relevant_of: dict[bytes, int] = {}
    for (q, _), rel in judgments.items():
        relevant_of[q] = relevant_of.get(q, 0) + (rel >= threshold)
    # trec_eval evaluates (and adds) the queries in the order of their ids' bytes
    for query in sorted(in_run + (missing if complete else [])):
        num_rel = relevant_of[query]
        ranking = sorted(ranked.get(query, []), reverse=True)
        if max_docs is not None:
            ranking = ranking[:max_docs]
        hits, precision_sum = 0, 0.0
        for rank, (_, document) in enumerate(ranking, 1):
            rel = judgments.get((query, document))
            if rel is not None and rel >= threshold:
                hits += 1
                precision_sum += hits / rank
        ap = precision_sum / num_rel if num_rel else 0.0
        per_query[shown(query)] = (ap, num_rel, len(ranking), hits)

    ap_sum = 0.0
    for ap, *_ in per_query.values():
        ap_sum += ap
    counted = len(per_query)
    counts = {
        "map_sum": ap_sum,
        "num_q": counted,
        "num_rel": sum(v[1] for v in per_query.values()),
        "num_ret": sum(v[2] for v in per_query.values()),
        "num_rel_ret": sum(v[3] for v in per_query.values()),
    }
    mean = ap_sum / counted if counted else None

    warnings = [*qrels.warnings, *run.warnings]
    unjudged = [q for q in run_queries if q not in judged_queries]
    if unjudged:
        listed = ", ".join(shown(q) for q in unjudged[:5])
        warnings.append(
            OracleWarning(
                "note",
                1,
                [],
                f"{len(unjudged)} queries of the run have no judgments and are ignored, as "
                f"trec_eval does (e.g. {listed})",
            )
        )
    if missing:
        if complete:
            rest = counted - len(missing)
            alt = "undefined" if not rest else f"{ap_sum / rest:.4f}"
            text = (
                f"{len(missing)} judged queries are not in the run and count as AP 0 (-c); "
                f"without -c MAP would be {alt}"
            )
        else:
            text = (
                f"{len(missing)} judged queries are not in the run and are ignored, as "
                "trec_eval 9.0.8 does without -c (trec_eval master exits on such a run unless "
                f"-c); with -c MAP would be "
                f"{ap_sum / (counted + len(missing)):.4f}"
            )
        warnings.append(OracleWarning("note", 1, [], text))
    if repeated_lines:
        examples = [f"{qrels_label}:{n}" for n in sorted(repeated_lines)[:5]]
        warnings.append(OracleWarning("trec.duplicate-judgments", len(repeated_lines), examples))
    if mean is None:  # design.md: every undefined score is named in the warnings
        warnings.append(OracleWarning("undefined", 1, []))
    tags = sorted(shown(t) for t in run.tags)
    return OracleResult(per_query, mean, counts, _merged(warnings), ",".join(tags))
