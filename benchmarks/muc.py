"""Benchmark: MUC template scoring (TE/TR style) end to end, all reports written.

Data (seeded): 1,000 documents x 50 template objects of 3 classes (20 PERSON, 20 ORGANIZATION,
10 EMPLOYEE_OF relations pointing to both), about 10% errors in the response (changed fills,
dropped objects, spurious objects).  Timed: reading the configuration and both files, aligning,
tallying, and writing the score report (all pages), the report summary, the map history (Tcl)
and the JSON.  No Python package implements the MUC template scorer (../shared/spec/muc.md,
section 12), so there is no peer to time against.

The main line times the command as a user runs it, a separate process, ``python -m annoscore
muc muc.config -o scores`` with the report summary and the map history configured (median of
``--repeat`` runs, wall and CPU time, peak RSS).  Beside it, labelled, the same work in this
process (start-up excluded, the JSON written too), as ``annoscore muc`` runs it: with Python's
cyclic garbage collector paused until the records are released
(``annoscore.cli.common.cyclic_gc_paused``); the best of ``--repeat`` runs and every run's time.

Also prints how the time grows with objects per document: the same total number of objects in
fewer, larger documents (25 to 400 objects per document), with the number of key/response pairs
scored per object.  Alignment is quadratic per class and document: pairs scored per object grow
linearly with objects per document (about a third of the pairs of a class share a fill code in
this data: 3 titles, 3 organization types), while reading and writing stay linear.

    python benchmarks/muc.py [--docs 1000] [--objects 50] [--repeat 3] [--tasks te,ne,co]
                             [--jobs 1 | --jobs 1,2] [--write DIR]

``--write DIR`` only writes each task's data of the main measurement to ``DIR/TASK`` (kept),
for timing the command there by hand (:func:`write_data`).

With ``--jobs 2`` the timed commands cut the key and response files into chunks of documents
scored in two worker processes, each writing its documents' reports to a file that the parent
copies into the output files.  ``--jobs 1,2`` times both in the same invocation, alternating
in rounds (one job, two jobs, one job, ...: a machine whose speed drifts between runs, by up
to 28% here, drifts alike for both), and prints each one's medians (wall, CPU, the parent's
own CPU and its workers'), the speed-up of the wall times and the speed-up on free cores
estimated from the CPU seconds (benchmarks/scale.py's ``free_cores``: one job's CPU over the
longer of the parent's CPU, which scores chunks too, and all the CPU shared by the jobs), with
the load averages.

Named entity and coreference (``--tasks ne,co``): 1,000 MUC-6 style SGML documents of 2,000 words
(HL, TXT sections, ``<p>`` paragraphs) with 100 ENAMEX/TIMEX/NUMEX tags (NE) or 60 COREF
markables in about 15 chains (CO) each, seeded errors in the response (NE: 5% wrong type, 3%
shorter extent, 3% dropped, spurious tags; CO: 10% markables in another chain, 15% marked on
their MIN only, 5% dropped, spurious markables).  Timed end to end as a separate process,
``python -m annoscore muc CONFIG -o scores`` with the report summary, the map history and (CO)
the partition file written as configured (median of ``--repeat`` runs), each report written
once; the child's wall-clock time, its CPU time (user + system: on a shared, busy machine the
wall clock mostly measures the other processes) and its peak RSS are printed with the ratio to
the 3 s goal; then the growth with documents (250, 500, 1,000: x4) and with tags per document
(50, 100, 200 on 250 documents: x4), CPU ratios.
Peers, measured in the same run on the same data: nervaluate 1.2 (NE; its ``ent_type`` and
``exact`` schemes equal the MUC TYPE and TEXT slot tallies on this data, where no overlapping
pair disagrees in both type and extent) and scorch 0.2 (CO; its ``muc`` on the chains as the
generator wrote them, per document), both in-process on pre-read spans; the numbers must
agree.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from annoscore.cli.common import cyclic_gc_paused
from annoscore.metrics.muc import MucDetails
from annoscore.report.generic import render_json
from annoscore.report.muc import report_summary, score_report
from annoscore.report.muc_history import map_history_tcl
from annoscore.tasks.muc import (
    CoreferenceOptions,
    NamedEntityOptions,
    TemplateOptions,
    score_muc_coreference,
    score_muc_named_entity,
    score_muc_template_relation,
)

CONFIG = """:scoring_task template_relation
:key_file key.tpl
:response_file response.tpl
:class_defs
    "PERSON        person        scored  0"
    "ORGANIZATION  organization  scored  0"
    "EMPLOYEE_OF   employee_of   scored  0"
