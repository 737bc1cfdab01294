"""Buckets of a span report: the mentions grouped by length (characters and tokens), by how
often their text is a gold mention's, by how frequent their type is in the gold, by the length
of their document, continuous or discontinuous, and flat, nested or overlapping; each bucket
scored with its interval, and with several systems the per-bucket difference and its paired
test.

A bucket is a subset of the counts: per document, ``tp`` its gold mentions predicted exactly
(same fragments and type: the ``correct`` items of :mod:`annoscore.align.span_errors`), ``fn``
its other gold mentions, ``fp`` its predictions that are not correct; a prediction falls in the
bucket of its own length, text, type, document, fragments or nesting.  So a bucket is a count
matrix (documents x ``tp``, ``fp``, ``fn``) and the project's bootstrap and paired tests
(:mod:`annoscore.significance`) apply to it as to any result.  The counts are the strict pairing
of the error categories, whatever ``--mode`` the scores used (the note under the table says so).

Definitions (the note under the tables repeats them): a token is a maximal run of characters
that are not whitespace (Python's ``str.split``); a mention's tokens are those its characters
touch (of each fragment, added); its text is the document's text at its fragments joined by one
space (the ``.ann`` file's text where the document has none); a document's length is its tokens
(``text unknown`` without a text); a mention is nested when it contains, lies within or
repeats another mention of its side in its document, overlapping when it shares a character
with one without nesting, flat otherwise (outer bounds of a discontinuous mention).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from annoscore.align.span_errors import CORRECT
from annoscore.report.html_page import escape, fmt_count, fmt_score, table

LENGTHS = ((1, 3), (4, 6), (7, 10), (11, 20), (21, None))
"""Length buckets in characters (outer bounds), inclusive."""
FREQUENCIES = ("frequent types", "middle types", "rare types", "types not in the gold")
TOKENS = (1, 2, 3, 5)
"""Upper bounds (inclusive) of the token-length buckets; a last one beyond."""
SURFACES = (0, 1, 5, 20)
"""Upper bounds (inclusive) of the buckets of how many gold mentions have a mention's text."""
DOCUMENTS = (100, 300, 1000)
"""Upper bounds (inclusive) of the document-length buckets, in tokens."""
TEXT_CHUNK = 1 << 22
"""Characters of text tokenized at once (memory stays bounded on a large corpus)."""


KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "length": (
        "By length in characters",
        tuple(f"{a}-{b} characters" if b is not None else f"{a}+ characters" for a, b in LENGTHS),
    ),
    "tokens": (
        "By length in tokens",
        ("1 token", "2 tokens", "3 tokens", "4-5 tokens", "6+ tokens"),
    ),
    "surface": (
        "By how often the mention's text is a gold mention's",
        (
            "text never a gold mention's",
            "text of 1 gold mention",
            "text of 2-5 gold mentions",
            "text of 6-20 gold mentions",
            "text of 21+ gold mentions",
        ),
    ),
    "frequency": ("By type frequency in the gold", FREQUENCIES),
    "document": (
        "By the length of the mention's document",
        ("0-100 tokens", "101-300 tokens", "301-1000 tokens", "1001+ tokens", "text unknown"),
    ),
    "discontinuity": ("Continuous or discontinuous", ("continuous", "discontinuous")),
    "nesting": ("Flat, nested or overlapping", ("flat", "nested", "overlapping")),
}
"""Each kind of bucket: its title and its buckets' names, in order."""


@functools.cache
def _whitespace() -> Any:
    """Whether each code point up to U+3000 is whitespace (``str.isspace``; none is beyond)."""
    import numpy as np

    table = np.zeros(0x3001, dtype=bool)
    table[[c for c in range(0x3001) if chr(c).isspace()]] = True
    return table


def text_features(data: Mapping[str, Any]) -> Any:
    """:func:`_text_features` of an analysis's mentions (``data``: ``columns`` and ``sources``
    of :func:`annoscore.report.html_span_data.analyse`): every gold mention, and the predictions
    that are not correct (a correct one counts on the gold side only: its text is not
    needed)."""
    import numpy as np

    _, _, g, p, errors = data["columns"]
    texts, gold_files, pred_files = data["sources"]
    wrong = np.flatnonzero(errors.pred_category != CORRECT)
    every = np.arange(g.doc.shape[0])
    return _text_features(texts, (g, p), (every, wrong), (gold_files, pred_files))


