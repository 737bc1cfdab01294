"""Scale (issue 31): ``--jobs`` speed-up, time per document and peak memory as the corpus grows,
and the same run on a two-worker Dask ``LocalCluster``; whole processes, files in, JSON out.

Data (seeded, generated here, in a temporary folder), ``--task``:

- ``spans``: brat folders of N documents (gold ``.ann`` with its ``.txt``, system ``.ann``),
  ``--spans`` gold spans per document of 4 types; predictions copy 80% of the gold spans, shift
  10% by one character, drop 10% and add 2 spurious spans;
- ``codiesp-d``: one gold and one prediction TSV of N documents, 5 gold codes each from a list
  of 10,400; predictions keep 70% of them and add 3 others (every document predicted, every
  code valid: an input without warnings, which is cut);
- ``pubtator``: the documents of ``spans`` in one PubTator file per side (``spans
  --gold-format pubtator --system-format pubtator``), cut at document boundaries found in the
  bytes, with ``--jobs 1`` too (chunks scored one after the other: bounded memory);
- ``bioc-xml``, ``bioc-json``: the same documents in one BioC file per side (a title and an
  abstract passage each), cut at document boundaries;
- ``trec``: a qrels file of N queries with 100 judgments each and a run of 1,000 documents per
  query.
- ``nlpsandbox``: N notes of ``benchmarks/nlpsandbox.py`` (30 annotations of each of six PHI
  categories; its input warns on purpose), ``annoscore nlpsandbox all``;
- ``conlleval``: N documents of 100 sentences of 30 tokens in conlleval's one-file layout
  (2,000: 63 MB); ``conlleval-two`` and ``seqeval``: the same as two tag files;
  ``seqeval-one``: seqeval on the one file.

For each size, alternating in rounds: ``annoscore spans GOLD SYSTEM --mode M -f json -o OUT``
(``--format text``: ``-f text``, the layout a command prints by default) with ``--jobs 1``,
``--jobs 2`` (and ``--dask local`` with ``--dask``).  Reported: wall seconds (median of the
rounds), CPU seconds (user + system of the process and of the worker processes it waited for,
``os.wait4``; and apart, the process's own and its workers', read from ``/proc`` before it is
reaped), peak resident memory (``ru_maxrss`` of ``os.wait4``: the largest of the process and its
reaped workers; Dask's workers are not its children and are not counted), microseconds per
document, the same with the fixed cost taken out (start-up, imports, workers' start: the CPU
seconds of the same run on a corpus of one document, measured first (``--fixed-rounds`` runs),
subtracted: ``(CPU - CPU of 1) / (N - 1)``, what "time per document stays flat" compares, of the
*lowest* CPU seconds of each (:func:`per_document`: the other processes on a shared machine only
ever add CPU time to a run, through the caches they share, so the lowest run is the work itself; a
cost the run always pays is in its lowest run too), the same of the medians beside it; sizes below
10^5 run more rounds, :func:`rounds_for`), the ``--jobs 2`` speed-up (wall of 1 / wall of 2) and
the speed-up on free cores estimated from the CPU seconds (:func:`free_cores`: what the wall clock
shows when no other process runs), and whether every output is byte-identical to ``--jobs 1``'s
(asserted).  The peak memory of the whole run (the process and every worker, their resident memory
summed, sampled every 0.2 s from ``/proc``; shared pages counted in each: an upper bound) is given
beside it.

    python benchmarks/scale.py --documents 2000 20000 --rounds 3 [--dask] [--mode strict]
    python benchmarks/scale.py --task pubtator --documents 1000000 --rounds 1 --no-warm

The load averages of the machine are printed before and after (``os.getloadavg``): other
processes on the cores make every figure slower and the speed-up smaller.  So does the host of
this virtual machine: each row gives the share of the machine's CPU time the host took while
that setting ran (``steal`` in ``/proc/stat``: :func:`stolen`).  ``--ceiling`` adds, for each
size, two copies of the ``--jobs 1`` run at once (:func:`ceiling`) and a pure-Python loop alone
and two at once (:func:`loop_ceiling`): what the two cores give at that time, whatever the
program.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

TYPES = ("Drug", "Gene", "Dose", "Route")
WORDS = ("aspirina", "dosis", "de", "mg", "el", "gen", "BRCA1", "oral", "cada", "horas")


def write_corpus(root: Path, documents: int, spans: int, seed: int = 31) -> tuple[Path, Path]:
    rng = random.Random(seed)
    gold, system = root / "gold", root / "system"
    gold.mkdir()
    system.mkdir()
    for d in range(documents):
        words, text, starts = _words(rng, spans)
        g_lines, p_lines = [], []
        for n in range(spans):
            k = 3 * n + 1
            s, e, kind = starts[k], starts[k] + len(words[k]), rng.choice(TYPES)
            g_lines.append(f"T{n + 1}\t{kind} {s} {e}\t{text[s:e]}")
            roll = rng.random()
            if roll < 0.8:
                p_lines.append(f"T{n + 1}\t{kind} {s} {e}\t{text[s:e]}")
            elif roll < 0.9:
                p_lines.append(f"T{n + 1}\t{kind} {s} {e - 1}\t{text[s : e - 1]}")
        for m in range(2):
            k = 3 * rng.randrange(spans)
            s, e = starts[k], starts[k] + len(words[k])
            p_lines.append(f"T{spans + m + 1}\t{rng.choice(TYPES)} {s} {e}\t{text[s:e]}")
        name = f"doc{d:08d}"
        (gold / f"{name}.ann").write_text("\n".join(g_lines) + "\n", encoding="utf-8")
        (gold / f"{name}.txt").write_text(text, encoding="utf-8")
        (system / f"{name}.ann").write_text("\n".join(p_lines) + "\n", encoding="utf-8")
    return gold, system


def _words(rng: random.Random, spans: int) -> tuple[list[str], str, list[int]]:
    """A document's words (three per span), its text and where each word starts."""
    words = [rng.choice(WORDS) for _ in range(spans * 3)]
    starts, at = [], 0
    for w in words:
        starts.append(at)
        at += len(w) + 1
    return words, " ".join(words), starts


