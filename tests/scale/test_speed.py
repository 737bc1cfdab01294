"""The parts of ``--jobs`` that make it fast (:mod:`annoscore.scale`), each against a plain
reference: where the chunks of lines are cut (shrinking shares for several workers), the system
cut sought near its share of the file, the ids a chunk sends (strings encoded once), results
left by the workers in files, and the corpus total summed column by column.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of random cases (default 1).
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import random
import time
from pathlib import Path

import numpy as np
import pytest

import annoscore
import annoscore.scale as scale
from annoscore.report.generic import render
from annoscore.result import CountMatrix
from tests.equivalence.ids import id_pool

MULTIPLIER = float(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1"))


def test_targets_cut_every_byte_once_in_shrinking_shares(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(31)
    for _ in range(int(2000 * MULTIPLIER)):
        most = rng.choice([1, 7, 150, 4096, 1 << 22])
        monkeypatch.setattr(scale.cut_lines, "LINE_CHUNK_BYTES", most)
        size = rng.randrange(0, most * rng.choice([1, 10, 300]) + 50)
        parts, workers = rng.randint(1, 9), rng.randint(1, 5)
        found = scale.targets(size, parts, workers)
        if workers == 1:  # even shares, as many as asked or as the largest chunk needs
            wanted = max(parts, -(-size // most))
            assert found == ([size * n // wanted for n in range(1, wanted)] if wanted > 1 else [])
            continue
        assert found == sorted(set(found)) and all(0 < t < size for t in found)
        shares = [b - a for a, b in itertools.pairwise([0, *found, size])]
        least = max(1, min(most, size // parts) // 16)
        assert all(s <= most for s in shares[:-1]) and shares[-1] < most + least
        assert all(a >= b for a, b in itertools.pairwise(shares[:-1]) if b > least)
        assert all(s >= least for s in shares) or not found
        if size >= 2 * workers * most and most >= 16:  # large: full chunks first, then smaller
            assert shares[0] == most and shares[-1] < most


def _plain_find(data: bytes, key: bytes, separators: bytes, after: int) -> int:
    """The first line at or after ``after`` whose first field is ``key`` and that has a
    separator after it, line by line."""
    at = 0
    for line in data.split(b"\n"):
        field = line
        for separator in separators:
            field = field.split(bytes((separator,)), 1)[0]
        if at >= after and field == key and len(line) > len(key):
            return at
        at += len(line) + 1
    return -1


def _file(rng: random.Random, grouped: bool, separators: bytes) -> tuple[bytes, list[bytes]]:
    """Lines of a few keys (prefixes of each other among them), each key's lines adjacent
    when ``grouped``; blank lines and lines of a key alone among them."""
    keys = [b"q1", b"q10", b"q1x", b"1", b"d\xc3\xa9", b"q", b"S0001-1", b"S0001-10"]
    chosen = rng.sample(keys, rng.randint(1, len(keys)))
    ends = [bytes((s,)) for s in separators]
    lines: list[bytes] = []
    for key in chosen:
        for _ in range(rng.randint(1, 5)):
            end = rng.choice([*ends, *ends, b""])  # b"": the key alone
            lines.append(key + end + (rng.choice([b"a", b""]) if end else b""))
        if rng.random() < 0.3:
            lines.append(b"")
    if not grouped:
        rng.shuffle(lines)
    return b"\n".join(lines) + rng.choice([b"\n", b""]), chosen


def test_a_system_cut_sought_near_its_share_is_the_first_line_of_adjacent_lines() -> None:
    """With a key's lines adjacent, ``_find_near`` gives ``_find_line``'s line wherever it
    starts to look; otherwise a line of the key at or after ``after`` (or none when there is
    none), which the ids then show in two chunks."""
    rng = random.Random(31)
    for _ in range(int(4000 * MULTIPLIER)):
        grouped = rng.random() < 0.7
        separators = rng.choice([b" ", b"\t", b" \t"])
        data, keys = _file(rng, grouped, separators)
        starts = [0] + [k + 1 for k in range(len(data)) if data[k : k + 1] == b"\n"]
        after = rng.choice(starts)
        key = rng.choice([*keys, b"q2"])
        near = rng.randrange(0, len(data) + 2)
        expected = _plain_find(data, key, separators, after)
        assert scale.cut_lines._find_line(data, key, separators, after) == expected
        found = scale.cut_lines._find_near(data, key, separators, after, near)
        if grouped:
            assert found == expected, (data, key, separators, after, near)
        elif expected < 0:
            assert found == -1
        else:
            assert found >= after and found in starts
            assert _plain_find(data, key, separators, found) == found


def _old_seen(ids: list[object]) -> scale.Seen:
    """``Seen.of`` as it was written first: every id encoded, compared as bytes."""
    keys = [
        k if isinstance(k, bytes) else str(k).encode("utf-8", "surrogatepass")
        for k in dict.fromkeys(ids)
    ]
    ordered = all(a < b for a, b in itertools.pairwise(keys))
    first, last = (keys[0], keys[-1]) if keys else (b"", b"")
    return scale.Seen(first, last, ordered, len(keys), b"\n".join(keys))


def test_seen_of_strings_equals_the_ids_encoded_one_by_one() -> None:
    rng = random.Random(31)
    surrogates = ["\ud800", "a\udfff", "\U0001f600", "\uffff", "\ue000"]
    for _ in range(int(3000 * MULTIPLIER)):
        pool = [i for i in id_pool(rng, rng.randint(0, 12)) if "\n" not in i] + surrogates
        ids: list[object] = [rng.choice(pool) for _ in range(rng.randint(0, 10))]
        if rng.random() < 0.5:
            ids.sort()
        if rng.random() < 0.1:  # numbers, as a reader of number-looking ids may record them
            ids.append(rng.randint(0, 20))
        assert scale.Seen.of(ids) == _old_seen(ids), ids


def test_workers_results_come_back_by_file_or_pipe_and_leave_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("annoscore.scale.spool.spool_folder", lambda: str(tmp_path))
    sent: list[type] = []
    received = scale.run._received

    def spy(item: tuple[str, int, tuple[tuple[int, int], ...]] | bytes) -> object:
        sent.append(type(item))
        return received(item)

    monkeypatch.setattr(scale.run, "_received", spy)
    items = list(range(7))
    _WORKER_BEGAN.clear()
    # the items the worker scored (this process, slow here, scores few: they are not sent)
    assert scale.Run(2).map(_rows_slow_here, items) == [_rows(n) for n in items]
    assert sent and sent == [tuple] * len(sent)  # paths of files (where their arrays' bytes are)
    assert not list(tmp_path.iterdir())  # every file read and removed, the folder too
    # a folder where no file can be written (a full /dev/shm): the results sent by the pipe
    unwritable = tmp_path / "full"
    unwritable.mkdir()
    monkeypatch.setattr("annoscore.scale.spool.spool_folder", lambda: str(unwritable))
    real_open = open

    def refusing(path: object, mode: str = "r", *args: object, **kwargs: object) -> object:
        if "w" in mode and str(path).startswith(str(unwritable)):
            raise OSError(28, "No space left on device")
        return real_open(path, mode, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.open", refusing)
    sent.clear()
    _WORKER_BEGAN.clear()
    assert scale.Run(2).map(_rows_slow_here, items) == [_rows(n) for n in items]
    assert sent and sent == [bytes] * len(sent)  # sent by the pipe
    assert not list(unwritable.iterdir())


def _rows(n: int) -> tuple[int, list[str]]:
    return n, [f"d{n}-{k}" for k in range(n * 1000)]


_PARENT = os.getpid()
_WORKER_BEGAN = multiprocessing.get_context("fork").Event()
"""Set by a worker as it begins an item (forked workers inherit it)."""


def _rows_slow_here(n: int) -> tuple[int, list[str]]:
    """:func:`_rows`, slowly in this process (which scores the items no worker has begun):
    it waits until a worker has begun one (under load, a worker may start late)."""
    if os.getpid() == _PARENT:
        _WORKER_BEGAN.wait(60)
        time.sleep(0.2)
    else:
        _WORKER_BEGAN.set()
    return _rows(n)


def test_the_total_is_the_running_sum_of_the_rows_in_order() -> None:
    rng = np.random.default_rng(31)
    for _ in range(int(200 * MULTIPLIER)):
        rows, columns = int(rng.integers(0, 3000)), int(rng.integers(0, 6))
        values = rng.random((rows, columns)) * 10.0 ** rng.integers(-3, 12, size=columns)
        values[rng.random((rows, columns)) < 0.1] = np.float64(0.1)
        whole = rng.random(columns) < 0.5  # columns of whole numbers: summed exactly
        low = -(10 ** int(rng.integers(0, 10))) if rng.random() < 0.3 else 0  # some negative
        shape = (rows, int(whole.sum()))
        values[:, whole] = rng.integers(low, 10 ** int(rng.integers(1, 10)), shape)
        if rng.random() < 0.2:  # -0.0 and whole numbers near 2^53 / rows (exact sums still)
            values[rng.random((rows, columns)) < 0.2] = -0.0
            values[:, whole] += rng.integers(0, 2**53 // max(1, rows) // 2, shape)
        if rng.random() < 0.3:  # a view: every other row, the columns reversed
            values = np.ascontiguousarray(values)[::2, ::-1]
            whole, rows = whole[::-1], len(values)
        matrix = CountMatrix(
            tuple(f"d{k}" for k in range(rows)),
            tuple(f"c{k}" for k in range(columns)),
            values,
            tuple(bool(w) for w in whole),
        )
        expected: list[float] = [0.0] * columns
        for row in values.tolist():  # left to right, one document after the other
            expected = [a + b for a, b in zip(expected, row, strict=True)]
        assert matrix.total().as_dict() == dict(zip(matrix.names, expected, strict=True))


def test_a_corpus_cut_for_two_workers_is_cut_in_shrinking_chunks_and_scored_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CodiEsp D of 400 documents with chunks of at most 2,000 bytes: more chunks with two
    jobs than with one, the last ones smaller, and the same bytes of JSON."""
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)
    monkeypatch.setattr(scale.cut_lines, "LINE_CHUNK_BYTES", 2000)
    rng = random.Random(31)
    codes = [f"c{n:02d}" for n in range(40)]
    gold = "".join(f"S{d:05d}-1\t{c}\n" for d in range(400) for c in rng.sample(codes, 3))
    pred = "".join(f"S{d:05d}-1\t{c}\n" for d in range(400) for c in rng.sample(codes, 2))
    (tmp_path / "g.tsv").write_text(gold, encoding="utf-8")
    (tmp_path / "p.tsv").write_text(pred, encoding="utf-8")
    (tmp_path / "codes.tsv").write_text("\n".join(codes) + "\n", encoding="utf-8")
    one = scale.split_lines(tmp_path / "g.tsv", tmp_path / "p.tsv", 1)
    two = scale.split_lines(tmp_path / "g.tsv", tmp_path / "p.tsv", 4, workers=2)
    assert one is not None and two is not None and len(two) > len(one)
    sizes = [c.gold_range[1] - c.gold_range[0] for c in two]
    assert max(sizes[-3:]) < max(sizes[:3])
    for chunks in (one, two):
        assert chunks[0].system_range[0] == 0
        for a, b in itertools.pairwise(chunks):
            assert a.gold_range[1] == b.gold_range[0] and a.system_range[1] == b.system_range[0]
            key = gold.encode()[b.gold_range[0] :].split(b"\t", 1)[0]
            assert pred.encode()[b.system_range[0] :].startswith(key + b"\t")
    outputs = {
        jobs: annoscore.score(
            "codiesp-d",
            tmp_path / "g.tsv",
            tmp_path / "p.tsv",
            jobs=jobs,
            codes=tmp_path / "codes.tsv",
        )
        for jobs in (1, 2, 3)
    }
    rendered = {j: render(r.shown(documents=True), "json") for j, r in outputs.items()}
    assert rendered[2] == rendered[1] and rendered[3] == rendered[1]