:slot_defs
    "PERSON        PER_NAME   name    scored  100  string"
    "PERSON        PER_TITLE  title   scored  100  string"
    "ORGANIZATION  ORG_NAME   name    scored  100  string"
    "ORGANIZATION  ORG_ALIAS  alias   scored  100  string"
    "ORGANIZATION  ORG_TYPE   type    scored  100  set"
    "EMPLOYEE_OF   PERSON     person  scored  100  pointer"
    "EMPLOYEE_OF   EMPLOYER   org     scored  100  pointer"
:premodifiers a an the
:postmodifiers "." ","
:corporate_designators corp inc ltd co
:report_summary_file report_summary
:dump_map_history yes
:map_history_file map_history
"""

WORDS = [f"{a}{b}" for a in ("ka", "lo", "mi", "ne", "pu", "ro", "sa", "ti") for b in "aeiou"]


def _name(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS).capitalize() for _ in range(2))


def generate(docs: int, per_doc: int, seed: int = 7) -> tuple[str, str]:
    rng = random.Random(seed)
    key: list[str] = []
    rsp: list[str] = []
    people = per_doc * 2 // 5
    orgs = per_doc * 2 // 5
    relations = per_doc - people - orgs
    for d in range(docs):
        doc = f"{9300000000 + d}"
        for i in range(1, people + 1):
            name, title = _name(rng), rng.choice(["Mr.", "Ms.", "Dr."])
            key.append(f'<PERSON-{doc}-{i}> :=\n    PER_NAME: "{name}"\n    PER_TITLE: "{title}"\n')
            if rng.random() < 0.03:
                continue  # dropped
            if rng.random() < 0.07:
                name = _name(rng)
            rsp.append(
                f'<PERSON-{doc}-{i}> :=\n    PER_NAME: "{name.upper()}"\n    PER_TITLE: "{title}"\n'
            )
        for i in range(1, orgs + 1):
            name = _name(rng)
            kind = rng.choice(["COMPANY", "GOVERNMENT", "OTHER"])
            key.append(
                f'<ORGANIZATION-{doc}-{i}> :=\n    ORG_NAME: "{name} Corp."\n'
                f'    ORG_ALIAS: "{name}"\n    ORG_TYPE: {kind}\n'
            )
            if rng.random() < 0.03:
                continue
            if rng.random() < 0.07:
                kind = rng.choice(["COMPANY", "GOVERNMENT", "OTHER"])
            rsp.append(
                f'<ORGANIZATION-{doc}-{i}> :=\n    ORG_NAME: "the {name}"\n    ORG_TYPE: {kind}\n'
            )
        for i in range(1, relations + 1):
            p, o = rng.randint(1, people), rng.randint(1, orgs)
            key.append(
                f"<EMPLOYEE_OF-{doc}-{i}> :=\n    PERSON: <PERSON-{doc}-{p}>\n"
                f"    EMPLOYER: <ORGANIZATION-{doc}-{o}>\n"
            )
            if rng.random() < 0.1:
                o = rng.randint(1, orgs)
            rsp.append(
                f"<EMPLOYEE_OF-{doc}-{i}> :=\n    PERSON: <PERSON-{doc}-{p}>\n"
                f"    EMPLOYER: <ORGANIZATION-{doc}-{o}>\n"
            )
        rsp.append(f'<PERSON-{doc}-{people + 1}> :=\n    PER_NAME: "{_name(rng)}"\n')  # spurious
    return "".join(key), "".join(rsp)


class Measure(NamedTuple):
    seconds: float
    cpu: float
    """CPU seconds of the same work (this process: a busy machine disturbs it least)."""
    scoring: float
    """Reading, aligning and tallying (the rest is writing the reports)."""
    f: float
    pairs_scored: int


def score_and_write(folder: Path) -> tuple[float, float, int]:
    """Score and write every report, as ``annoscore muc`` does: (scoring seconds, F, pairs)."""
    start = time.perf_counter()
    result = score_muc_template_relation(
        folder / "key.tpl", folder / "response.tpl", TemplateOptions(config=folder / "muc.config")
    )
    scoring = time.perf_counter() - start
    details = result.details
    assert isinstance(details, MucDetails)
    (folder / "scores").write_text(score_report(result), encoding="utf-8")
    (folder / "report_summary").write_text(report_summary(result), encoding="utf-8")
    (folder / "map_history").write_text(map_history_tcl(details), encoding="utf-8")
    (folder / "scores.json").write_text(render_json(result), encoding="utf-8")
    f = result.scores["f_pr"]
    return scoring, f if f is not None else float("nan"), details.pairs_scored


def write_template(folder: Path, docs: int, per_doc: int) -> None:
    """The template relation files (:func:`generate`) and :data:`CONFIG` written to ``folder``."""
    key, rsp = generate(docs, per_doc)
    (folder / "key.tpl").write_text(key, encoding="utf-8")
    (folder / "response.tpl").write_text(rsp, encoding="utf-8")
    (folder / "muc.config").write_text(CONFIG, encoding="utf-8")


def run(folder: Path, docs: int, per_doc: int) -> Measure:
    write_template(folder, docs, per_doc)
    # the command runs with the cyclic collector paused until its records are released
    # (annoscore.cli.common.cyclic_gc_paused); so does this measurement
    with cyclic_gc_paused():
        start, cpu = time.perf_counter(), time.process_time()
        scoring, f, pairs = score_and_write(folder)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    return Measure(elapsed, cpu, scoring, f, pairs)


# ------------------------------------------------------------------ named entity, coreference
NE_TYPES = {
    "ENAMEX": ("PERSON", "ORGANIZATION", "LOCATION"),
    "TIMEX": ("DATE", "TIME"),
    "NUMEX": ("MONEY", "PERCENT"),
}
NE_CONFIG = """:scoring_task named_entity
:key_file key.sgml
:response_file response.sgml
:doc_sections HL TXT
:report_summary_file summary
:dump_map_history yes
:map_history_file map_history
"""
CO_CONFIG = """:scoring_task coreference
:key_file key.sgml
:response_file response.sgml
:doc_sections TXT
:report_summary_file summary
:partition_file partitions
:dump_map_history yes
:map_history_file map_history
"""


def generate_ne(docs: int, words: int, tags: int, seed: int = 7) -> tuple[str, str]:
    """Key and response NE files (see the module docstring); tags never overlap each other."""
    rng = random.Random(seed)
    key: list[str] = []
    rsp: list[str] = []
    for d in range(docs):
        head = f"<DOC>\n<DOCNO> {9300000000 + d} </DOCNO>\n<HL> Headline {d} </HL>\n<TXT>\n<p>\n"
        key.append(head)
        rsp.append(head)
        starts = {3 * s: rng.randint(1, 2) for s in rng.sample(range(words // 3), tags)}
        k_words: list[str] = []
        r_words: list[str] = []
        i = 0
        while i < words:
            n = starts.get(i)
            if n is not None:
                text = " ".join(rng.choice(WORDS).capitalize() for _ in range(n))
                gid = rng.choice(("ENAMEX", "ENAMEX", "ENAMEX", "TIMEX", "NUMEX"))
                kind = rng.choice(NE_TYPES[gid])
                k_words.append(f'<{gid} TYPE="{kind}">{text}</{gid}>')
                u = rng.random()
                if u < 0.03:
                    r_words.append(text)
                elif u < 0.08:
                    other = rng.choice([t for t in NE_TYPES[gid] if t != kind])
                    r_words.append(f'<{gid} TYPE="{other}">{text}</{gid}>')
                elif u < 0.11 and n == 2:
                    first, second = text.split(" ")
                    r_words.append(f'<{gid} TYPE="{kind}">{first}</{gid}> {second}')
                else:
                    r_words.append(f'<{gid} TYPE="{kind}">{text}</{gid}>')
                i += n
            else:
                word = rng.choice(WORDS)
                k_words.append(word)
                spurious = rng.random() < 0.002
                r_words.append(f'<ENAMEX TYPE="PERSON">{word}</ENAMEX>' if spurious else word)
                i += 1
            if i % 40 == 0:
                k_words.append("\n</p>\n<p>\n")
                r_words.append("\n</p>\n<p>\n")
        key.append(" ".join(k_words))
        rsp.append(" ".join(r_words))
        key.append("\n</p>\n</TXT>\n</DOC>\n")
        rsp.append("\n</p>\n</TXT>\n</DOC>\n")
    return "".join(key), "".join(rsp)


def generate_co(
    docs: int, words: int, markables: int, seed: int = 11
) -> tuple[str, str, list[tuple[list[set[str]], list[set[str]]]]]:
    """Key and response CO files, and per document the key chains and the response chains in
    key ids (a response markable stands for the key markable it was written for) for the peer."""
    rng = random.Random(seed)
    key: list[str] = []
    rsp: list[str] = []
    truth: list[tuple[list[set[str]], list[set[str]]]] = []
    for d in range(docs):
        head = f"<DOC>\n<DOCNO> {9400000000 + d} </DOCNO>\n<TXT>\n"
        key.append(head)
        rsp.append(head)
        positions = {3 * s for s in rng.sample(range(words // 3 - 1), markables)}
        chains = max(1, markables // 4)
        last_key: dict[int, int] = {}
        last_rsp: dict[int, str] = {}
        key_chains: dict[int, set[str]] = {}
        rsp_chains: dict[int, set[str]] = {}
        k_words: list[str] = []
        r_words: list[str] = []
        ident = 0
        i = 0
        while i < words:
            if i in positions:
                ident += 1
                chain = rng.randrange(chains)
                r_chain = chain if rng.random() > 0.1 else rng.randrange(chains)
                a, b = rng.choice(WORDS), rng.choice(WORDS)
                ref = f' REF="{last_key[chain]}"' if chain in last_key else ""
                last_key[chain] = ident
                key_chains.setdefault(chain, set()).add(str(ident))
                k_words.append(f'<COREF ID="{ident}" MIN="{b}"{ref}>the {a} {b}</COREF>')
                u = rng.random()
                rid = str(1000 + ident)
                rref = f' REF="{last_rsp[r_chain]}"' if r_chain in last_rsp else ""
                if u < 0.05:
                    r_words.append(f"the {a} {b}")
                else:
                    last_rsp[r_chain] = rid
                    rsp_chains.setdefault(r_chain, set()).add(str(ident))
                    if u < 0.2:
                        r_words.append(f'the {a} <COREF ID="{rid}"{rref}>{b}</COREF>')
                    else:
                        r_words.append(f'<COREF ID="{rid}"{rref}>the {a} {b}</COREF>')
                i += 3
            else:
                word = rng.choice(WORDS)
                k_words.append(word)
                if rng.random() < 0.002:
                    r_words.append(f'<COREF ID="s{i}">{word}</COREF>')
                    rsp_chains[-i - 1] = {f"s{i}"}
                else:
                    r_words.append(word)
                i += 1
            if i % 40 == 0:
                k_words.append("\n")
                r_words.append("\n")
        key.append(" ".join(k_words))
        rsp.append(" ".join(r_words))
        key.append("\n</TXT>\n</DOC>\n")
        rsp.append("\n</TXT>\n</DOC>\n")
        truth.append((list(key_chains.values()), list(rsp_chains.values())))
    return "".join(key), "".join(rsp), truth


class Run(NamedTuple):
    """One ``annoscore muc`` process: wall-clock seconds, CPU seconds (user + system, the
    figure a busy shared machine disturbs least; the workers' included), peak resident memory
    in MB (the largest process), and the CPU seconds of the process itself and of its workers."""

    wall: float
    cpu: float
    peak_mb: float
    own: float
    workers: float


JOBS: tuple[int, ...] = (1,)
"""``--jobs`` of the timed commands (:func:`main`'s ``--jobs``): the main measurements time
each, alternating (:func:`time_jobs`); the growth measurements the first."""


def time_command(folder: Path, config: str, repeat: int, jobs: int | None = None) -> list[Run]:
    """``annoscore muc CONFIG -o scores --jobs N`` (files in, reports out; ``N``: ``jobs``,
    by default the first of :data:`JOBS`), ``repeat`` times."""
    # beside this script (tests import this module by its path)
    from processes import annoscore_command
    from scale import run_command

    n = JOBS[0] if jobs is None else jobs
    command = [*annoscore_command(), "muc", config, "-o", "scores", "--jobs", str(n)]
    runs = []
    for _ in range(max(1, repeat)):
        wall, cpu, peak, _, own, workers = run_command(command, folder)
        runs.append(Run(wall, cpu, peak, own, workers))
    return runs


def time_jobs(folder: Path, config: str, repeat: int) -> dict[int, list[Run]]:
    """:func:`time_command` with each of :data:`JOBS`, ``repeat`` rounds, the jobs alternating
    in each round."""
    runs: dict[int, list[Run]] = {n: [] for n in JOBS}
    for _ in range(max(1, repeat)):
        for n in JOBS:
            runs[n] += time_command(folder, config, 1, n)
    return runs


def jobs_lines(runs: dict[int, list[Run]]) -> list[str]:
    """Each ``--jobs``'s medians (wall, CPU, the process's own CPU and its workers'), and for
    the others than the first their speed-up over it: of the wall times (the same rounds),
    and on free cores, estimated from the CPU seconds (``free_cores`` of benchmarks/scale.py).
    """
    from scale import free_cores  # beside this script

    first = runs[JOBS[0]]
    wall_1 = statistics.median(r.wall for r in first)
    cpu_1 = statistics.median(r.cpu for r in first)
    lines = []
    for n, done in runs.items():
        wall = statistics.median(r.wall for r in done)
        own = statistics.median(r.own for r in done)
        workers = statistics.median(r.workers for r in done)
        line = (
            f"--jobs {n}: wall {wall:.2f} s, CPU {statistics.median(r.cpu for r in done):.2f} s "
            f"(process {own:.2f} / workers {workers:.2f}; medians of {len(done)})"
        )
        if done is not first:
            estimate = free_cores(cpu_1, own, workers, ["--jobs", str(n)])
            line += (
                f"; speed-up over --jobs {JOBS[0]}: wall {wall_1 / wall:.2f}x, on free cores "
                f"(est., CPU) {estimate}"
            )
        lines.append(line)
    return lines


TAGS = {"ne": 100, "co": 60}
"""Tags per document of the named entity and coreference data (the module docstring)."""


def write_data(folder: Path, tasks: Sequence[str], docs: int, objects: int) -> list[Path]:
    """The files of the main measurement of each of ``tasks`` (``te``, ``ne``, ``co``) written
    to ``folder / TASK`` and kept (``--write DIR``): ``annoscore muc muc.config -o scores
    --jobs N`` may then be timed there by hand (whole processes, alternating, on a quiet
    machine) or under ``valgrind --tool=callgrind``.  The folders, in the order of ``tasks``."""
    written = []
    for task in tasks:
        place = folder / task
        place.mkdir(parents=True, exist_ok=True)
        if task == "te":
            write_template(place, docs, objects)
        else:
            write_sgml(place, task, docs, TAGS[task])
        written.append(place)
    return written


GOAL_SECONDS = 3.0
"""The goal of issue 11: each SGML task end to end under 3 s."""


def write_sgml(folder: Path, task: str, docs: int, tags: int) -> Any:
    if task == "ne":
        key, rsp = generate_ne(docs, 2000, tags)
        truth = None
        config = NE_CONFIG
    else:
        key, rsp, truth = generate_co(docs, 2000, tags)
        config = CO_CONFIG
    (folder / "key.sgml").write_text(key, encoding="utf-8")
    (folder / "response.sgml").write_text(rsp, encoding="utf-8")
    (folder / "muc.config").write_text(config, encoding="utf-8")
    return truth


def check_ne_peer(folder: Path) -> str:
    """nervaluate's ent_type and exact schemes against the TYPE and TEXT slot tallies."""
    from nervaluate import Evaluator

    from annoscore.formats.muc_sgml import SgmlMarkup, read_sgml

    def spans(path: Path) -> list[list[dict[str, Any]]]:
        documents = read_sgml(path, NE_TYPES, SgmlMarkup(sections=("HL", "TXT")))
        return [
            [{"label": t.attributes["TYPE"], "start": t.start, "end": t.end - 1} for t in d.tags]
            for d in documents
        ]

    gold, pred = spans(folder / "key.sgml"), spans(folder / "response.sgml")
    labels = sorted({t for types in NE_TYPES.values() for t in types})
    started = time.perf_counter()
    theirs = Evaluator(gold, pred, tags=labels, loader="dict").evaluate()["overall"]
    peer_seconds = time.perf_counter() - started
    result = score_muc_named_entity(
        folder / "key.sgml",
        folder / "response.sgml",
        NamedEntityOptions(config=folder / "muc.config"),
    )
    counts = result.counts
    for slot, scheme in (("type", "ent_type"), ("text", "exact")):
        ours = tuple(
            sum(int(counts[f"slot:{c}:{slot}:{t}"]) for c in ("enamex", "timex", "numex"))
            for t in ("cor", "inc", "mis", "spu")
        )
        peer = theirs[scheme]
        peer_row = (peer.correct, peer.incorrect, peer.missed, peer.spurious)
        if ours != peer_row:
            raise AssertionError(f"{slot} slot {ours} != nervaluate {scheme} {peer_row}")
    return (
        f"nervaluate 1.2 ent_type/exact (in-process, evaluate only): {peer_seconds:.2f} s; "
        "TYPE and TEXT slot COR/INC/MIS/SPU agree"
    )


def check_co_peer(folder: Path, truth: list[tuple[list[set[str]], list[set[str]]]]) -> str:
    """scorch's per-document MUC R and P against annoscore's, on the generator's chains."""
    from scorch import scores  # type: ignore[import-untyped]

    started = time.perf_counter()
    theirs = [scores.muc(k, r) for k, r in truth]
    peer_seconds = time.perf_counter() - started
    result = score_muc_coreference(
        folder / "key.sgml",
        folder / "response.sgml",
        CoreferenceOptions(config=folder / "muc.config"),
    )
    ours = list(result.documents.values())
    agree = 0
    for unit, (recall, precision, _) in zip(ours, theirs, strict=True):
        r, p = unit.scores["muc_recall"], unit.scores["muc_precision"]
        if abs((r or 0.0) - recall) > 1e-12 or abs((p or 0.0) - precision) > 1e-12:
            raise AssertionError(f"MUC R/P {r}/{p} != scorch {recall}/{precision}")
        agree += 1
    return (
        f"scorch 0.2 muc (in-process, per document): {peer_seconds:.2f} s; MUC recall and "
        f"precision agree on {agree}/{len(theirs)} documents"
    )


def bench_sgml(task: str, docs: int, tags: int, repeat: int) -> None:
    name = {"ne": "named entity", "co": "coreference"}[task]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        truth = write_sgml(folder, task, docs, tags)
        by_jobs = time_jobs(folder, "muc.config", repeat)
        runs = by_jobs[JOBS[0]]
        wall = statistics.median(r.wall for r in runs)
        cpu = statistics.median(r.cpu for r in runs)
        times = ", ".join(f"{r.wall:.2f}/{r.cpu:.2f}" for r in runs)
        print(
            f"annoscore muc ({name}): {docs} documents x 2,000 words x {tags} tags, end to end "
            f"with all reports: wall {wall:.2f} s, CPU {cpu:.2f} s (median of {len(runs)}; "
            f"wall/CPU {times}), peak RSS {max(r.peak_mb for r in runs):.0f} MB; "
            f"goal {GOAL_SECONDS:.0f} s: wall x{wall / GOAL_SECONDS:.2f}, "
            f"CPU x{cpu / GOAL_SECONDS:.2f} of the goal"
        )
        if len(JOBS) > 1:
            print("  " + "\n  ".join(jobs_lines(by_jobs)))
        try:
            print("  " + (check_ne_peer(folder) if task == "ne" else check_co_peer(folder, truth)))
        except ImportError as error:
            print(f"  peer not installed ({error.name}): comparison skipped")
        print(f"  growth with documents ({tags} tags each, one run each):")
        by_docs = []
        for n in (docs // 4, docs // 2, docs):
            write_sgml(folder, task, n, tags)
            run = time_command(folder, "muc.config", 1)[0]
            by_docs.append((n, run))
            print(
                f"    {n:5d} documents: wall {run.wall:6.2f} s, CPU {run.cpu:6.2f} s, "
                f"{1e3 * run.cpu / n:5.2f} ms CPU/document"
            )
        print(f"  growth with tags per document ({docs // 4} documents, one run each):")
        by_tags = []
        for n in (tags // 2, tags, 2 * tags):
            write_sgml(folder, task, docs // 4, n)
            run = time_command(folder, "muc.config", 1)[0]
            by_tags.append((n, run))
            print(f"    {n:5d} tags/document: wall {run.wall:6.2f} s, CPU {run.cpu:6.2f} s")
        print(
            f"  documents x4: CPU x{by_docs[-1][1].cpu / by_docs[0][1].cpu:.2f} (linear: x4, "
            f"less the fixed start-up); tags x4: CPU x{by_tags[-1][1].cpu / by_tags[0][1].cpu:.2f} "
            "(linear: x4, quadratic: x16; the 2,000 words per document are read whatever the "
            "number of tags)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--objects", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3, help="runs of the main measurement")
    parser.add_argument("--tasks", default="te,ne,co", help="te, ne, co (comma-separated)")
    parser.add_argument(
        "--jobs",
        default="1",
        help="--jobs of the timed commands (the chunks write their documents' reports); "
        "several, comma-separated (1,2): each timed in alternating rounds, compared",
    )
    parser.add_argument(
        "--no-bytecode", action="store_true", help="annoscore without compiled bytecode"
    )
    parser.add_argument(
        "--write",
        type=Path,
        metavar="DIR",
        help="only write each task's data to DIR/TASK and keep it (nothing timed)",
    )
    args = parser.parse_args()
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    if args.write is not None:
        for place in write_data(args.write, tasks, args.docs, args.objects):
            print(f"{place}: annoscore muc muc.config -o scores --jobs N")
        return
    global JOBS
    JOBS = tuple(int(n) for n in args.jobs.split(","))
    print(f"load averages: {os.getloadavg()}")
    import installed  # beside this script (tests import this module by its path)

    installed.compile_package(bytecode=not args.no_bytecode)
    for task in ("ne", "co"):
        if task in tasks:
            bench_sgml(task, args.docs, TAGS[task], args.repeat)
    if "te" in tasks:
        main_template(args)
    print(f"load averages after: {os.getloadavg()}")


def main_template(args: argparse.Namespace) -> None:
    total = args.docs * args.objects
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        runs = [run(folder, args.docs, args.objects) for _ in range(max(1, args.repeat))]
        by_jobs = time_jobs(folder, "muc.config", args.repeat)  # the files of the last run
        commands = by_jobs[JOBS[0]]
        wall = statistics.median(r.wall for r in commands)
        cpu = statistics.median(r.cpu for r in commands)
        print(
            f"annoscore muc (template relation): {args.docs} documents x {args.objects} objects "
            f"({total} key objects), end to end with the score report, report summary and map "
            f"history: wall {wall:.2f} s, CPU {cpu:.2f} s (median of {len(commands)}; wall/CPU "
            + ", ".join(f"{r.wall:.2f}/{r.cpu:.2f}" for r in commands)
            + f"), peak RSS {max(r.peak_mb for r in commands):.0f} MB; goal 5 s: "
            f"x{wall / 5:.2f}; no peer implements MUC"
        )
        if len(JOBS) > 1:
            print("  " + "\n  ".join(jobs_lines(by_jobs)))
        best = min(runs, key=lambda m: m.seconds)
        times = ", ".join(f"{m.seconds:.2f}" for m in runs)
        print(
            f"  in one process (start-up excluded; the JSON written too): {best.seconds:.2f} s "
            f"best of {len(runs)} ({times}; CPU {best.cpu:.2f} s; scoring "
            f"{best.scoring:.2f} s, writing {best.seconds - best.scoring:.2f} s), F P&R "
            f"{100 * best.f:.2f}"
        )
        print(
            f"  growth with objects per document ({total} key objects in all, in one process, "
            "best of 2):"
        )
        growth: list[tuple[int, Measure]] = []
        for per_doc in (25, 50, 100, 200, 400):
            docs = max(1, total // per_doc)
            m = min((run(folder, docs, per_doc) for _ in range(2)), key=lambda m: m.seconds)
            growth.append((per_doc, m))
            print(
                f"    {per_doc:4d} objects/doc x {docs:5d} docs: {m.seconds:6.2f} s "
                f"(scoring {m.scoring:5.2f} s), {1e6 * m.seconds / (docs * per_doc):6.1f} "
                f"us/object, {m.pairs_scored / (docs * per_doc):6.1f} pairs scored/object"
            )
        (low, first), (high, last) = growth[0], growth[-1]
        print(
            f"  objects/doc x{high // low}: pairs scored/object x"
            f"{last.pairs_scored / max(1, first.pairs_scored):.1f} (quadratic per class and "
            f"document), time/object x{last.seconds / first.seconds:.2f} (reading and writing "
            "are linear and dominate)"
        )


if __name__ == "__main__":
    main()
