"""How a forked worker's result comes back (:func:`annoscore.scale.run._work`): pickled into a
file with its arrays' bytes apart, mapped by the parent and unpickled with the arrays as views
of the mapping (:func:`annoscore.scale.run._received`), held to a plain ``pickle`` round trip
on random nested results (arrays of every kind: empty, not contiguous, Fortran order, big
endian, of objects, structured; bytes, strings), and whole runs to the bytes of ``--jobs 1``."""

from __future__ import annotations

import os
import pickle
import random
from pathlib import Path
from typing import Any

import numpy as np

import annoscore.scale as scale
from annoscore.scale import run as run_module


def _array(rng: random.Random) -> Any:
    kind = rng.randrange(9)
    n = rng.choice([0, 1, 3, 17, 1000])
    if kind == 0:
        return np.arange(n, dtype=rng.choice([np.int8, np.int32, np.int64, np.uint64]))
    if kind == 1:
        return np.array([rng.random() for _ in range(n)]).reshape(-1, 1) * 3.5
    if kind == 2:  # not contiguous: pickled in band
        return np.arange(2 * n, dtype=np.float64)[::2]
    if kind == 3:
        return np.asfortranarray(np.arange(n * 3, dtype=np.int16).reshape(n, 3))
    if kind == 4:
        return np.arange(n, dtype=">i4")
    if kind == 5:
        return np.array([rng.choice(["a", 1, None]) for _ in range(n)], dtype=object)
    if kind == 6:
        return np.zeros(n, dtype=[("a", "<i8"), ("b", "S3")])
    if kind == 7:
        return np.array([rng.random() < 0.5 for _ in range(n)])
    return np.arange(n * 4, dtype=np.float32).reshape(n, 2, 2)[:, :, :]


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.randrange(6 if depth < 3 else 3)
    if roll == 0:
        return _array(rng)
    if roll == 1:
        return rng.choice([None, 0, -7, 2.5, "", "text\n", b"", b"\x00bytes"])
    if roll == 2:
        return "x" * rng.randrange(100)
    if roll == 3:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if roll == 4:
        return {f"k{k}": _value(rng, depth + 1) for k in range(rng.randrange(4))}
    shared = _array(rng)
    return (shared, shared, _value(rng, depth + 1))  # one object twice: once in the pickle


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray):
        return (
            isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and a.tobytes() == b.tobytes()
        )
    if isinstance(a, (list, tuple)):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(_same(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _arrays(value: Any) -> list[np.ndarray]:
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, (list, tuple)):
        return [a for v in value for a in _arrays(v)]
    if isinstance(value, dict):
        return [a for v in value.values() for a in _arrays(v)]
    return []


def test_a_spooled_result_unpickles_as_a_plain_pickle_does(tmp_path: Path) -> None:
    rng = random.Random(31)
    for n in range(300):
        value = _value(rng)
        path = str(tmp_path / f"{n}.pickle")
        sent = (path, *run_module._spooled(value, path))
        assert all(at % run_module.ALIGN == 0 for at, _ in sent[2])
        received = run_module._received(sent)
        assert not os.path.exists(path)  # removed once mapped
        assert _same(received, pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL)))
        for array in _arrays(received):  # views of private pages: writable, aligned
            if array.size and array.dtype != object:
                assert array.flags.writeable and array.flags.aligned
                array.reshape(-1)[0:1] = array.reshape(-1)[-1:]


def test_a_result_sent_in_the_pipe_is_a_plain_pickle() -> None:
    value = {"a": np.arange(5), "b": "c"}
    assert _same(run_module._received(pickle.dumps(value, 5)), value)


def _arrays_of(n: int) -> dict[str, Any]:
    return {"n": n, "rows": np.arange(n * 1000, dtype=np.float64).reshape(-1, 5), "s": str(n)}


def test_workers_send_their_arrays_back_whole() -> None:
    found = scale.Run(jobs=2).map(_arrays_of, range(6))
    assert all(_same(f, _arrays_of(n)) for n, f in enumerate(found))