def write_pubtator(root: Path, documents: int, spans: int, seed: int = 31) -> tuple[Path, Path]:
    """The documents of :func:`write_corpus` in one PubTator file per side (title: the first
    word, abstract: the rest), written as they are made (nothing of the corpus held); the two
    spurious spans of a document are distinct, so the input has no warning and is cut."""
    rng = random.Random(seed)
    gold, system = root / "gold.pubtator", root / "system.pubtator"
    with gold.open("w", encoding="utf-8") as g, system.open("w", encoding="utf-8") as p:
        for d in range(documents):
            words, text, starts = _words(rng, spans)
            doc = str(d + 1)
            head = f"{doc}|t|{words[0]}\n{doc}|a|{text[len(words[0]) + 1 :]}\n"
            g_lines, p_lines = [], []
            for n in range(spans):
                k = 3 * n + 1
                s, e, kind = starts[k], starts[k] + len(words[k]), rng.choice(TYPES)
                g_lines.append(f"{doc}\t{s}\t{e}\t{text[s:e]}\t{kind}\tX\n")
                roll = rng.random()
                if roll < 0.8:
                    p_lines.append(f"{doc}\t{s}\t{e}\t{text[s:e]}\t{kind}\tX\n")
                elif roll < 0.9:
                    p_lines.append(f"{doc}\t{s}\t{e - 1}\t{text[s : e - 1]}\t{kind}\tX\n")
            for m in rng.sample(range(spans), 2):
                s, e = starts[3 * m], starts[3 * m] + len(words[3 * m])
                p_lines.append(f"{doc}\t{s}\t{e}\t{text[s:e]}\t{rng.choice(TYPES)}\tX\n")
            g.write(head + "".join(g_lines) + "\n")
            p.write(head + "".join(p_lines) + "\n")
    return gold, system


