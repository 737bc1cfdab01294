"""Benchmark: ``annoscore coref`` on a CoNLL-2012-test-sized pair, against scorch (if installed).

Data (seeded, generated here): 348 documents whose token counts follow a log-normal law (median
about 330 tokens, the largest several thousand, about 170,000 tokens in all, like the CoNLL-2012
English test set), about 21,000 key mentions in chains of 2 or more (CoNLL keys have no
singletons), and a response that misses 20% of the mentions, shifts 5% of the boundaries, adds 15%
spurious mentions and puts 15% of the mentions in a wrong chain.

Timed: ``annoscore coref KEY RESPONSE --metric all --format json`` end to end (a fresh process:
start-up, reading both files, all metrics), median of 3 runs.  The reference Perl scorer needs
about 12 s for ``all`` on such an input on a 2-core machine (../shared/spec/peers.md); it is not
installed here.  Peer measured in the same run: scorch 0.2.0 (PyPI, MIT), its metric functions
(muc, b_cubed, ceaf_m, ceaf_e, blanc) per document on the already-parsed partitions (reading not
counted), checked against annoscore's per-document scores.

Run: ``python benchmarks/coref.py`` (add ``--keep DIR`` to keep the generated files).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DOCUMENTS = 348
SEED = 2012
MENTIONS_PER_TOKEN = 0.124


def _chains(count: int, rnd: random.Random) -> list[int]:
    """Chain sizes (>= 2) adding up to ``count``."""
    sizes: list[int] = []
    left = count
    while left >= 2:
        size = min(left, 2 + int(rnd.expovariate(1 / 2.5)))
        if left - size == 1:
            size += 1
        sizes.append(size)
        left -= size
    if left and sizes:
        sizes[-1] += left
    return sizes


def _document(tokens: int, rnd: random.Random) -> tuple[list[list[tuple[int, int]]], list[list]]:
    """A key partition and a response partition over token spans of one document."""
    wanted = max(2, round(tokens * MENTIONS_PER_TOKEN))
    spans: set[tuple[int, int]] = set()
    while len(spans) < wanted:
        start = rnd.randrange(tokens)
        length = min(int(rnd.expovariate(1 / 1.5)), 8)
        spans.add((start, min(tokens - 1, start + length)))
    order = sorted(spans)
    rnd.shuffle(order)
    key: list[list[tuple[int, int]]] = []
    position = 0
    for size in _chains(len(order), rnd):
        key.append(order[position : position + size])
        position += size
    response: list[list[tuple[int, int]]] = [[] for _ in key]
    used: set[tuple[int, int]] = set()
    for chain_id, chain in enumerate(key):
        for span in chain:
            if rnd.random() < 0.20:
                continue  # missed
            if rnd.random() < 0.05:
                span = (span[0], min(tokens - 1, span[1] + 1))  # boundary error
            if span in used:
                continue
            target = chain_id if rnd.random() >= 0.15 else rnd.randrange(len(key) + 3)
            while target >= len(response):
                response.append([])
            response[target].append(span)
            used.add(span)
    for _ in range(round(0.15 * len(spans))):
        start = rnd.randrange(tokens)
        span = (start, min(tokens - 1, start + int(rnd.expovariate(1.0))))
        if span in used:
            continue
        used.add(span)
        if rnd.random() < 0.5:
            response.append([span])
        else:
            response[rnd.randrange(len(response))].append(span)
    return key, [chain for chain in response if chain]


def _write(path: Path, documents: list[tuple[str, int, list[list[tuple[int, int]]]]]) -> None:
    lines: list[str] = []
    for name, tokens, chains in documents:
        singles: dict[int, list[str]] = {}
        opens: dict[int, list[tuple[int, str]]] = {}
        closes: dict[int, list[tuple[int, str]]] = {}
        for chain_id, chain in enumerate(chains):
            for start, end in chain:
                if start == end:
                    singles.setdefault(start, []).append(f"({chain_id})")
                else:
                    opens.setdefault(start, []).append((-end, f"({chain_id}"))
                    closes.setdefault(end, []).append((-start, f"{chain_id})"))
        lines.append(f"#begin document ({name}); part 000")
        for token in range(tokens):
            parts = [p for _, p in sorted(opens.get(token, []))]
            parts += singles.get(token, [])
            parts += [p for _, p in sorted(closes.get(token, []))]
            cell = "|".join(parts) or "-"
            lines.append(f"{name}\t0\t{token}\tw{token}\t{cell}")
            if token % 23 == 22:
                lines.append("")
        lines.append("#end document")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def generate(folder: Path) -> tuple[Path, Path, int, int]:
    rnd = random.Random(SEED)
    key_docs, response_docs = [], []
    total_tokens = total_mentions = 0
    for index in range(DOCUMENTS):
        tokens = max(20, min(9000, round(rnd.lognormvariate(math.log(330), 0.85))))
        key, response = _document(tokens, rnd)
        name = f"bench/doc_{index:04d}"
        key_docs.append((name, tokens, key))
        response_docs.append((name, tokens, response))
        total_tokens += tokens
        total_mentions += sum(len(c) for c in key)
    key_path, response_path = folder / "key.conll", folder / "response.conll"
    _write(key_path, key_docs)
    _write(response_path, response_docs)
    return key_path, response_path, total_tokens, total_mentions


def time_annoscore(key: Path, response: Path, *extra: str) -> tuple[float, dict]:
    command = [sys.executable, "-m", "annoscore", "coref", str(key), str(response)]
    command += ["--metric", "all", "--format", "json", *extra]
    runs = []
    output = ""
    for _ in range(3):
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        runs.append(time.perf_counter() - started)
        output = done.stdout
    return statistics.median(runs), json.loads(output)


def time_scorch(key: Path, response: Path) -> tuple[float, dict[str, dict[str, tuple]]] | None:
    try:
        from scorch import scores
    except ImportError:
        return None
    from annoscore.formats.conll import read_conll

    keys = read_conll(key).by_name()
    responses = read_conll(response).by_name()
    functions = {
        "muc": scores.muc,
        "bcub": scores.b_cubed,
        "ceafm": scores.ceaf_m,
        "ceafe": scores.ceaf_e,
        "blanc": scores.blanc,
    }
    pairs = [
        (name, [set(e) for e in document.entities], [set(e) for e in responses[name].entities])
        for name, document in keys.items()
    ]
    results: dict[str, dict[str, tuple]] = {}
    started = time.perf_counter()
    for name, k, r in pairs:
        results[name] = {metric: function(k, r) for metric, function in functions.items()}
    return time.perf_counter() - started, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keep", type=Path, help="write the generated files here and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        key, response, tokens, mentions = generate(folder)
        print(
            f"data: {DOCUMENTS} documents, {tokens} tokens, {mentions} key mentions (seed {SEED})"
        )
        seconds, data = time_annoscore(key, response)
        print(f"annoscore coref --metric all (end to end, median of 3): {seconds:.2f} s")
        scores = data["scores"]
        print(f"  CoNLL F1 {scores['conll_f1']:.4f}  BLANC F1 {scores['blanc_f1']:.4f}")
        print(f"  vs reference scorer.pl all (documented, ~12 s): {12 / seconds:.0f}x faster")
        peer = time_scorch(key, response)
        if peer is None:
            print("scorch not installed (pip install scorch): peer comparison skipped")
            return
        peer_seconds, peer_scores = peer
        _, per_doc = time_annoscore(key, response, "--per-doc")
        agree = total = 0
        for name, by_metric in peer_scores.items():
            ours = per_doc["documents"][name]["scores"]
            for metric, (r, p, f) in by_metric.items():
                total += 1
                mine = (ours[f"{metric}_recall"], ours[f"{metric}_precision"], ours[f"{metric}_f1"])
                agree += all(
                    math.isclose(a, b, abs_tol=1e-9) for a, b in zip(mine, (r, p, f), strict=True)
                )
        print(
            f"scorch 0.2.0 metric functions (muc, b_cubed, ceaf_m, ceaf_e, blanc per document, "
            f"parsing not counted): {peer_seconds:.2f} s -> annoscore end to end is "
            f"{peer_seconds / seconds:.1f}x faster"
        )
        print(f"  per-document R/P/F agreeing with scorch: {agree}/{total}")


if __name__ == "__main__":
    main()
