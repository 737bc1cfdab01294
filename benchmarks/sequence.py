"""``annoscore seqeval`` and ``annoscore conlleval`` end to end against seqeval 1.2.2's
``classification_report`` on the same CoNLL tag file (issue 29).

Writes (seeded) SENTENCES sentences x 30 tokens, one ``token gold guess`` line each (IOB2 tags of
four types; the guess keeps 85% of the gold tags), then times, in separate processes and
alternating runs: ``annoscore seqeval FILE --format json`` (default mode), ``annoscore conlleval
FILE`` and a script that reads the file into seqeval's lists (sentences split at blank lines)
and prints ``classification_report(..., output_dict=True)`` as JSON.  The two reports must be
equal (per type, micro, macro, weighted: 1e-12), and conlleval's counts must equal seqeval's on
this IOB2 file (no S- or E- tag: the two read it alike).  Prints wall time, CPU time (user +
system: the figure other jobs disturb least), peak memory and the ratios of the same run; then,
labelled, the same work in this process (start-up excluded).  annoscore runs from compiled
bytecode as an installed package does (``installed.py``).  conlleval.pl itself is not timed:
it is not installed here.

Target (issue 29): >= 20x seqeval's ``classification_report`` end to end.  Met, narrowly (2
CPUs shared with other jobs, load 2-13 while measured; one run, best of 3 or 5; CPU seconds):
seqeval 1.2.2 3.91-4.26 s, ``annoscore seqeval`` 0.185-0.21 s (20.1-21.6x, wall 19.7-20.8x;
before this round 0.21-0.24 s, 16.8-18.2x; 0.54 s, 7.3x before the tags were read as codes),
``annoscore conlleval`` 0.45-0.50 s (7.8-9.0x), reports equal; in one process (start-up
excluded) 60-83x.
Counted exactly (``valgrind --tool=callgrind``, instructions of the whole process): 912 million
against 1,122 million before this round, 11,900 page faults against 18,700.  What the command
costs now: the interpreter 39 million instructions, typer 200 million, NumPy's import 334
million, annoscore's own modules about 140 million (a third of it the code that
``dataclasses`` generates at import), reading 3.2 MB about 190 million and scoring 300,000
tokens about 90 million.  What was cut: the tag-code scan reads the bytes in 128 KB pieces
(small arrays, fewer fresh pages), finds first sightings without a pass per tag and without
``np.unique`` (which imported ``numpy.ma``), and gathers less; default mode counts on the
file's items (blank lines as separators) instead of compacting and re-joining the tokens, and
finds each entity's begin by a cumulative count instead of a binary search; the command skips
``annoscore.scale`` (one process) and ``annoscore.significance``; the seqeval scorer no longer
imports conlleval's counting.  Readers (best of 3, in this process): the tag file as strings
(conlleval) 2.4-4.3x the floor, as codes (seqeval) 0.4-0.7x, PubTator 28-99x, Prodigy JSONL
10-13x, BioC JSON 8-10x, BioC XML 12-16x: each annotation becomes a frozen ``Mention`` with a
checked ``Span`` and often a ``Normalization`` (about 5 us together), the floor builds nothing.
BioC since (issue 29; CPU, alternating, best of 7, load 19-21 on 2 CPUs): read as the columns
``spans`` scores (``read_bioc_files``), JSON 3.1-3.2x the floor, 2.6-2.7x with the collector
paused as ``spans`` runs (was 5.0x and 4.8-4.9x), XML 2.6x, 2.4x paused (was 8.7-8.9x and
7.1-7.2x); read as model objects (``read_bioc``) JSON 4.5x, XML 4.5x.  Then (second round:
CPU, the BioC readers alone, alternating with the code before it, best of 7, load 1 on 2
CPUs): JSON 1.7-1.8x the floor, 1.7-1.8x paused (was 3.2-3.3x and 2.6x), XML 1.7-1.8x,
1.5-1.6x paused (was 2.7-2.8x and 2.2-2.3x); in this script's run, after the other readers
(whose allocations leave the floor's reading faster: XML 21-24 ms, not 26-30 ms), JSON
2.0-2.1x, 1.9-2.1x paused, XML 2.2-2.6x, 2.0-2.4x paused: 2x met alone, not reliably here.  So:
a first step reads a whole file of the common layout (the ``bioc`` package's and annoscore's
writers, the generators here) in one regular-expression pass over its rows (a document's or
passage's start, an annotation, an end), JSON without ``json.loads`` (the rows are its
objects; escapes decoded by one ``json.loads`` a column), and checks every document at once
in columns (NumPy: passage bounds, each text against its passage by ``str.startswith``), with
no object between the scan and the documents (built positionally, five times faster than by
name); anything unusual, in error or warned of in ``auto`` offsets declines to the steps
after.  What is left: the pass itself (XML 15 ms, JSON 25 ms of the floor's 25-35 ms), its
rows (a tuple of ten or fifteen groups each: the transposition 4-5 ms, the columns of each
kind 2 ms), the offsets made numbers (3 ms), the texts checked (3-4 ms), the 2,000 document
objects and their slices (3-4 ms); with the collector running, the rows' tuples and the
documents' lists it traverses (XML 0.3-0.5x more).  ``annoscore spans`` on 2,000 BioC
documents of 10 annotations a side: XML 0.77 -> 0.55 -> 0.35 s CPU, JSON 0.66 -> 0.60 -> 0.37 s
(second round: best of 5, alternating with the code before it, load 2: XML 0.47 -> 0.35 s,
JSON 0.50 -> 0.37 s), output byte for byte the same (and ``score_spans`` on 150 random pairs
of the equivalence tests' files in four modes: the same results, errors and warnings).

Then each new reader (the tag file as strings and as codes, PubTator, Prodigy JSONL, BioC JSON
and XML; 2,000 documents of 10 annotations) against ``readers.floor`` in this process (target:
within 2x; the floor of a JSON Lines file is ``json.loads`` of each line, of BioC XML reading and
splitting its lines): best CPU time of ``--repeat`` rounds, the floor and the reader alternating,
with the cyclic collector running and paused for both (``annoscore spans`` pauses it).  PubTator
and JSONL are timed through the readers ``annoscore spans`` uses for them
(``formats.pubtator.read_pubtator_columns``, ``formats.jsonl.read_jsonl_columns``: columns, the
fast scan first), and also through their model readers (``read_pubtator``, ``read_jsonl``: a
``Mention`` per annotation), labelled "models".  Measured (2 CPUs shared with other jobs, load
7-22, best of 15, CPU time, collector paused / running): PubTator columns 2.4-2.9x / 2.9-3.6x
the floor (models 15-19x / 23-27x), Prodigy JSONL columns 3.3-3.6x / 3.3-4.0x (models 5.4-5.8x
/ 6.1-6.6x): the 2x target is not met.  ``annoscore spans`` end to end on these files (each
against itself, whole process, best of 5, CPU seconds): PubTator 0.58 s before the columns,
0.41 s after; Prodigy JSONL 0.51 s before, 0.43 s after.  What remains, PubTator (2,000
documents, 20,000 annotations, 2.2 MB; floor 7.5 ms): about 8 ms of NumPy on the bytes and about
4 us per document to build and later free its columns object (its row range, type, offset and
line lists, lazy mention texts and concept ids); JSONL (floor 12 ms): ``json.loads`` keeping its
objects (14 ms) and freeing them (about 5 ms), four C-level passes over the span dicts, and the
documents' columns.  BioC is timed through ``read_bioc_files`` (the columns ``annoscore spans``
scores, no object per annotation; ``read_bioc`` builds the model objects from them).

Since (issue 29; CPU, alternating, best of 5-7, load 9-18 on 2 CPUs; running / collector
paused): the tag file as strings (``read_tags``) 1.7x / 1.4-1.7x the floor, was 3.2-3.3x / 3.5-3.6x
(one NumPy pass finds the spaces and line ends, a blank line gets its ``-X- O`` fields in the
bytes, the whole text is split once, ``-X-`` and ``-DOCSTART-`` looked for only among tokens
beginning with ``-``, the line numbers a ``range``); PubTator columns 1.7-2.0x / 1.6-1.9x, was
3.1-3.2x / 2.5-2.6x (a document is made with its id, path, text and rows only, its other
fields from the file's columns on first use; one pass finds the line ends, tabs and ``|``);
Prodigy JSONL columns 1.9-2.4x / 1.8-1.9x, was 3.6-4.0x / 3.6x (spans written as
``json.dumps`` writes plain ones, ``{"start": N, "end": N, "label": "L"}`` in an ASCII file
without backslashes, are read from the bytes in NumPy and ``json.loads`` reads each line with
its spans cut out; the documents made as PubTator's).  ``annoscore spans`` end to end (each file
against itself, whole process, best of 5, CPU): PubTator 0.37 -> 0.35 s, Prodigy JSONL 0.43 ->
0.39 s; ``annoscore conlleval`` on 10,000 sentences 0.52 -> 0.44 s; outputs byte for byte the
same.  What remains: JSONL, the NumPy passes over the bytes (about 0.8x the floor) and
``json.loads`` of the lines without their spans (about 0.5x); a file whose spans carry other
keys (``token_start``, ``text``) or any escape is read by ``json.loads`` whole (about 3x).
PubTator, about 6 ms of NumPy on the bytes and about 1 us per document (its text and
rows); the tag file, splitting the text into its fields (about 0.7x the floor).

BioC, third round (issue 29; 2 CPUs shared with other jobs, load 7-13): the corpus scans split
the text by their row pattern (``Pattern.split``: one flat list of the rows' groups, each
column a slice of it) instead of ``findall`` (a tuple of ten or fifteen groups a row, 28,000
here, which the collector walked, then their transposition), and make each document with its
id, path, text, rows and warnings only, its other fields from the scan's columns on first use
(as PubTator's and JSONL's: no five list slices and no 20-field dataclass call a document;
``annoscore spans`` takes their rows of one block); offsets and lengths parsed by one
``np.fromstring`` of their join.  Alone (CPU, best of 7, alternating processes with the code
before, collector running): XML 58-65 ms -> 44-50 ms (1.7-1.8x -> 1.3-1.5x the floor), JSON
74-84 ms -> 58-64 ms (1.5-1.9x -> 1.2-1.3x); instructions of one read (callgrind, collector
running): XML 454 -> 420 million with the lazy documents alone, JSON 695 -> 602 million.  In
this script (--repeat 5, after the other readers, whose allocations leave the floor faster:
XML 23 ms, not 32 ms): JSON 2.4x / 2.1x -> 1.7x / 1.7x, XML 2.8x / 2.3x -> 2.2x / 1.9x
(running / paused; the same load for both): JSON has its margin, XML not yet.  What XML
still costs (best CPU, warm heap): the split itself about 0.5x the floor, the check for
characters XML refuses (one ``bytes.translate`` of the text) 0.1x, the columns and the
documents' checks about 0.5x.  Prodigy JSONL is unchanged (1.9-2.1x).

Fourth round (issue 29; 2 CPUs shared with five other jobs, load 10-23: every wall and CPU
figure below is noisy, the instruction counts are not). Prodigy JSONL: the spans lists are cut
from the text by one ``str.split`` at ``"spans"`` (each list to its first ``"}]``, or empty) and
checked in NumPy on the lists alone, eight quotes an object, instead of about thirty passes over
every byte; each line is read by ``json.loads``'s C scanner without its Python steps (a line
with white space around its value goes to ``json.loads`` itself). Alone (CPU, best of 7-9,
alternating with the code before): 17.3-19.7 ms against 23.5-27.2 ms, floor 11.8-12.7 ms:
1.44-1.66x / 1.43-1.54x the floor (running / paused), was 1.95-2.20x / 1.80-2.17x; instructions
of one read (callgrind) 222 -> 144 million (the floor's 159). BioC XML: the check for the
controls XML refuses is NumPy a piece at a time, not ``bytes.translate`` deleting every other
byte (9 instructions a byte; a read 381 -> 356 million, the floor's 173): alone 35-45 ms against
41-46 ms (1.27-1.54x against 1.35-1.73x, noise larger than the gain). Every scanned document's
rows are made in a C-level ``map`` (PubTator, JSONL, BioC: within noise). In this script's run
the readers stay 1.6-2.4x (BioC XML 2.0-2.4x, PubTator 1.9-2.0x), the same as the code before in
the same run: after ``in_process`` and the other readers the floor's reading is faster (XML 23
ms, not 28-32 ms: its 6,800 page faults of a fresh process are gone), the readers are not.
``annoscore seqeval``: 0.20 s CPU against seqeval's 4.07 s (19.9x CPU, 26.4x wall): what its
process costs (callgrind, 914 million instructions): the interpreter 39 million, NumPy's import
338 million, typer's 202 million, annoscore's modules, the reading and the scoring 433 million;
24x needs about 115 million less, which only a start-up without typer (the command's own
argument parsing) would give.

Start-up, fifth round (instructions of the whole process, ``valgrind --tool=callgrind``,
OpenBLAS on one thread as the command runs it; deterministic): ``annoscore seqeval`` 919 -> 880
million, ``annoscore trec`` on the sample files 723 -> 688 million, ``annoscore --help`` 259 ->
247 million.  What was cut: Python's cyclic collector paused while the command starts and
through a scoring command's run (its passes over the start-up's objects, about 26 million), no
last collection at the exit (about 9 million), five classes on a command's path made plain
instead of frozen dataclasses (``Setting``, ``OptionField``, the command line's ``Choice``,
seqeval's ``GoldPrefixes``, ``BareTags``: about 4 million each, the code a dataclass
generates), ``tempfile`` and ``queue`` imported only to write an output file.  What the seqeval
command costs now: the interpreter 40 million, NumPy's import 334 million, Typer's 204 million
(together, with the standard modules both use, 493 million), annoscore's modules about 120
million (17 dataclasses left on the path, about 4 million each: ``Result`` and its four,
``Signature``, the options, the registry's ``Task`` and ``Sample``, the readers'; ``annoscore
trec`` makes 35, ten of them in ``annoscore.scale``, which it imports), reading and scoring the
file about 250 million.

Run: ``python benchmarks/sequence.py [--sentences 10000] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
from collections.abc import Callable
from operator import attrgetter
from pathlib import Path

import installed
from processes import annoscore_command, best, measured

PEER = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
from seqeval.metrics import classification_report
gold, pred, g, p = [], [], [], []
for line in open(sys.argv[1], encoding="utf-8"):
    fields = line.split()
    if not fields:
        if g:
            gold.append(g); pred.append(p); g, p = [], []
        continue
    g.append(fields[-2]); p.append(fields[-1])
if g:
    gold.append(g); pred.append(p)
report = classification_report(gold, pred, output_dict=True)
print(json.dumps({k: {m: float(v) for m, v in row.items()} for k, row in report.items()}))
"""