def write_bioc(root: Path, documents: int, spans: int, form: str) -> tuple[Path, Path]:
    """The documents of :func:`write_pubtator` in one BioC file per side (``form``: ``xml`` or
    ``json``), as PubTator's BioC has them: a title and an abstract passage (offsets in the
    document), each holding its annotations (infons ``type`` and ``identifier``)."""
    sides = write_pubtator(root, documents, spans)
    out = root / f"gold.{form}", root / f"system.{form}"
    for source, target in zip(sides, out, strict=True):
        with source.open(encoding="utf-8") as lines, target.open("w", encoding="utf-8") as f:
            f.write(BIOC_HEAD[form])
            for k, block in enumerate(lines.read().split("\n\n")[:-1]):  # one document each
                f.write(("" if form == "xml" or k == 0 else ",\n") + _bioc_document(block, form))
            f.write("</collection>\n" if form == "xml" else "]}\n")
    return out


BIOC_HEAD = {
    "xml": '<?xml version="1.0" encoding="UTF-8"?>\n'
    "<collection><source>bench</source><date>2026</date><key>BioC.key</key>\n",
    "json": '{"source": "bench", "date": "2026", "key": "BioC.key", "infons": {}, "documents": [\n',
}


def _bioc_document(block: str, form: str) -> str:
    """One PubTator document (its lines) as a BioC document in ``form``."""
    import json
    from xml.sax.saxutils import escape

    rows = block.split("\n")
    doc, title = rows[0].split("|t|")
    passages: list[tuple[str, int, str, list[tuple[str, ...]]]] = [
        ("title", 0, title, []),
        ("abstract", len(title) + 1, rows[1].split("|a|")[1], []),
    ]
    for n, row in enumerate(rows[2:], 1):
        _, s, e, text, kind, concept = row.split("\t")
        length = str(int(e) - int(s))
        passages[int(s) >= passages[1][1]][3].append((f"T{n}", kind, concept, s, length, text))
    if form == "json":
        return json.dumps(
            {
                "id": doc,
                "infons": {},
                "passages": [
                    {
                        "offset": o,
                        "infons": {"type": name},
                        "text": text,
                        "sentences": [],
                        "annotations": [
                            {
                                "id": a,
                                "infons": {"type": kind, "identifier": concept},
                                "text": written,
                                "locations": [{"offset": int(s), "length": int(n)}],
                            }
                            for a, kind, concept, s, n, written in held
                        ],
                        "relations": [],
                    }
                    for name, o, text, held in passages
                ],
                "annotations": [],
                "relations": [],
            }
        )
    return (
        f"<document><id>{doc}</id>"
        + "".join(
            f'<passage><infon key="type">{name}</infon><offset>{o}</offset>'
            f"<text>{escape(text)}</text>"
            + "".join(
                f'<annotation id="{a}"><infon key="type">{kind}</infon>'
                f'<infon key="identifier">{concept}</infon>'
                f'<location offset="{s}" length="{n}"/><text>{escape(written)}</text>'
                "</annotation>"
                for a, kind, concept, s, n, written in held
            )
            + "</passage>"
            for name, o, text, held in passages
        )
        + "</document>\n"
    )


def write_codiesp(root: Path, documents: int, seed: int = 31) -> tuple[Path, Path, Path]:
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    codes = sorted({f"{c}{rng.randint(0, 99):02d}.{rng.randint(0, 99)}" for c in letters
                    for _ in range(400)})  # fmt: skip
    gold, pred, valid = root / "gold.tsv", root / "pred.tsv", root / "codes.tsv"
    valid.write_text("\n".join(codes) + "\n", encoding="utf-8")
    with gold.open("w", encoding="utf-8") as g, pred.open("w", encoding="utf-8") as p:
        for d in range(documents):
            doc = f"S{d:010d}-1"
            mine = rng.sample(codes, 5)
            g.write("".join(f"{doc}\t{c}\n" for c in mine))
            guess = [c for c in mine if rng.random() < 0.7] + rng.sample(codes, 3)
            p.write("".join(f"{doc}\t{c}\n" for c in dict.fromkeys(guess)))
    return gold, pred, valid