def _text_features(
    texts: Sequence[str | None], sides: Sequence[Any], rows: Sequence[Any], files: Sequence[Any]
) -> tuple[list[Any], Any, list[Any], list[Any]]:
    """What the texts tell of the mentions ``rows`` of each side
    (:class:`~annoscore.report.html_span_data._Side`; ``files``: each side's files, for the
    mentions of a document without text): per side and mention, its tokens and how many gold
    mentions of the first side's ``rows`` have its text (0 outside ``rows``); the tokens of
    each document (-1: without text); and per side and mention a number of its text, equal
    exactly for equal texts of either side (-1 outside ``rows``).  The texts are read a few
    megabytes at a time as arrays of code points; a mention's text is kept as its code points,
    and equal texts are found by comparing them (:func:`_same_texts`), not as one string object
    per mention."""
    import numpy as np

    from annoscore.report.html_span_data import _rows, _surface

    n_docs = len(texts)
    table = _whitespace()
    per_doc = np.full(n_docs, -1, dtype=np.int64)
    tokens = [np.zeros(side.doc.shape[0], dtype=np.int64) for side in sides]
    content: list[Any] = []  # code points of the mentions' texts, one piece after another
    offset = [np.zeros(r.shape[0], dtype=np.int64) for r in rows]
    length = [np.zeros(r.shape[0], dtype=np.int64) for r in rows]
    used = 0
    row_docs = [side.doc[r] for side, r in zip(sides, rows, strict=True)]
    row_bounds = [_rows(d, n_docs) for d in row_docs]
    doc_bounds = [_rows(side.doc, n_docs) for side in sides]
    d0 = 0
    while d0 < n_docs:
        d1, size = d0, 0
        while d1 < n_docs and (d1 == d0 or size + len(texts[d1] or "") <= TEXT_CHUNK):
            size += len(texts[d1] or "") + 1
            d1 += 1
        group = [texts[d] or "" for d in range(d0, d1)]
        joined = "\n".join(group)  # a separator that is whitespace: no token crosses it
        lengths = np.array([len(t) for t in group], dtype=np.int64)
        base = np.cumsum(lengths + 1) - (lengths + 1)
        if joined.isascii():
            points: Any = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
            space = table[points]
        else:
            points = np.frombuffer(joined.encode("utf-32-le"), dtype="<u4")
            space = table[np.minimum(points, 0x3000)] & (points <= 0x3000)
        first = ~space
        first[1:] &= space[:-1]
        before = np.zeros(first.shape[0] + 1, dtype=np.int64)  # token starts before each place
        np.cumsum(first, out=before[1:])
        per_doc[d0:d1] = before[base + lengths] - before[base]
        for k, side in enumerate(sides):
            lo, hi = int(row_bounds[k][d0]), int(row_bounds[k][d1])
            if lo == hi:
                continue
            chosen = rows[k][lo:hi]
            doc = row_docs[k][lo:hi] - d0
            end = np.minimum(side.end[chosen], lengths[doc]) + base[doc]
            start = np.minimum(side.start[chosen] + base[doc], end)
            tokens[k][chosen] = _between(before, space, start, end)
            size_of = end - start
            offset[k][lo:hi] = used + np.cumsum(size_of) - size_of
            total = int(size_of.sum())
            within = np.arange(total, dtype=np.int64) - np.repeat(offset[k][lo:hi] - used, size_of)
            content.append(points[np.repeat(start, size_of) + within].astype(np.uint32))
            length[k][lo:hi] = size_of
            used += total
        d0 = d1
    per_doc[[d for d, t in enumerate(texts) if t is None]] = -1
    # mentions whose text is not one piece of a document's: discontinuous ones (fragments
    # joined by a space), those of a document without text (the .ann file's)
    for k, side in enumerate(sides):
        at = doc_bounds[k]
        odd = set(side.fragments)
        odd.update(
            r for d, t in enumerate(texts) if t is None for r in range(int(at[d]), int(at[d + 1]))
        )
        place = {int(r): i for i, r in enumerate(rows[k].tolist())} if odd else {}
        for r in sorted(odd):
            text = _surface(files[k], texts, side, at, r)
            document = texts[int(side.doc[r])]
            if document is None:
                tokens[k][r] = len(text.split())
            else:  # the tokens each fragment touches (a cut one is a piece of the slice)
                tokens[k][r] = sum(len(document[a:b].split()) for a, b in side.fragments[r])
            if r in place:
                i = place[r]
                piece = np.frombuffer(text.encode("utf-32-le"), dtype="<u4").astype(np.uint32)
                offset[k][i], length[k][i] = used, piece.shape[0]
                content.append(piece)
                used += piece.shape[0]
    every = np.concatenate(content) if content else np.zeros(0, dtype=np.uint32)
    if every.size and int(every.max()) < 256:
        every = every.astype(np.uint8)
    same = _same_texts(every, np.concatenate(offset), np.concatenate(length))
    n_gold = rows[0].shape[0]
    gold_count = np.bincount(same[:n_gold], minlength=int(same.max(initial=-1)) + 1)
    seen, numbers = [], []
    at_row = 0
    for k, side in enumerate(sides):
        counted = np.zeros(side.doc.shape[0], dtype=np.int64)
        number = np.full(side.doc.shape[0], -1, dtype=np.int64)
        number[rows[k]] = same[at_row : at_row + rows[k].shape[0]]
        counted[rows[k]] = gold_count[number[rows[k]]]
        at_row += rows[k].shape[0]
        seen.append(counted)
        numbers.append(number)
    return tokens, per_doc, seen, numbers