TYPES = ("PER", "LOC", "ORG", "MISC")


def generate(path: Path, sentences: int, tokens: int = 30) -> None:
    rng = random.Random(20240501)
    lines = []
    for _ in range(sentences):
        previous = "O"
        for t in range(tokens):
            r = rng.random()
            if r < 0.7:
                gold = "O"
            elif r < 0.85 or previous == "O":
                gold = "B-" + rng.choice(TYPES)
            else:
                gold = "I-" + previous[2:]
            guess = gold if rng.random() < 0.85 else rng.choice(("O", "B-PER", "I-LOC", "B-ORG"))
            lines.append(f"w{t} {gold} {guess}")
            previous = gold
        lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def in_process(path: Path, repeat: int) -> tuple[float, float]:
    """Best seconds of ``score_seqeval_file`` and of the peer's read + report, in this process."""
    import warnings

    from seqeval.metrics import classification_report

    from annoscore.tasks.seqeval import score_seqeval_file

    def peer() -> None:
        gold, pred, g, p = [], [], [], []
        for line in path.open(encoding="utf-8"):
            fields = line.split()
            if not fields:
                if g:
                    gold.append(g)
                    pred.append(p)
                    g, p = [], []
                continue
            g.append(fields[-2])
            p.append(fields[-1])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            classification_report(gold, pred, output_dict=True)

    return best(lambda: score_seqeval_file(path), repeat), best(peer, repeat)