def write_trec(root: Path, queries: int, seed: int = 31) -> tuple[Path, Path]:
    rng = random.Random(seed)
    qrels, run_file = root / "qrels", root / "run"
    with qrels.open("w", encoding="ascii") as q, run_file.open("w", encoding="ascii") as r:
        for n in range(queries):
            judged = rng.sample(range(5000), 100)
            q.write("".join(f"{n} 0 D{d} {rng.choice((0, 1, 1, 2))}\n" for d in judged))
            ranked = rng.sample(range(5000), 1000)
            r.write("".join(f"{n} Q0 D{d} {k} {1000 - k}.5 bench\n" for k, d in enumerate(ranked)))
    return qrels, run_file


def write_conlleval(root: Path, documents: int, seed: int = 31) -> tuple[Path, Path, Path]:
    """``documents`` documents (a ``-DOCSTART-`` line, then 100 sentences of 30 tokens; 2,000
    documents: 63 MB) in conlleval's one-file layout (token, gold tag, guessed tag) and as two
    tag files (token, tag): 15% of the tokens begin a phrase of 1-3 tokens of 4 types, 10% of
    their guessed tags wrong, 2% of the outside tokens guessed as a phrase."""
    rng = random.Random(seed)
    one, gold, system = root / "tagged.txt", root / "gold.conll", root / "system.conll"
    words = ("the", "a", "of", "Paris", "John", "x", "bank", "said", "in", "to")
    with (
        one.open("w", encoding="utf-8") as o,
        gold.open("w", encoding="utf-8") as g,
        system.open("w", encoding="utf-8") as p,
    ):
        for _ in range(documents):
            lines = [("-DOCSTART-", "O", "O"), None]
            for _ in range(100):
                tokens = 0
                while tokens < 30:
                    if rng.random() < 0.15:
                        kind, length = rng.choice(TYPES), rng.randint(1, 3)
                        for k in range(length):
                            tag = ("B-" if k == 0 else "I-") + kind
                            guess = tag if rng.random() < 0.9 else f"B-{rng.choice(TYPES)}"
                            lines.append((rng.choice(words), tag, guess))
                        tokens += length
                    else:
                        guess = "O" if rng.random() < 0.98 else f"B-{rng.choice(TYPES)}"
                        lines.append((rng.choice(words), "O", guess))
                        tokens += 1
                lines.append(None)
            o.write("".join("\n" if t is None else " ".join(t) + "\n" for t in lines))
            g.write("".join("\n" if t is None else f"{t[0]} {t[1]}\n" for t in lines))
            p.write("".join("\n" if t is None else f"{t[0]} {t[2]}\n" for t in lines))
    return one, gold, system


def write_input(task: str, root: Path, documents: int, spans: int) -> list[str]:
    """The command's words for ``task`` on generated data of ``documents`` documents."""
    if task == "codiesp-d":
        gold, pred, valid = write_codiesp(root, documents)
        return ["codiesp", "D", "-g", str(gold), "-p", str(pred), "-c", str(valid)]
    if task == "trec":
        qrels, run_file = write_trec(root, documents)
        return ["trec", str(qrels), str(run_file), "-m", "all_trec"]
    if task.startswith(("conlleval", "seqeval")):  # one file, or two tag files
        one, gold, system = write_conlleval(root, documents)
        files = [str(one)] if task in ("conlleval", "seqeval-one") else [str(gold), str(system)]
        return [task.partition("-")[0], *files]
    if task == "pubtator":
        gold, system = write_pubtator(root, documents, spans)
        return ["spans", str(gold), str(system), "--gold-format", "pubtator",
                "--system-format", "pubtator"]  # fmt: skip
    if task == "nlpsandbox":
        import nlpsandbox  # benchmarks/nlpsandbox.py, beside this script

        gold, pred = nlpsandbox.write(root, *nlpsandbox.generate(documents))
        return ["nlpsandbox", "all", "--gold", str(gold), "--pred", str(pred)]
    if task.startswith("bioc-"):
        gold, system = write_bioc(root, documents, spans, task[5:])
        return ["spans", str(gold), str(system), "--gold-format", task, "--system-format", task]
    gold, system = write_corpus(root, documents, spans)
    return ["spans", str(gold), str(system)]


