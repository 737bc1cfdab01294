"""Benchmark: ``annoscore coref`` end to end (whole processes, files in, report out) against scorch.

Data (seeded, generated here): by default 348 documents (``--docs``) whose token counts follow a
log-normal law (median about 330 tokens, the largest several thousand: about 170,000 tokens in
all, like the CoNLL-2012 English test set), in sentences of 8-40 tokens, 13 columns per token line
as in the CoNLL-2012 release (document, part, token, word, POS, parse bit, lemma, frameset, sense,
speaker, named entity, one argument column, coreference).  About 21,000 key mentions, each inside
one sentence, in chains of 2 or more (CoNLL keys have no singletons); the response misses 20% of
the mentions, shifts 5% of the end boundaries (inside the sentence), adds 15% spurious mentions
and puts 15% of the mentions in a wrong chain.

Timed, as whole processes on the same two files, alternating runs (``--rounds``, median), with
each process's peak memory (``wait4``):

- ``annoscore coref KEY RESPONSE --metric all --format json`` (mentions, MUC, B3, CEAFm, CEAFe,
  BLANC, LEA, CoNLL score);
- scorch 0.2.0 (PyPI, MIT) as its documentation says to run it from CoNLL files: its converter
  ``python -m scorch.conll`` on each file (one JSON file per document), then
  ``scorch KEY_DIR SYS_DIR OUT`` (MUC, B3, CEAFm, CEAFe, BLANC, CoNLL).  Its printed numbers are
  *not* the reference's by design (it adds twinless response mentions to the key as singletons
  and averages per-document scores weighted by mention counts, ../shared/spec/coref.md §5), so
  they are not compared;
- scorch as a library, one process: ``scorch.conll.parse_file`` on both files and its five metric
  functions per document, printing per-document (R, P, F).  These are compared with annoscore's
  ``--per-doc`` scores (they must agree to 1e-9 on every document and metric).

coval (ns-moosavi/coval) is not measured: it is not on PyPI (the PyPI project ``coval`` is an
unrelated code-generation tool), and annoscore installs peers from the package index only.

In memory (labelled as such): :func:`annoscore.tasks.coref.count_coref` on the partitions of the
parsed files against scorch's five functions on the same partitions.

Run: ``python benchmarks/coref.py [--docs 348] [--rounds 3] [--keep DIR] [--scaling]``;
``--scaling`` adds the 10x input (3,480 documents) and prints time per document and memory growth.

The figures are in the README's Speed section.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import installed

SEED = 2012
MENTIONS_PER_TOKEN = 0.124
Span = tuple[int, int]


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


def _sentences(tokens: int, rnd: random.Random) -> list[tuple[int, int]]:
    """(first, last) token of each sentence."""
    out = []
    start = 0
    while start < tokens:
        end = min(tokens - 1, start + rnd.randint(8, 40) - 1)
        out.append((start, end))
        start = end + 1
    return out


def _span(sentence: tuple[int, int], rnd: random.Random, mean: float) -> Span:
    start = rnd.randint(*sentence)
    return start, min(sentence[1], start + min(int(rnd.expovariate(1 / mean)), 8))


def _crosses(span: Span, others: list[Span]) -> bool:
    """Whether ``span`` overlaps one of ``others`` without nesting (brackets cannot say that)."""
    s1, e1 = span
    return any(s1 < s2 <= e1 < e2 or s2 < s1 <= e2 < e1 for s2, e2 in others)


def _document(tokens: int, rnd: random.Random) -> tuple[list[tuple[int, int]], list, list]:
    """Sentences, a key partition and a response partition over token spans of one document.

    Mentions lie inside one sentence and nest without crossing, as parse-tree noun phrases do.
    """
    sentences = _sentences(tokens, rnd)
    sentence_of = {t: s for s in sentences for t in range(s[0], s[1] + 1)}
    wanted = max(2, round(tokens * MENTIONS_PER_TOKEN))
    spans: set[Span] = set()
    placed: dict[tuple[int, int], list[Span]] = {}
    attempts = 0
    while len(spans) < wanted and attempts < 20 * wanted:
        attempts += 1
        sentence = rnd.choice(sentences)
        span = _span(sentence, rnd, 1.5)
        if span not in spans and not _crosses(span, placed.get(sentence, [])):
            spans.add(span)
            placed.setdefault(sentence, []).append(span)
    order = sorted(spans)
    rnd.shuffle(order)
    key: list[list[Span]] = []
    position = 0
    for size in _chains(len(order), rnd):
        key.append(order[position : position + size])
        position += size
    response: list[list[Span]] = [[] for _ in key]
    used: set[Span] = set()
    taken: dict[tuple[int, int], list[Span]] = {}

    def free(span: Span) -> bool:
        sentence = sentence_of[span[0]]
        if span in used or _crosses(span, taken.get(sentence, [])):
            return False
        used.add(span)
        taken.setdefault(sentence, []).append(span)
        return True

    for chain_id, chain in enumerate(key):
        for span in chain:
            if rnd.random() < 0.20:
                continue  # missed
            if rnd.random() < 0.05:
                span = (span[0], min(sentence_of[span[0]][1], span[1] + 1))  # boundary error
            if not free(span):
                continue
            target = chain_id if rnd.random() >= 0.15 else rnd.randrange(len(key) + 3)
            while target >= len(response):
                response.append([])
            response[target].append(span)
    for _ in range(round(0.15 * len(spans))):
        span = _span(rnd.choice(sentences), rnd, 1.0)
        if not free(span):
            continue
        if rnd.random() < 0.5:
            response.append([span])
        else:
            response[rnd.randrange(len(response))].append(span)
    return sentences, key, [chain for chain in response if chain]


def _write(
    path: Path, documents: list[tuple[str, list[tuple[int, int]], list[list[Span]]]]
) -> None:
    lines: list[str] = []
    for name, sentences, chains in documents:
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
        for first, last in sentences:
            for token in range(first, last + 1):
                parts = [p for _, p in sorted(opens.get(token, []))]
                parts += singles.get(token, [])
                parts += [p for _, p in sorted(closes.get(token, []))]
                cell = "|".join(parts) or "-"
                word = f"w{token % 997}"
                lines.append(
                    f"{name}  0  {token - first}  {word}  NN  (NP*)  -  -  -  Speaker#1  *  *  "
                    f"{cell}"
                )
            lines.append("")
        lines.append("#end document")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def generate(folder: Path, documents: int) -> tuple[Path, Path, int, int]:
    rnd = random.Random(SEED)
    key_docs, response_docs = [], []
    total_tokens = total_mentions = 0
    for index in range(documents):
        tokens = max(20, min(9000, round(rnd.lognormvariate(math.log(330), 0.85))))
        sentences, key, response = _document(tokens, rnd)
        name = f"bench/doc_{index:05d}"
        key_docs.append((name, sentences, key))
        response_docs.append((name, sentences, response))
        total_tokens += tokens
        total_mentions += sum(len(c) for c in key)
    key_path, response_path = folder / "key.conll", folder / "response.conll"
    _write(key_path, key_docs)
    _write(response_path, response_docs)
    return key_path, response_path, total_tokens, total_mentions


def run(command: list[str], out: Path) -> tuple[float, int]:
    """Run a whole process (:func:`processes.measured`), its output written to ``out``:
    (seconds, peak memory in MB)."""
    from processes import measured  # beside this script

    done = measured(command)
    out.write_text(done.stdout)
    return done.seconds, int(done.peak_mb)


SCORCH_LIBRARY = """
import json, sys
from scorch import conll, scores
def read(path):
    with open(path) as handle:
        return {name: [set(f"{b}.{s}-{e}" for b, s, e in c) for c in entities.values()]
                for name, entities in conll.parse_file(line.strip() for line in handle)}