def test_the_valid_codes_are_read_once_in_a_cut_run_and_again_in_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exact: list[bool]
) -> None:
    import annoscore.formats.codiesp as codiesp_format

    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)
    monkeypatch.setattr(scale.cut_lines, "LINE_CHUNK_BYTES", 200)
    gold = "".join(f"S{d:03d}\tc{d % 7}\n" for d in range(100))
    (tmp_path / "g.tsv").write_text(gold, encoding="utf-8")
    (tmp_path / "p.tsv").write_text(gold, encoding="utf-8")
    reads: list[Path] = []
    original = codiesp_format._read_valid_codes

    def counted(path: Path) -> object:
        reads.append(path)
        return original(path)

    monkeypatch.setattr(codiesp_format, "_read_valid_codes", counted)
    codes = tmp_path / "codes.tsv"
    scores = []
    for listed in ("c0\nc1\nc2\nc3\nc4\nc5\nc6\n", "c0\nc1\nc2\nc3\nc4\nc5\nc6\nc7\n"):
        codes.write_text(listed, encoding="utf-8")
        reads.clear()
        result = annoscore.score("codiesp-d", tmp_path / "g.tsv", tmp_path / "p.tsv", codes=codes)
        assert len(reads) == 1  # one process, chunk after chunk: one reading (each run)
        scores.append(result.scores["precision"])
    assert exact == [True, True] and scores == [1.0, 1.0]
    codiesp_format.read_valid_code_file(codes)
    codiesp_format.read_valid_code_file(codes)
    assert len(reads) == 3  # outside a cut run: every call reads