def command_words(options: argparse.Namespace, root: Path, documents: int) -> list[str]:
    """The command's words on ``documents`` generated documents, with ``--mode`` (span tasks)
    and ``-f FORMAT`` (``--format``: JSON, or the text layout a user gets by default)."""
    words = write_input(options.task, root, documents, options.spans)
    if options.task in ("spans", "pubtator", "bioc-xml", "bioc-json"):
        words += ["--mode", options.mode]
    return [*words, "-f", options.format]


def tree_memory(pid: int) -> int:
    """The resident bytes of process ``pid`` and of all its descendants now (0 when it is
    gone), from ``/proc`` (Linux): shared pages are counted in each process, so the sum is an
    upper bound of what the run holds."""
    total = 0
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        with open(f"/proc/{pid}/statm") as handle:
            total = int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return total
    return total + sum(tree_memory(int(child)) for child in children)


def cpu_ticks() -> tuple[int, int]:
    """The machine's CPU time stolen by its host (a virtual machine's cores lent to others) and
    its CPU time in all, in ticks, since boot (``/proc/stat``); ``(0, 0)`` where it cannot say."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
        ticks = [int(f) for f in fields[:8]]  # user nice system idle iowait irq softirq steal
    except (OSError, ValueError):
        return 0, 0
    return ticks[7], sum(ticks)


def stolen(before: tuple[int, int], after: tuple[int, int]) -> float:
    """The share of the machine's CPU time its host took between two :func:`cpu_ticks`
    (``nan`` when nothing was counted)."""
    total = after[1] - before[1]
    return (after[0] - before[0]) / total if total > 0 else float("nan")


def split_cpu(pid: int) -> tuple[float, float]:
    """The CPU seconds (user + system) of process ``pid`` itself and of the children it waited
    for (its workers), read from ``/proc/PID/stat`` while it is a zombie (exited, not yet
    reaped); ``(nan, nan)`` where ``/proc`` cannot say."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        # after the name: state is field 3; utime, stime, cutime, cstime are fields 14-17
        utime, stime, cutime, cstime = (int(f) / tick for f in fields[11:15])
    except (OSError, ValueError, IndexError):
        return float("nan"), float("nan")
    return utime + stime, cutime + cstime


def run(args: list[str], out: Path) -> tuple[float, float, float, float, float, float]:
    """Of ``annoscore ARGS -o OUT`` (``ARGS`` ending in ``-f FORMAT``, :func:`command_words`): wall
    and CPU seconds, peak memory of the largest process and of the process tree (sampled every
    0.2 s: :func:`tree_memory`) in MB, and the CPU seconds of the process itself and of its
    workers (:func:`split_cpu`); the output is left in ``OUT`` (compared there, never read into
    this process: a child's peak memory counts this process's resident pages when it starts,
    so holding a 222 MB layout here made the next run's peak 370 MB higher)."""
    from processes import annoscore_command  # beside this script

    return run_command([*annoscore_command(), *args, "-o", str(out)])


def run_command(
    command: list[str], cwd: Path | None = None
) -> tuple[float, float, float, float, float, float]:
    """Wall and CPU seconds, peak memory of the largest process and of the process tree in MB,
    and the CPU seconds of the process itself and of its workers, of one ``command`` run in
    ``cwd`` (its standard output discarded; ``SystemExit`` when it fails)."""
    import threading

    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd)
    ended = threading.Event()
    end = [start]

    def wait_for_end() -> None:  # blocked in the kernel: no CPU taken from the run
        os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)  # not reaped: wait4 below
        end[0] = time.perf_counter()
        ended.set()

    threading.Thread(target=wait_for_end, daemon=True).start()
    tree = 0
    # its end seen at once by the thread; its memory sampled every 0.2 s (this process polled
    # every 5 ms before, 2.6% of a core: taken from a run of two jobs, not from one job's)
    while not ended.wait(0.2):
        tree = max(tree, tree_memory(process.pid))
    wall = end[0] - start
    own, workers = split_cpu(process.pid)  # a zombie still: its /proc entry is there
    _, status, usage = os.wait4(process.pid, 0)
    stderr = process.stderr.read() if process.stderr else b""
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"annoscore failed ({process.returncode}): {stderr.decode()[-2000:]}")
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024, tree / 2**20, own, workers


