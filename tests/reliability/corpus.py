"""A generated corpus of bad and odd inputs for every registered task.

Every case is a registered task's sample with one file mutated in one way (on the gold or the
system side, at the first, a middle or the last line).  :func:`outcome` runs the task the way the
command line does and names what happened:

- ``"ok"``: scored, nothing to say;
- ``"warn:CODE[,CODE...]"``: scored, with these warning codes (a tolerated or dropped input
  must show up here);
- ``"exit2"``: refused as bad input, with a one-line message naming the file (and line);
- ``"exit1:..."``: an internal error: never acceptable.

The mutations are the categories of the bad-input issue: byte-order marks, NUL bytes, non-UTF-8
bytes, U+2028 / U+0085 / form feeds inside text, CRLF line ends, empty and whitespace-only files,
truncated lines, doubled lines, non-ASCII digits, huge numbers, negative numbers, tabs turned into
spaces, trailing garbage, and deleted files.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from annoscore.errors import InputError
from annoscore.report.generic import render
from annoscore.tasks.registry import TASKS, sample_paths


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _at(where: str, n: int) -> int:
    return {"first": 0, "middle": n // 2, "last": max(n - 2, 0)}[where]


def _edit_line(where: str, change: Callable[[bytes], bytes]) -> Callable[[bytes], bytes]:
    def mutate(data: bytes) -> bytes:
        lines = _lines(data)
        i = _at(where, len(lines))
        lines[i] = change(lines[i])
        return b"\n".join(lines)

    return mutate


def _digits_to(replacement: Callable[[bytes], bytes]) -> Callable[[bytes], bytes]:
    def change(line: bytes) -> bytes:
        out = bytearray()
        done = False
        i = 0
        while i < len(line):
            if not done and 48 <= line[i] <= 57:
                j = i
                while j < len(line) and 48 <= line[j] <= 57:
                    j += 1
                out += replacement(line[i:j])
                i = j
                done = True
            else:
                out.append(line[i])
                i += 1
        return bytes(out)

    return change


ARABIC = "٠١٢٣٤٥٦٧٨٩".encode()
ARABIC_DIGITS = [ARABIC[i * 2 : i * 2 + 2] for i in range(10)]

WHOLE_FILE: dict[str, Callable[[bytes], bytes]] = {
    "bom": lambda d: b"\xef\xbb\xbf" + d,
    "crlf": lambda d: d.replace(b"\n", b"\r\n"),
    "empty": lambda d: b"",
    "whitespace-only": lambda d: b"  \n\t\n \n",
    "no-final-newline": lambda d: d.rstrip(b"\n"),
    "trailing-garbage": lambda d: d + b"\x01\x02 garbage line without structure\n",
    "tabs-to-spaces": lambda d: d.replace(b"\t", b" "),
    "deleted": lambda d: d,  # the file is removed instead (see Case.apply)
}
PER_LINE: dict[str, Callable[[bytes], bytes]] = {
    "nul": lambda line: line + b"\x00",
    "non-utf8": lambda line: line + b"\xff\xfe",
    "u2028": lambda line: line + "\u2028".encode(),
    "u0085": lambda line: line + "\u0085".encode(),
    "form-feed": lambda line: line + b"\x0c",
    "truncated": lambda line: line[: max(len(line) // 2, 1)],
    "doubled": lambda line: line + b"\n" + line,
    "arabic-digits": _digits_to(lambda run: b"".join(ARABIC_DIGITS[c - 48] for c in run)),
    "huge-number": _digits_to(lambda run: b"9" * 40),
    "negative-number": _digits_to(lambda run: b"-" + run),
    "underscore-number": _digits_to(lambda run: run[:1] + b"_" + run if len(run) else run),
    "leading-space": lambda line: b"   " + line,
}
WHERE = ("first", "middle", "last")


@dataclass(frozen=True)
class Case:
    """One task, one side, one mutation (and where it applies)."""

    task: str
    side: str  # "gold" or "system"
    mutation: str
    where: str = ""

    @property
    def name(self) -> str:
        return "/".join(p for p in (self.task, self.side, self.mutation, self.where) if p)

    def apply(self, root: Path) -> tuple[Path, Path, dict[str, object], Path]:
        """Copy the task's sample under ``root``, mutate one file; return the inputs and it."""
        task = TASKS[self.task]
        gold, system, options = sample_paths(task)
        copies = []
        for label, path in (("gold", gold), ("system", system)):
            target = root / label / path.name
            if path.is_dir():
                shutil.copytree(path, target)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(path, target)
            copies.append(target)
        gold_copy, system_copy = copies
        chosen = gold_copy if self.side == "gold" else system_copy
        if chosen.is_dir():
            files = sorted(p for p in chosen.iterdir() if p.suffix in (".ann", ".tsv"))
            chosen = files[0]
        if self.mutation == "deleted":
            chosen.unlink()
        elif self.mutation in WHOLE_FILE:
            chosen.write_bytes(WHOLE_FILE[self.mutation](chosen.read_bytes()))
        else:
            change = _edit_line(self.where, PER_LINE[self.mutation])
            chosen.write_bytes(change(chosen.read_bytes()))
        return gold_copy, system_copy, options, chosen


def cases() -> Iterator[Case]:
    """Every case of the corpus (tasks sharing a sample format are all kept: each preset has its
    own reading rules)."""
    for task in TASKS:
        for side in ("gold", "system"):
            for mutation in WHOLE_FILE:
                yield Case(task, side, mutation)
            for mutation in PER_LINE:
                for where in WHERE:
                    yield Case(task, side, mutation, where)


def outcome(case: Case, root: Path) -> str:
    """Run ``case`` as the command line would; name the outcome (see the module doc)."""
    gold, system, options, _ = case.apply(root)
    try:
        result = TASKS[case.task].run(gold, system, **options)
        render(result, "json")
        renderer = TASKS[case.task].text_renderer()
        if renderer is not None:
            renderer(result)
    except InputError as error:
        text = str(error)
        if "\n" in text.strip():
            return f"exit1:multi-line message: {text[:200]!r}"
        return "exit2"
    except OSError as error:
        return "exit2" if error.filename is not None else f"exit1:{error!r}"
    except OverflowError:
        return "exit2"
    except Exception as error:  # anything else is an internal error: the corpus reports it
        return f"exit1:{type(error).__name__}: {str(error)[:200]}"
    codes = sorted({w.code for w in result.warnings})
    return "warn:" + ",".join(codes) if codes else "ok"


EXPECTED = Path(__file__).with_name("expected_outcomes.tsv")
"""The reviewed outcome of every case: ``case<TAB>outcome`` (regenerate with ``python -m
tests.reliability.corpus --write`` and review the diff: an ``exit1`` is never acceptable, and a
changed outcome must be a decision, not an accident)."""


def read_expected() -> dict[str, str]:
    rows = EXPECTED.read_text(encoding="utf-8").split("\n")
    return dict(row.split("\t", 1) for row in rows if row)


def main() -> None:
    import sys
    import tempfile

    found = {}
    for case in cases():
        with tempfile.TemporaryDirectory() as folder:
            found[case.name] = outcome(case, Path(folder))
    if "--write" in sys.argv:
        EXPECTED.write_text("".join(f"{k}\t{v}\n" for k, v in found.items()), encoding="utf-8")
    for name, result in found.items():
        if result.startswith("exit1"):
            print(name, result)
    print(f"{len(found)} cases")


if __name__ == "__main__":
    main()