def test_the_allocator_is_tuned_only_in_a_process_that_has_not_tuned_it() -> None:
    """:func:`annoscore.scale.reuse_freed_memory` applies glibc's thresholds (True) unless the
    environment sets the allocator already (False); a command that cuts a file of lines calls
    it (its output is the one of a run without it: the scale tests)."""
    import ctypes
    import os
    import subprocess
    import sys

    try:
        glibc = hasattr(ctypes.CDLL(None), "mallopt") and sys.platform.startswith("linux")
    except OSError:
        glibc = False
    code = "import annoscore.scale as s; print(s.reuse_freed_memory())"
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    clean.pop("GLIBC_TUNABLES", None)
    for extra, expected in (({}, str(glibc)), ({"MALLOC_ARENA_MAX": "2"}, "False")):
        found = subprocess.run(
            [sys.executable, "-c", code],
            env={**clean, **extra},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        assert found == expected, extra


def test_only_the_command_line_tunes_the_allocator_and_only_for_chunks_of_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``annoscore.score`` runs in the caller's process: it leaves the allocator alone; the
    command line's run (:func:`annoscore.scale.scaled`) tunes it when a file of lines is cut
    into several chunks."""
    from tests.scale.test_lines import CORPORA

    calls: list[bool] = []
    monkeypatch.setattr(scale, "reuse_freed_memory", lambda: calls.append(True) or True)
    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)
    monkeypatch.setattr(scale.cut_lines, "LINE_CHUNK_BYTES", 200)
    write, gold_name, system_name = CORPORA["trec"]
    options = write(random.Random(5), tmp_path, True)
    gold, system = tmp_path / gold_name, tmp_path / system_name
    one = render(annoscore.score("trec", gold, system, **options), "json")
    assert calls == []
    with scale.scaled(1):
        from annoscore.tasks.registry import get

        tuned = render(get("trec").run(gold, system, **options), "json")
    assert calls == [True] and tuned == one


def test_json_arrays_are_cut_in_shrinking_shares_for_the_workers_of_the_run_in_force(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``split_pair`` asks the run in force for its workers unless told (NLP Sandbox's arrays):
    even shares outside a run of several jobs or when told one worker, shares that shrink
    towards the end inside one; either way every note in exactly one chunk, on both sides, from
    one note (not cut) up, and the same bytes with 1, 2 and 3 jobs."""
    import json

    from annoscore.scale.cut_json import split_json
    from annoscore.tasks.nlpsandbox import _NOTES
    from tests.scale.test_lines import _same

    monkeypatch.setattr(scale.cut_lines, "MIN_LINE_BYTES", 0)
    monkeypatch.setattr(scale.cut_lines, "LINE_CHUNK_BYTES", 3000)
    rng = random.Random(31)
    for count in (1, 2, 3, 4, 5, 9, 120):
        notes = [
            {
                "annotationSource": {"resourceSource": {"name": f"notes/n{n:03d}"}},
                "textDateAnnotations": [
                    {"start": 3 * k, "length": 2, "text": "]}", "dateFormat": "YYYY"}
                    for k in range(rng.randint(0, 12))
                ],
            }
            for n in range(count)
        ]
        data = json.dumps(notes).encode()
        gold, system = tmp_path / f"g{count}.json", tmp_path / f"p{count}.json"
        gold.write_bytes(data)
        system.write_bytes(data)
        alone = split_json(gold, system, 4, _NOTES)
        with scale.using(2):
            shrinking = split_json(gold, system, 4, _NOTES)
            even = split_json(gold, system, 1, _NOTES)  # one part asked: even shares
        if count == 1:
            assert alone is None and shrinking is None and even is None
            continue
        assert alone is not None and shrinking is not None
        for chunks in (alone, shrinking, even or alone):
            for side in ("gold_range", "system_range"):
                ranges = [getattr(c, side) for c in chunks]
                assert all(a[1] <= b[0] for a, b in itertools.pairwise(ranges))
                items = [item for r in ranges for item in json.loads(b"[" + data[slice(*r)] + b"]")]
                assert items == notes
        if count == 120:
            assert alone is not None and shrinking is not None and even is not None
            sizes = [c.gold_range[1] - c.gold_range[0] for c in shrinking]
            assert len(shrinking) > len(alone) and max(sizes[-3:]) < max(sizes[:3])
            even_sizes = [c.gold_range[1] - c.gold_range[0] for c in even]
            assert max(even_sizes) - min(even_sizes) < 2 * max(len(json.dumps(n)) for n in notes)
        if count in (2, 120):
            _same("nlpsandbox-date", gold, system, 3000, jobs=(2, 3))