def fixed_costs(
    options: argparse.Namespace, settings: list[tuple[str, list[str]]]
) -> dict[str, list[float]]:
    """Each setting's CPU seconds on a corpus of one document, in each of ``--fixed-rounds``
    runs (the settings alternating): what a run costs whatever its size (start-up, imports,
    workers); the lowest, median and highest are printed."""
    with tempfile.TemporaryDirectory(prefix="annoscore-scale-") as folder:
        root = Path(folder)
        base = command_words(options, root, 1)
        found: dict[str, list[float]] = {name: [] for name, _ in settings}
        for _ in range(options.fixed_rounds):
            for name, extra in settings:
                found[name].append(run([*base, *extra], root / "out.json")[1])
    print(f"fixed cost (CPU s, one document, lowest / median / highest of {options.fixed_rounds} "
          "runs): " + ", ".join(f"{name} {min(cpu):.3f} / {statistics.median(cpu):.3f} / "
                                f"{max(cpu):.3f}" for name, cpu in found.items()))  # fmt: skip
    return found


def per_document(cpu: list[float], fixed: list[float], documents: int) -> str:
    """Microseconds of CPU per document with the fixed cost taken out, ``(CPU - CPU of one
    document) / (N - 1)``: of the lowest runs of each (the figure compared across sizes: on
    a shared machine other processes only add to a run's CPU time), then of the medians.

    >>> per_document([1.2, 1.0, 1.5], [0.3, 0.2, 0.25], 100_001)
    '8.00 (median 9.50)'
    """
    lowest = (min(cpu) - min(fixed)) / max(documents - 1, 1) * 1e6
    median = (statistics.median(cpu) - statistics.median(fixed)) / max(documents - 1, 1) * 1e6
    return f"{lowest:.2f} (median {median:.2f})"