def reader_data(folder: Path, documents: int) -> dict[str, tuple[Path, Callable[[], object]]]:
    """One file per reader (PubTator, Prodigy JSONL, BioC JSON, BioC XML) of ``documents``
    documents with 10 annotations each, and a call that reads it (PubTator, JSONL and BioC: as
    ``annoscore spans`` reads them, columns; ``... models``: a model object per annotation)."""
    from annoscore.formats.bioc import read_bioc_files
    from annoscore.formats.jsonl import read_jsonl, read_jsonl_columns
    from annoscore.formats.pubtator import read_pubtator, read_pubtator_columns

    rng = random.Random(29)
    words = ["aspirin", "heparin", "pain", "tumour", "cells", "of", "the", "BRCA1"]
    pubtator, jsonl, bioc_docs = [], [], []
    for d in range(documents):
        title = " ".join(rng.choice(words) for _ in range(8))
        abstract = " ".join(rng.choice(words) for _ in range(120))
        text = title + " " + abstract
        spans = []
        for _ in range(10):
            start = rng.randrange(len(text) - 10)
            spans.append((start, start + rng.randint(1, 9), rng.choice(["Chemical", "Disease"])))
        pubtator.append(f"{d}|t|{title}\n{d}|a|{abstract}\n")
        pubtator.append("".join(f"{d}\t{a}\t{b}\t{text[a:b]}\t{k}\tD{a}\n" for a, b, k in spans))
        pubtator.append("\n")
        jsonl.append(
            json.dumps(
                {
                    "text": text,
                    "meta": {"id": str(d)},
                    "answer": "accept",
                    "spans": [{"start": a, "end": b, "label": k} for a, b, k in spans],
                }
            )
            + "\n"
        )
        bioc_docs.append((str(d), text, spans))
    paths = {
        "pubtator": folder / "corpus.pubtator",
        "prodigy-jsonl": folder / "corpus.jsonl",
        "bioc-json": folder / "corpus.bioc.json",
        "bioc-xml": folder / "corpus.bioc.xml",
    }
    paths["pubtator"].write_text("".join(pubtator), encoding="utf-8")
    paths["prodigy-jsonl"].write_text("".join(jsonl), encoding="utf-8")
    paths["bioc-json"].write_text(
        json.dumps(
            {
                "documents": [
                    {
                        "id": d,
                        "passages": [
                            {
                                "offset": 0,
                                "text": text,
                                "annotations": [
                                    {
                                        "id": str(k),
                                        "infons": {"type": kind},
                                        "text": text[a:b],
                                        "locations": [{"offset": a, "length": b - a}],
                                    }
                                    for k, (a, b, kind) in enumerate(spans)
                                ],
                            }
                        ],
                    }
                    for d, text, spans in bioc_docs
                ]
            }
        ),
        encoding="utf-8",
    )
    xml = ["<collection><source/><date/><key/>"]
    for d, text, spans in bioc_docs:
        xml.append(f"<document><id>{d}</id><passage><offset>0</offset><text>{text}</text>")
        for k, (a, b, kind) in enumerate(spans):
            xml.append(
                f'<annotation id="{k}"><infon key="type">{kind}</infon>'
                f'<location offset="{a}" length="{b - a}"/><text>{text[a:b]}</text></annotation>'
            )
        xml.append("</passage></document>")
    xml.append("</collection>")
    paths["bioc-xml"].write_text("".join(xml), encoding="utf-8")
    return {
        "pubtator": (paths["pubtator"], lambda: read_pubtator_columns(paths["pubtator"])),
        "pubtator models": (paths["pubtator"], lambda: read_pubtator(paths["pubtator"])),
        "prodigy-jsonl": (
            paths["prodigy-jsonl"],
            lambda: read_jsonl_columns(paths["prodigy-jsonl"], "prodigy-jsonl"),
        ),
        "prodigy-jsonl models": (
            paths["prodigy-jsonl"],
            lambda: read_jsonl(paths["prodigy-jsonl"], "prodigy-jsonl"),
        ),
        # what ``annoscore spans`` reads BioC with: columns, no object per annotation
        "bioc-json": (paths["bioc-json"], lambda: read_bioc_files(paths["bioc-json"], "bioc-json")),
        "bioc-xml": (paths["bioc-xml"], lambda: read_bioc_files(paths["bioc-xml"], "bioc-xml")),
    }