key, response = read(sys.argv[1]), read(sys.argv[2])
functions = {"muc": scores.muc, "bcub": scores.b_cubed, "ceafm": scores.ceaf_m,
             "ceafe": scores.ceaf_e, "blanc": scores.blanc}
out = {name: {m: f(k, response.get(name, [])) for m, f in functions.items()}
       for name, k in key.items()}
json.dump(out, sys.stdout)
"""


def commands(key: Path, response: Path, scratch: Path) -> dict[str, list[list[str]]]:
    python = sys.executable
    key_dir, sys_dir = scratch / "scorch_key", scratch / "scorch_sys"
    key_dir.mkdir(exist_ok=True)
    sys_dir.mkdir(exist_ok=True)
    return {
        "annoscore": [
            [
                python,
                "-m",
                "annoscore",
                "coref",
                str(key),
                str(response),
                "--metric",
                "all",
                "--format",
                "json",
            ]
        ],
        "scorch CLI": [
            [python, "-m", "scorch.conll", str(key), str(key_dir)],
            [python, "-m", "scorch.conll", str(response), str(sys_dir)],
            [python, "-m", "scorch.main", str(key_dir), str(sys_dir), "-"],
        ],
        "scorch library": [[python, "-c", SCORCH_LIBRARY, str(key), str(response)]],
    }


def agreement(per_doc: dict[str, Any], peer: dict[str, Any]) -> tuple[int, int]:
    agree = total = 0
    documents = {  # scorch names "(NAME); part 000" as "NAME-000"
        re.sub(r"^\((.*)\); part (\d+)$", r"\1-\2", name): value
        for name, value in per_doc["documents"].items()
    }
    if set(documents) != set(peer):
        raise SystemExit("annoscore and scorch do not score the same documents")
    for name, by_metric in peer.items():
        ours = documents[name]["scores"]
        for metric, values in by_metric.items():
            total += 1
            mine = [ours[f"{metric}_{part}"] for part in ("recall", "precision", "f1")]
            agree += all(
                math.isclose(a, b, abs_tol=1e-9) for a, b in zip(mine, values, strict=True)
            )
    return agree, total


def in_memory(key: Path, response: Path) -> tuple[float, float]:
    from scorch import scores

    from annoscore.formats.conll import read_conll
    from annoscore.tasks.coref import count_coref

    key_file, response_file = read_conll(key), read_conll(response)
    keys = {d.name: [list(e) for e in d.entities] for d in key_file.documents}
    responses = {d.name: [list(e) for e in d.entities] for d in response_file.documents}
    started = time.perf_counter()
    count_coref(keys, responses)
    ours = time.perf_counter() - started
    pairs = [([set(e) for e in k], [set(e) for e in responses[name]]) for name, k in keys.items()]
    functions = (scores.muc, scores.b_cubed, scores.ceaf_m, scores.ceaf_e, scores.blanc)
    started = time.perf_counter()
    for k, r in pairs:
        for function in functions:
            function(k, r)
    return ours, time.perf_counter() - started


def bench(documents: int, rounds: int, folder: Path) -> dict[str, float]:
    # generated in a child process, so this process stays small: a child's peak memory
    # (wait4) counts the parent's pages it was forked with
    made = subprocess.run(
        [sys.executable, __file__, "--generate", str(folder), str(documents)],
        capture_output=True,
        text=True,
        check=True,
    )
    key, response = folder / "key.conll", folder / "response.conll"
    tokens, mentions = json.loads(made.stdout)
    size = (key.stat().st_size + response.stat().st_size) / 1e6
    print(
        f"data: {documents} documents, {tokens} tokens, {mentions} key mentions, "
        f"{size:.1f} MB in two files (seed {SEED})"
    )
    tools = commands(key, response, folder)
    times: dict[str, list[float]] = {name: [] for name in tools}
    memory: dict[str, int] = dict.fromkeys(tools, 0)
    outputs: dict[str, Path] = {}
    for _ in range(rounds):
        for name, steps in tools.items():  # alternating: every tool once per round
            total = 0.0
            for step, command in enumerate(steps):
                out = folder / f"{name.replace(' ', '_')}.{step}.out"
                seconds, peak = run(command, out)
                total += seconds
                memory[name] = max(memory[name], peak)
                outputs[name] = out
            times[name].append(total)
    medians = {name: statistics.median(values) for name, values in times.items()}
    ours = medians["annoscore"]
    print(f"{'tool (whole processes, median of ' + str(rounds) + ')':44} {'s':>7} {'MB':>6}  ratio")
    for name, seconds in medians.items():
        ratio = seconds / ours
        print(f"{name:44} {seconds:7.2f} {memory[name]:6d}  {ratio:5.1f}x")
    scores = json.loads(outputs["annoscore"].read_text())["scores"]
    print(f"  annoscore: CoNLL F1 {scores['conll_f1']:.4f}  BLANC F1 {scores['blanc_f1']:.4f}")
    per_doc_out = folder / "per_doc.json"
    run(tools["annoscore"][0] + ["--per-doc"], per_doc_out)
    agree, total = agreement(
        json.loads(per_doc_out.read_text()), json.loads(outputs["scorch library"].read_text())
    )
    print(f"  per-document R/P/F equal to scorch's functions (1e-9): {agree}/{total}")
    if agree != total:
        raise SystemExit("annoscore and scorch disagree")
    timed = subprocess.run(
        [sys.executable, __file__, "--in-memory", str(key), str(response)],
        capture_output=True,
        text=True,
        check=True,
    )
    ours_memory, scorch_memory = json.loads(timed.stdout)
    print(
        f"  in memory (partitions, not end to end): annoscore count_coref {ours_memory:.2f} s, "
        f"scorch's five functions {scorch_memory:.2f} s ({scorch_memory / ours_memory:.1f}x)"
    )
    return {"seconds": ours, "memory": memory["annoscore"], "documents": documents}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=348, help="documents (348 ~ CoNLL-2012 test)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the generated files here and keep them")
    parser.add_argument("--scaling", action="store_true", help="also run 10x the documents")
    parser.add_argument("--generate", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--in-memory", nargs=2, type=Path, help=argparse.SUPPRESS)
    parser.add_argument(
        "--no-bytecode", action="store_true", help="annoscore without compiled bytecode"
    )
    args = parser.parse_args()
    installed.compile_package(bytecode=not args.no_bytecode)
    if args.generate:
        _, _, tokens, mentions = generate(Path(args.generate[0]), int(args.generate[1]))
        print(json.dumps([tokens, mentions]))
        return
    if args.in_memory:
        print(json.dumps(in_memory(*args.in_memory)))
        return
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        first = bench(args.docs, args.rounds, folder)
        if args.scaling:
            print()
            second = bench(args.docs * 10, max(1, args.rounds // 2), folder)
            per_doc = [1000 * r["seconds"] / r["documents"] for r in (first, second)]
            print(
                f"scaling x10 documents: annoscore {first['seconds']:.2f} s -> "
                f"{second['seconds']:.2f} s ({per_doc[0]:.2f} -> {per_doc[1]:.2f} ms per "
                f"document, start-up included), peak memory {first['memory']} -> "
                f"{second['memory']} MB"
            )


if __name__ == "__main__":
    main()