def rounds_for(documents: int, rounds: int) -> int:
    """The rounds run at a size: ``rounds``, times up to 5 up to 10^5 documents (a small run's
    CPU seconds over its fixed cost are a few hundredths to a few tenths, within the noise of
    a few runs: its lowest run needs more of them).

    >>> rounds_for(10_000, 3), rounds_for(100_000, 3), rounds_for(250_000, 3)
    (15, 15, 6)
    >>> rounds_for(1_000_000, 3)
    3
    """
    return rounds * max(1, min(5, 500_000 // max(1, documents)))


def free_cores(serial: float, own: float, workers: float, extra: list[str]) -> str:
    """The speed-up a run of ``--jobs N`` would reach on N free cores, from CPU seconds (the
    other sessions on the machine slow the wall clock, not the work): the CPU seconds of
    ``--jobs 1`` (``serial``, one process) over the run's critical path, estimated as the
    longer of its own process's CPU seconds (planning, its share of the chunks, reading the
    results, the reduce, the report: it scores chunks beside its ``N - 1`` workers and is busy
    until the last result, so its CPU is the wall time less its wait for the workers' last
    chunk, which is not counted) and all the CPU seconds, its own and its workers', shared
    evenly by the N processes.  Empty for a Dask run (its workers are not the process's
    children).

    >>> free_cores(6.0, 3.2, 2.8, ["--jobs", "2"])
    '1.88x'
    >>> free_cores(6.0, 2.5, 3.5, ["--jobs", "2"])
    '2.00x'
    """
    if "--jobs" not in extra or own != own or workers != workers:  # nan: /proc could not say
        return ""
    jobs = int(extra[extra.index("--jobs") + 1])
    return f"{serial / max(own, (own + workers) / jobs):.2f}x"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--spans", type=int, default=50)
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="rounds per size (more below 10^5 documents: rounds_for)",
    )
    parser.add_argument(
        "--fixed-rounds",
        type=int,
        default=15,
        help="runs of the one-document corpus (the lowest: the fixed cost)",
    )
    parser.add_argument("--mode", default="strict")
    parser.add_argument("--format", default="json", choices=("json", "text"),
                        help="the output timed (text: the default layout, CodiEsp's tables "
                             "of every document)")  # fmt: skip
    parser.add_argument(
        "--task",
        default="spans",
        choices=(
            "spans",
            "pubtator",
            "codiesp-d",
            "trec",
            "conlleval",
            "conlleval-two",
            "seqeval",
            "seqeval-one",
            "bioc-xml",
            "bioc-json",
            "nlpsandbox",
        ),
    )
    parser.add_argument("--dask", action="store_true", help="also --dask local")
    parser.add_argument("--ceiling", action="store_true",
                        help="also two copies of --jobs 1 at once, and a pure-Python loop alone "
                             "and two at once (the machine)")  # fmt: skip
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="runs to time")
    parser.add_argument("--no-warm", dest="warm", action="store_false",
                        help="no warm-up run (large corpora)")  # fmt: skip
    options = parser.parse_args()
    settings = [(f"--jobs {n}", ["--jobs", str(n)]) for n in options.jobs]
    if options.dask:
        settings.append(("--dask local", ["--dask", "local"]))
    print(f"{options.task}; cores: {len(os.sched_getaffinity(0))}; {options.spans} gold spans "
          f"per document (spans), mode {options.mode}; -f {options.format}; medians of "
          f"{options.rounds} rounds (more below 10^5 documents); "
          f"load averages {os.getloadavg()}")  # fmt: skip
    fixed = fixed_costs(options, settings)
    print("| documents | run | wall s | CPU s | CPU s: process / workers | peak MB (largest "
          "process) | peak MB (all processes) | us/doc (wall) | us/doc (CPU) | us/doc (CPU, fixed "
          "cost out: lowest runs (median runs)) | speed-up vs --jobs 1 | on free cores (est.) | "
          "CPU time taken by the host (median) |")  # fmt: skip
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for documents in options.documents:
        with tempfile.TemporaryDirectory(prefix="annoscore-scale-") as folder:
            root = Path(folder)
            base = command_words(options, root, documents)
            figures: dict[str, list[tuple[float, float, float, float, float, float]]] = {
                n: [] for n, _ in settings
            }
            steal: dict[str, list[float]] = {n: [] for n, _ in settings}
            reference = root / "reference.out"  # the first output, the others compared to it
            if options.warm:
                run([*base, "--jobs", "1"], root / "warm.json")  # page cache and imports warm
            for _ in range(rounds_for(documents, options.rounds)):
                for name, extra in settings:
                    ticks = cpu_ticks()
                    figures[name].append(run([*base, *extra], root / "out.json"))
                    steal[name].append(stolen(ticks, cpu_ticks()))
                    if not reference.exists():
                        (root / "out.json").rename(reference)
                    elif not filecmp.cmp(root / "out.json", reference, shallow=False):
                        raise SystemExit(f"{name}'s output differs from {settings[0][0]}'s")
            first = statistics.median(f[0] for f in figures[settings[0][0]])
            first_cpu = statistics.median(f[1] for f in figures[settings[0][0]])
            for name, extra in settings:
                wall = statistics.median(f[0] for f in figures[name])
                cpu = statistics.median(f[1] for f in figures[name])
                peak = max(f[2] for f in figures[name])
                tree = max(f[3] for f in figures[name])
                own = statistics.median(f[4] for f in figures[name])
                workers = statistics.median(f[5] for f in figures[name])
                print(
                    f"| {documents:,} | {name} | {wall:.2f} | {cpu:.2f} | {own:.2f} / "
                    f"{workers:.2f} | {peak:.0f} | {tree:.0f} "
                    f"| {wall / documents * 1e6:.0f} | {cpu / documents * 1e6:.0f} "
                    f"| {per_document([f[1] for f in figures[name]], fixed[name], documents)} "
                    f"| {first / wall:.2f}x | {free_cores(first_cpu, own, workers, extra)} "
                    f"| {statistics.median(steal[name]):.0%} |",
                    flush=True,
                )
            if options.ceiling:
                print(ceiling(base, root, first, rounds_for(documents, options.rounds)))
                print(loop_ceiling(rounds_for(documents, options.rounds)))
    print(f"load averages after: {os.getloadavg()}")