def _alternating(floor_call: Callable[[], object], call: Callable[[], object], repeat: int) -> str:
    """Best CPU seconds of the floor and of the reader, alternating, with the cyclic collector
    running and paused for both: the two ratios."""
    import gc
    import time

    ratios = []
    for paused in (False, True):
        bottom = ours = float("inf")
        for _ in range(repeat):
            for which, target in (("floor", floor_call), ("reader", call)):
                gc.collect()
                if paused:
                    gc.disable()
                started = time.process_time()
                target()
                elapsed = time.process_time() - started
                gc.enable()
                if which == "floor":
                    bottom = min(bottom, elapsed)
                else:
                    ours = min(ours, elapsed)
        ratios.append(f"{ours:6.3f} s, floor {bottom:6.3f} s: {ours / bottom:4.1f}x")
    return f"{ratios[0]} (collector paused: {ratios[1].split(': ')[-1]})"


def readers_against_the_floor(folder: Path, repeat: int) -> None:
    """Each new reader's best CPU time against ``readers.floor`` (read, decode, split the lines
    and their fields; JSON files: ``json.loads``) on the same file, alternating (target: within
    2x); PubTator and JSONL through the readers ``annoscore spans`` uses."""
    from annoscore.formats.conll_bio import read_tags
    from annoscore.formats.tag_codes import read_tag_codes
    from readers import floor

    data = reader_data(folder, 2000)
    tagged = folder / "tagged.txt"
    cases = [
        ("conll-bio", tagged, lambda: read_tags(tagged), " "),
        ("conll-bio codes", tagged, lambda: read_tag_codes(tagged), " "),
    ]
    for name, (path, call) in data.items():
        fields = "json" if name == "bioc-json" else "\t" if name.startswith("pubtator") else None
        cases.append((name, path, call, fields))
    for name, path, call, fields in cases:
        if name.startswith("prodigy-jsonl"):
            lines = path.read_text(encoding="utf-8").split("\n")

            def least(lines: list[str] = lines) -> int:
                return sum(1 for line in lines if line and json.loads(line))

            floor_call: Callable[[], object] = least
        else:

            def floor_call(path: Path = path, fields: str | None = fields) -> object:
                return floor([path], fields)

        print(
            f"reader {name:20s} {_alternating(floor_call, call, repeat)} "
            f"({path.stat().st_size / 1e6:.1f} MB)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sentences", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--no-bytecode", action="store_true", help="annoscore without compiled bytecode"
    )
    args = parser.parse_args()
    installed.compile_package(bytecode=not args.no_bytecode)
    folder = Path(tempfile.mkdtemp(prefix="annoscore-sequence-"))
    path = folder / "tagged.txt"
    generate(path, args.sentences)
    commands = {
        "annoscore seqeval": [*annoscore_command(), "seqeval", str(path), "-f", "json"],
        "annoscore conlleval": [*annoscore_command(), "conlleval", str(path)],
        "seqeval 1.2.2": [sys.executable, "-c", PEER, str(path)],
    }
    runs: dict[str, list] = {name: [] for name in commands}
    for _ in range(args.repeat):  # alternating runs
        for name, command in commands.items():
            runs[name].append(measured(command))
    best = {name: min(found, key=attrgetter("seconds")) for name, found in runs.items()}
    cpu = {name: min(m.cpu for m in found) for name, found in runs.items()}
    ours = json.loads(best["annoscore seqeval"].stdout)["seqeval"]
    theirs = json.loads(best["seqeval 1.2.2"].stdout)
    agree = ours.keys() == theirs.keys() and all(
        abs(ours[k][m] - v) <= 1e-12 for k, row in theirs.items() for m, v in row.items()
    )
    micro = theirs["micro avg"]
    gold = round(micro["support"])
    correct = round(micro["recall"] * micro["support"])
    guessed = round(correct / micro["precision"]) if micro["precision"] else 0
    conlleval_line = best["annoscore conlleval"].stdout.splitlines()[0]
    same = conlleval_line.endswith(
        f"with {gold} phrases; found: {guessed} phrases; correct: {correct}."
    )
    agree = agree and same
    print(f"data: {args.sentences:,} sentences x 30 tokens ({path.stat().st_size / 1e6:.1f} MB)")
    peer, peer_cpu = best["seqeval 1.2.2"], cpu["seqeval 1.2.2"]
    for name in commands:
        m = best[name]
        ratio = ""
        if name != "seqeval 1.2.2":
            ratio = f"  {peer.seconds / m.seconds:5.1f}x wall, {peer_cpu / cpu[name]:5.1f}x CPU"
        print(
            f"{name:22s} {m.seconds:6.2f} s wall  {cpu[name]:6.2f} s CPU  {m.peak_mb:5.0f} MB"
            f"{ratio}"
        )
    print(f"reports equal (per type, micro, macro, weighted): {agree}")
    print(f"conlleval's phrases are seqeval's on this IOB2 file: {same} ({conlleval_line})")
    ours_in, peer_in = in_process(path, args.repeat)
    print(
        f"in one process (start-up excluded, reading included): annoscore seqeval "
        f"{ours_in:.2f} s, seqeval {peer_in:.2f} s: {peer_in / ours_in:.1f}x"
    )
    readers_against_the_floor(folder, args.repeat)
    shutil.rmtree(folder)
    if not agree:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