def _between(before: Any, space: Any, a: Any, b: Any) -> Any:
    """The tokens the characters ``[a, b)`` touch (``before``: how many tokens start before
    each place, ``space``: whether each character is whitespace): those starting after ``a``,
    and the one ``a`` is in."""
    import numpy as np

    if not space.shape[0]:
        return np.zeros(np.shape(a), dtype=np.int64)
    inside = np.where(b > a, before[b] - before[np.minimum(a + 1, b)], 0)
    return inside + ((a < b) & ~space[np.minimum(a, space.shape[0] - 1)])


def _mix(words: Any) -> Any:
    """A 64-bit mix of each row of ``words`` (equal rows, equal mixes)."""
    import numpy as np

    mix = words[:, 0].copy()
    for j in range(1, words.shape[1]):
        mix = (mix ^ (mix >> np.uint64(31))) * np.uint64(0x9E3779B97F4A7C15) + words[:, j]
    return mix


def _same_texts(content: Any, offset: Any, length: Any) -> Any:
    """A number per text (``content[offset:offset + length]``), equal exactly for equal texts.
    The texts of one length are rows of bytes: a 64-bit mix of each row proposes the classes
    (one integer sort), and every row is then compared with its class's first row; were two
    different texts to share a mix, that length is sorted as rows of bytes instead.  A mix only
    finds candidates: equality is the bytes'."""
    import numpy as np

    n = offset.shape[0]
    out = np.zeros(n, dtype=np.int64)
    if n == 0:
        return out
    order = np.argsort(length, kind="stable")
    sizes = length[order]
    cuts = np.flatnonzero(sizes[1:] != sizes[:-1]) + 1
    numbered = 0
    for part in np.split(order, cuts):
        size = int(length[part[0]])
        if size == 0:
            out[part] = numbered
            numbered += 1
            continue
        grid = content[offset[part][:, None] + np.arange(size, dtype=np.int64)]
        width = size * grid.itemsize
        padded = np.zeros((part.shape[0], -(-width // 8) * 8), dtype=np.uint8)
        padded[:, :width] = np.ascontiguousarray(grid).view(np.uint8).reshape(-1, width)
        words = padded.view(np.uint64)
        mix = _mix(words)
        firsts, inverse = np.unique(mix, return_index=True, return_inverse=True)[1:]
        inverse = inverse.ravel()
        if not (words == words[firsts[inverse]]).all():  # a shared mix: sort the bytes
            keys = np.ascontiguousarray(padded).view(np.dtype((np.void, padded.shape[1])))
            inverse = np.unique(keys.ravel(), return_inverse=True)[1].ravel()
        out[part] = inverse + numbered
        numbered += int(inverse.max()) + 1
    return out


def _nesting(side: Any) -> Any:
    """Per mention of ``side``: 0 flat, 1 nested (contains, lies within or repeats another
    mention of its document), 2 overlapping (shares a character with one, without nesting);
    on outer bounds."""
    import numpy as np

    doc, start, end = side.doc.astype(np.int64), side.start, side.end
    n = doc.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    width = int(max(int(end.max()), int(start.max()))) + 2
    key_s, key_e = doc * width + start, doc * width + end  # documents apart on one line
    # start ascending, end descending (one key where it fits in 63 bits)
    if int(key_s.max()) < (1 << 62) // width:
        order = np.argsort(key_s * width + (width - 1 - end), kind="stable")
    else:  # pragma: no cover - offsets beyond what a corpus holds
        order = np.lexsort((-end, start, doc))
    s, e = key_s[order], key_e[order]
    nested = np.zeros(n, dtype=bool)
    same = (s[1:] == s[:-1]) & (e[1:] == e[:-1])
    nested[order[1:][same]] = True
    nested[order[:-1][same]] = True
    # an earlier mention (start at most this one's) reaching this one's end holds it
    reach = np.empty(n, dtype=np.int64)
    reach[0] = -1
    reach[1:] = np.maximum.accumulate(e)[:-1]
    nested[order[reach >= e]] = True
    # a later mention (start at least this one's) ending within this one lies within it: the
    # same order read backwards (documents descending, starts descending, ends ascending)
    least = np.empty(n, dtype=np.int64)
    least[-1] = np.iinfo(np.int64).max
    least[:-1] = np.minimum.accumulate(e[::-1])[::-1][1:]
    nested[order[least <= e]] = True
    following = np.empty(n, dtype=np.int64)
    following[-1] = np.iinfo(np.int64).max
    following[:-1] = s[1:]
    touches = np.zeros(n, dtype=bool)
    touches[order[(reach > s) | (following < e)]] = True
    return np.where(nested, 1, np.where(touches, 2, 0))


def _table(bucket: Any, doc: Any, rows: Any, n_buckets: int, n_docs: int) -> Any:
    """How many of ``rows`` each bucket holds in each document (buckets x documents)."""
    import numpy as np

    cells = np.bincount(bucket[rows] * n_docs + doc[rows], minlength=n_buckets * n_docs)
    return cells.reshape(n_buckets, n_docs)


def bucket_matrices(data: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per kind (:data:`KINDS`) and bucket name, its count matrix, in :data:`KINDS`'s order
    (``data``: :func:`annoscore.report.html_span_data.analyse`'s, its ``columns``: document ids,
    type names, both sides' columns and the mentions' categories, and its ``features``:
    :func:`text_features`)."""
    import numpy as np

    from annoscore.result import CountMatrix

    ids, types, g, p, errors = data["columns"]
    n_docs = len(ids)
    g_right = errors.gold_category == CORRECT
    p_right = errors.pred_category == CORRECT

    def length_bucket(side: Any) -> Any:
        size = side.end - side.start
        bucket = np.full(size.shape[0], len(LENGTHS) - 1, dtype=np.int64)
        for k, (_, high) in reversed(list(enumerate(LENGTHS))):
            if high is not None:
                bucket[size <= high] = k
        return bucket

    gold_count = np.bincount(g.kind, minlength=len(types))
    order = np.argsort(-gold_count, kind="stable")
    share = np.cumsum(gold_count[order]) / max(1, int(gold_count.sum()))
    tier = np.empty(len(types), dtype=np.int64)
    tier[order] = np.where(share <= 1 / 3, 0, np.where(share <= 2 / 3, 1, 2))
    tier[order[:1]] = 0  # the most frequent type is frequent even alone past a third
    tier[gold_count == 0] = 3
    g_wrong = np.flatnonzero(~g_right)
    g_good = np.flatnonzero(g_right)
    p_wrong = np.flatnonzero(~p_right)
    (g_tokens, p_tokens), doc_tokens, (g_seen, p_seen), _ = data["features"]
    doc_bucket = np.where(
        doc_tokens < 0, len(DOCUMENTS) + 1, np.searchsorted(DOCUMENTS, doc_tokens)
    )

    def split(side: Any) -> Any:
        out = np.zeros(side.doc.shape[0], dtype=np.int64)
        out[list(side.fragments)] = 1
        return out

    found = {
        "length": (length_bucket(g), length_bucket(p)),
        "tokens": (np.searchsorted(TOKENS, g_tokens), np.searchsorted(TOKENS, p_tokens)),
        "surface": (np.searchsorted(SURFACES, g_seen), np.searchsorted(SURFACES, p_seen)),
        "frequency": (tier[g.kind], tier[p.kind]),
        "document": (doc_bucket[g.doc], doc_bucket[p.doc]),
        "discontinuity": (split(g), split(p)),
        "nesting": (_nesting(g), _nesting(p)),
    }
    out: dict[str, dict[str, Any]] = {}
    for kind, (_, names) in KINDS.items():
        g_bucket, p_bucket = found[kind]
        tp = _table(g_bucket, g.doc, g_good, len(names), n_docs)
        fp = _table(p_bucket, p.doc, p_wrong, len(names), n_docs)
        fn = _table(g_bucket, g.doc, g_wrong, len(names), n_docs)
        out[kind] = {}
        for b, name in enumerate(names):
            columns_of = {"tp": tp[b], "fp": fp[b], "fn": fn[b]}
            if not (tp[b].any() or fp[b].any() or fn[b].any()):
                continue
            out[kind][name] = CountMatrix.from_columns(ids, columns_of, integer=("tp", "fp", "fn"))
    return out


def bucket_data(
    matrices: Mapping[str, Mapping[str, Any]], bootstrap: tuple[int, float, int | None] | None
) -> dict[str, Any]:
    """The buckets as the page embeds them: per kind, a list of ``[name, counts, scores,
    intervals]`` (``intervals`` ``null`` without ``bootstrap``: samples, confidence, seed)."""
    from annoscore.metrics.prf import prf_scores
    from annoscore.significance import bootstrap_intervals

    out: dict[str, Any] = {}
    for kind, buckets in matrices.items():
        rows = []
        for name, matrix in buckets.items():
            counts = matrix.total()
            scores = prf_scores(counts)
            intervals = None
            if bootstrap is not None:
                samples, confidence, seed = bootstrap
                found = bootstrap_intervals(
                    (matrix, prf_scores), samples=samples, confidence=confidence, seed=seed
                )
                intervals = {k: None if v is None else list(v) for k, v in found.items()}
            tallies = {k: int(counts[k]) for k in ("tp", "fp", "fn")}
            tallies["gold"] = tallies["tp"] + tallies["fn"]
            rows.append([name, tallies, scores, intervals])
        out[kind] = rows
    return out


def _cell(value: Any, path: Sequence[Any], score: bool = True, tag: str = "td") -> str:
    shown = fmt_score(value) if score else fmt_count(value)
    title = "" if value is None else f' title="{escape(repr(value))}"'
    where = escape(json.dumps(list(path)))
    return f'<{tag} class="num" data-bucket-path="{where}"{title}>{shown}</{tag}>'


def _interval(bounds: Sequence[Any] | None, path: Sequence[Any], missing: str) -> str:
    """An interval's cell, each bound naming its place (``path`` then 0 or 1); ``-`` in a cell
    of class ``missing`` when there is none."""
    if bounds is None:
        return f'<td class="{missing}">-</td>'
    low = _cell(bounds[0], [*path, 0], tag="span")
    high = _cell(bounds[1], [*path, 1], tag="span")
    return f'<td class="ci">[{low}, {high}]</td>'


def _title(kind: str) -> str:
    return KINDS[kind][0] if kind in KINDS else kind


def bucket_tables(data: Mapping[str, Any]) -> str:
    """The bucket tables: per kind, one row per bucket with its counts and scores (and their
    intervals when there are some)."""
    parts = []
    for kind, rows in data.items():
        with_ci = any(r[3] is not None for r in rows)
        head = "<th>bucket</th>" + "".join(
            f"<th class='num'>{k}</th>" for k in ("gold", "tp", "fp", "fn")
        )
        for k in ("precision", "recall", "f1"):
            head += f"<th class='num'>{k}</th>" + (
                "<th class='num'>interval</th>" if with_ci else ""
            )
        body = []
        for i, (name, counts, scores, intervals) in enumerate(rows):
            cells = f'<td class="name">{escape(name)}</td>'
            cells += "".join(
                _cell(counts[k], [kind, i, 1, k], False) for k in ("gold", "tp", "fp", "fn")
            )
            for k in ("precision", "recall", "f1"):
                cells += _cell(scores[k], [kind, i, 2, k])
                if with_ci:
                    bounds = None if intervals is None else intervals.get(k)
                    cells += _interval(bounds, [kind, i, 3, k], "num muted")
            body.append(f"<tr>{cells}</tr>")
        parts.append(
            f"<h3>{escape(_title(kind))}</h3><div class='scroll'>{table(head, body)}</div>"
        )
    return "".join(parts)


NOTE = (
    "A bucket holds the gold mentions and the predictions of its length in characters (outer "
    "bounds) or in tokens (maximal runs of non-whitespace characters a mention touches; one "
    "without any counts in the first bucket), of how many gold mentions have its text "
    "(exactly, the fragments joined by a space; 0 for a prediction whose text no gold "
    "mention has), of its type's frequency in the gold (the types sorted by gold count: those "
    "reaching the first third of the gold mentions are frequent, the second third middle, the "
    "rest rare), of its document's length in tokens, continuous or discontinuous, and nested "
    "(containing, within or repeating another mention of its side in its document), "
    "overlapping (sharing a character with one, without nesting) or flat (outer bounds). "
    "tp: gold mentions predicted exactly (span and type), fn: the other gold mentions, fp: "
    "the predictions not exact; counted with the error categories' strict pairing whatever "
    "--mode the scores used. Intervals (with --bootstrap): percentile bootstrap over the "
    "documents."
)


def compare_buckets(
    systems: Mapping[str, Mapping[str, Mapping[str, Any]]],
    *,
    test: str = "bootstrap",
    samples: int | None = None,
    seed: int | None = 12345,
    confidence: float = 0.95,
) -> dict[str, Any]:
    """Per kind and bucket, each system against the first (the baseline): the paired test of
    :func:`annoscore.significance.paired_test` on the bucket's count matrices (``systems``:
    per system, :func:`bucket_matrices`).  Returns per kind a list of ``[bucket, {system:
    comparison}]`` (the JSON of :class:`~annoscore.significance.SystemComparison`; a bucket a
    system lacks is empty for it)."""
    from annoscore.counts import Counts
    from annoscore.metrics.prf import prf_scores
    from annoscore.result import CountMatrix, Result
    from annoscore.signature import Signature

    names = list(systems)
    baseline = names[0]
    kinds: dict[str, list[str]] = {}
    for matrices in systems.values():
        for kind, found in matrices.items():
            listed = kinds.setdefault(kind, [])
            listed.extend(b for b in found if b not in listed)
    signature = Signature.of("spans-bucket")
    out: dict[str, Any] = {}
    for kind, listed in kinds.items():
        order = list(KINDS[kind][1])
        rows = []
        for bucket in sorted(listed, key=order.index):
            results = {}
            for name in names:
                matrix = systems[name].get(kind, {}).get(bucket)
                if matrix is None:
                    documents = next(
                        m.get(kind, {})[bucket].documents
                        for m in systems.values()
                        if bucket in m.get(kind, {})
                    )
                    matrix = CountMatrix.of({d: Counts(tp=0, fp=0, fn=0) for d in documents})
                results[name] = Result.from_counts("spans-bucket", signature, matrix, prf_scores)
            from annoscore.significance import paired_test

            tested = paired_test(
                results[baseline],
                {n: results[n] for n in names[1:]},
                test=test,
                samples=samples,
                seed=seed,
                confidence=confidence,
                baseline_name=baseline,
            )
            rows.append([bucket, {n: c.to_json_dict() for n, c in tested.systems.items()}])
        out[kind] = rows
    return out


def comparison_tables(data: Mapping[str, Any], names: Sequence[str]) -> str:
    """Per kind, one row per bucket: each system's F1 and, beside the baseline, the difference,
    its interval and p-value (bold below 0.05); every number names its place in ``data``
    (``data-bucket-path``)."""
    parts = []
    for kind, rows in data.items():
        head = "<th>bucket</th>" + "".join(
            f"<th class='num'>{escape(n)} f1</th>"
            + (
                ""
                if i == 0
                else "<th class='num'>difference</th><th>interval</th><th class='num'>p</th>"
            )
            for i, n in enumerate(names)
        )
        body = []
        for r, (bucket, systems) in enumerate(rows):
            cells = f'<td class="name">{escape(bucket)}</td>'
            for i, n in enumerate(names):
                entry = systems.get(n, {})
                path = [kind, r, 1, n]
                cells += _cell(entry.get("scores", {}).get("f1"), [*path, "scores", "f1"])
                if i == 0:
                    continue
                cells += _cell(entry["difference"].get("f1"), [*path, "difference", "f1"])
                cells += _interval(entry["interval"].get("f1"), [*path, "interval", "f1"], "muted")
                p = entry["p_value"].get("f1")
                cell = _cell(p, [*path, "p_value", "f1"])
                if p is not None and p < 0.05:
                    cell = cell.replace('class="num"', 'class="num sig"', 1)
                cells += cell
            body.append(f"<tr>{cells}</tr>")
        parts.append(
            f"<h3>{escape(_title(kind))}</h3><div class='scroll'>{table(head, body)}</div>"
        )
    return "".join(parts)