def ceiling(base: list[str], root: Path, alone: float, rounds: int) -> str:
    """What two cores give this run, whatever the program: two copies of the ``--jobs 1`` run
    started together (independent processes, nothing shared but the machine), ``rounds``
    times.  Two runs' work done in the wall time ``T2`` of the pair, against one run's ``T1``
    alone (``alone``, the median above): ``2 x T1 / T2`` is the most a ``--jobs 2`` run can
    gain on this machine with this work (each copy slowed by what the other costs it in
    caches, memory bandwidth and page faults); a ``--jobs 2`` speed-up is to be read against
    it, not against 2."""
    from concurrent.futures import ThreadPoolExecutor

    def one(k: int) -> float:
        return run([*base, "--jobs", "1"], root / f"copy{k}.out")[0]

    pairs = []
    with ThreadPoolExecutor(2) as pool:
        for _ in range(rounds):
            start = time.perf_counter()
            walls = list(pool.map(one, (0, 1)))
            pairs.append((time.perf_counter() - start, *walls))
    both = statistics.median(p[0] for p in pairs)
    shown = ", ".join(f"{a:.2f}/{b:.2f}" for _, a, b in pairs)
    return (f"  two copies of --jobs 1 at once: pair done in {both:.2f} s (median of {rounds}; "
            f"each copy's wall: {shown}), one alone {alone:.2f} s: this machine's ceiling for "
            f"two jobs on this work 2 x {alone:.2f} / {both:.2f} = {2 * alone / both:.2f}x"
            )  # fmt: skip


LOOP = "s = 0\nfor i in range(20_000_000):\n    s += i & 7"
"""A pure-Python loop: nothing in memory, nothing read or written (about 1.5 s)."""


def loop_ceiling(rounds: int) -> str:
    """What two cores give a loop that shares nothing but the cores (:data:`LOOP`), now: one
    copy alone and two at once, alternating, ``rounds`` times; ``2 x alone / pair``, and the
    share of the CPU time the host took meanwhile (:func:`stolen`: a virtual machine's two
    cores may be two threads of one core, or lent to others).  2.0x on two free cores; below
    it, no ``--jobs 2`` run can do better than this on this machine at this time."""
    import sys
    from concurrent.futures import ThreadPoolExecutor

    command = [sys.executable, "-c", LOOP]

    def one(_: int) -> float:
        return run_command(command)[0]

    alone, pairs, steal_alone, steal_pair = [], [], [], []
    with ThreadPoolExecutor(2) as pool:
        for _ in range(rounds):
            ticks = cpu_ticks()
            alone.append(one(0))
            steal_alone.append(stolen(ticks, ticks := cpu_ticks()))
            start = time.perf_counter()
            list(pool.map(one, (0, 1)))
            pairs.append(time.perf_counter() - start)
            steal_pair.append(stolen(ticks, cpu_ticks()))
    a, b = statistics.median(alone), statistics.median(pairs)
    return (f"  a pure-Python loop (nothing in memory), alone {a:.2f} s, two at once {b:.2f} s "
            f"(medians of {rounds}): this machine's cores now give 2 x {a:.2f} / {b:.2f} = "
            f"{2 * a / b:.2f}x; the host took {statistics.median(steal_alone):.0%} of the CPU time "
            f"with one copy running, {statistics.median(steal_pair):.0%} with two"
            )  # fmt: skip


if __name__ == "__main__":
    main()
