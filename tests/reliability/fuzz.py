"""A seeded fuzzer of the whole command line: every command, its inputs mutated, run as real
processes with a time and a memory limit (:mod:`tests.reliability.runner`).

Each case is one command of :data:`FUZZED` (the cli.md table, ``compare``, ``convert``,
``demo``), one of its inputs changed by one :data:`MUTATIONS` entry (byte flips, truncation,
doubled lines, 5,000-digit numbers, deep nesting, Unicode separators, invalid UTF-8, empty files,
folders for files, pipes and FIFOs, missing files, names with line breaks or bytes that are not
UTF-8, long tokens, random bytes) and a few random flags.  :func:`check` names what is wrong
with an outcome: an exit status other than 0 or 2 (1 is an internal error), a traceback, a
message of more than one line, a run over :data:`SECONDS` or :data:`MEMORY_KB`.

Case ``index`` runs the command and mutation :func:`pair` gives (so every pair is tried in
turn) with positions and flags drawn from ``random.Random(f"{seed}:{index}")``: a failure is
reproduced with ``ANNOSCORE_FUZZ_SEED=S ANNOSCORE_FUZZ_ONLY=I`` (see test_fuzz.py).
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.reliability.commands import CODIESP_D, COMMANDS, NER, Command
from tests.reliability.runner import Outcome

SECONDS = 20.0
MEMORY_KB = 1 << 20  # 1 GiB

FUZZED: list[Command] = [
    *COMMANDS,
    Command(
        "compare-trec",
        ("compare", "trec", "{0}", "{1}", "{2}", "--samples", "30"),
        ("trec/qrels.txt", "trec/run.txt", "trec/run.txt"),
        (),
    ),
    Command(
        "compare-pharmaconer",
        ("compare", "pharmaconer-ner", "{0}", "{1}", "{2}", "--samples", "30"),
        (NER[0], NER[1], NER[0]),
        (),
    ),
    Command(
        "compare-codiesp",
        ("compare", "codiesp-d", "{0}", "{1}", "{2}", "--option", "codes={3}"),
        (CODIESP_D[0], CODIESP_D[1], CODIESP_D[1], CODIESP_D[2]),
        (),
    ),
    Command("convert-ne", ("convert", "muc-sgml", "{0}", "--force"), ("muc/ne.key.sgml",), ()),
    Command(
        "convert-co",
        ("convert", "muc-sgml", "{0}", "--task", "co", "--force"),
        ("muc/co.key.sgml",),
        (),
    ),
]
"""Every command the fuzzer runs (``convert`` gets ``--out`` in the case's folder)."""

SCORING = {c.name for c in COMMANDS}
STRICT_INPUT = ("spans", "trec", "coref", "are")
"""Commands that take ``--strict-input`` (their first word)."""

# --- mutations of a file's bytes ----------------------------------------------------------------

Mutation = Callable[[bytes, random.Random], bytes]


def _at(data: bytes, rng: random.Random) -> int:
    return rng.randrange(len(data) + 1)


def flip(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data or b"x")
    for _ in range(rng.randint(1, 6)):
        at = rng.randrange(len(out))
        out[at] ^= rng.choice((1, 2, 4, 8, 16, 32, 64, 128, 255, rng.randrange(1, 256)))
    return bytes(out)


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: _at(data, rng)]


def double_line(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    if rng.random() < 0.3:
        return b"\n".join(line + b"\n" + line for line in lines)
    at = rng.randrange(len(lines))
    return b"\n".join([*lines[: at + 1], lines[at], *lines[at + 1 :]])


def huge_number(data: bytes, rng: random.Random) -> bytes:
    runs = [i for i in range(len(data)) if data[i : i + 1].isdigit()]
    digits = b"9" * 5000 if rng.random() < 0.5 else b"1" + b"0" * 4999
    if not runs:
        at = _at(data, rng)
        return data[:at] + digits + data[at:]
    start = end = rng.choice(runs)
    while end < len(data) and data[end : end + 1].isdigit():
        end += 1
    return data[:start] + digits + data[end:]


def deep_nesting(data: bytes, rng: random.Random) -> bytes:
    depth = rng.choice((1000, 20_000, 100_000))
    head = data.lstrip()[:1]
    if head in (b"{", b"["):  # JSON: an array nested inside the first object or array
        deep = b"[" * depth + b"]" * depth
        at = data.index(head) + 1
        inner = b'"deep": ' + deep + b", " if head == b"{" else deep + b", "
        return data[:at] + inner + data[at:]
    if head == b"<":  # XML, SGML: elements nested inside the first element
        at = data.find(b">") + 1
        return data[:at] + b"<x>" * depth + b"</x>" * depth + data[at:]
    at = _at(data, rng)
    return data[:at] + b"(" * depth + b")" * depth + data[at:]


SEPARATORS = [
    "\u2028",
    "\u2029",
    "\u0085",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1d",
    "\x1e",
    "\u00a0",
    "\u3000",
    "\ufeff",
    "\r",
]


def separators(data: bytes, rng: random.Random) -> bytes:
    chosen = rng.choice(SEPARATORS).encode()
    if rng.random() < 0.4:  # every tab or every line end
        old = rng.choice((b"\t", b"\n", b" "))
        return data.replace(old, chosen)
    for _ in range(rng.randint(1, 4)):
        at = _at(data, rng)
        data = data[:at] + chosen + data[at:]
    return data


INVALID_UTF8 = [b"\xff", b"\xc3", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80"]


def invalid_utf8(data: bytes, rng: random.Random) -> bytes:
    at = _at(data, rng)
    return data[:at] + rng.choice(INVALID_UTF8) + data[at:]


def empty(data: bytes, rng: random.Random) -> bytes:
    return b"" if rng.random() < 0.8 else b"\n\n  \n"


def long_token(data: bytes, rng: random.Random) -> bytes:
    """A token of a megabyte in the middle of a line (time and memory must stay linear)."""
    lines = data.split(b"\n")
    at = rng.randrange(len(lines))
    words = lines[at].split(b"\t") if b"\t" in lines[at] else lines[at].split(b" ")
    word = rng.randrange(len(words))
    words[word] = words[word] + b"x" * rng.choice((40_000, 1_000_000))
    lines[at] = (b"\t" if b"\t" in lines[at] else b" ").join(words)
    return b"\n".join(lines)


def random_bytes(data: bytes, rng: random.Random) -> bytes:
    return bytes(rng.randrange(256) for _ in range(rng.randrange(2000)))


def crlf_bom_nul(data: bytes, rng: random.Random) -> bytes:
    kind = rng.randrange(3)
    if kind == 0:
        return data.replace(b"\n", b"\r\n")
    if kind == 1:
        return b"\xef\xbb\xbf" + data
    at = _at(data, rng)
    return data[:at] + b"\x00" + data[at:]


CONTENT: dict[str, Mutation] = {
    "flip": flip,
    "truncate": truncate,
    "double-line": double_line,
    "huge-number": huge_number,
    "deep-nesting": deep_nesting,
    "separators": separators,
    "invalid-utf8": invalid_utf8,
    "empty": empty,
    "long-token": long_token,
    "random-bytes": random_bytes,
    "crlf-bom-nul": crlf_bom_nul,
}
"""Mutations of one file's bytes (in a folder input: of one of its files)."""

PLACES = ("folder", "pipe", "fifo", "missing", "line-break-name", "non-utf8-name")
"""Mutations of where an input is: a folder for a file, a pipe (``/dev/fd/N``, its content
mutated or not), a FIFO (written once; in a folder input: a FIFO entry nobody writes), a missing
path, a name with a newline or CR, a name with a byte that is not UTF-8."""

FIFO_SECONDS = 8.0
"""The time limit of a run that reads a FIFO: one that opens it twice waits for ever."""

MUTATIONS = (*CONTENT, *PLACES)


@dataclass
class Case:
    """One run: the arguments, the pipes it reads, and how it was made (for the report)."""

    index: int
    command: Command
    mutation: str
    input: int
    flags: list[str]
    argv: list[str] = field(default_factory=list)
    feeds: dict[int, bytes] = field(default_factory=dict)
    fifos: dict[Path, bytes] = field(default_factory=dict)

    @property
    def timeout(self) -> float:
        return FIFO_SECONDS if self.fifos else SECONDS

    @property
    def name(self) -> str:
        flags = " ".join(self.flags)
        where = self.command.inputs[self.input] if self.command.inputs else "-"
        return f"#{self.index} {self.command.name} {self.mutation} on {where} {flags}".rstrip()


def _flags(command: Command, rng: random.Random, folder: Path) -> list[str]:
    if command.name not in SCORING:
        return []
    flags: list[str] = []
    if rng.random() < 0.5:
        flags += ["-f", rng.choice(("json", "csv", "markdown", "text"))]
    if rng.random() < 0.3:
        flags.append("--per-doc")
    if rng.random() < 0.15:
        flags += ["--bootstrap", str(rng.choice((1, 20, 200))), "--seed", str(rng.randrange(2**40))]
    if rng.random() < 0.2 and command.words[0] in STRICT_INPUT:
        flags.append("--strict-input")
    if rng.random() < 0.2:
        flags += ["-o", str(folder / "out.txt")]
    return flags


def _victim(path: Path, rng: random.Random) -> Path:
    """The file to change: ``path``, or one file of the folder ``path``."""
    if not path.is_dir():
        return path
    files = sorted(p for p in path.iterdir() if p.is_file())
    preferred = [p for p in files if p.suffix in (".ann", ".tsv")] or files
    return rng.choice(preferred)


def pair(index: int) -> tuple[Command, str]:
    """The command and mutation of case ``index``: every command in turn, each block of
    ``len(FUZZED)`` cases shifting the mutations by one, so the first
    ``len(FUZZED) * len(MUTATIONS)`` cases try every command with every mutation once."""
    block, position = divmod(index, len(FUZZED))
    return FUZZED[position], MUTATIONS[(position + block) % len(MUTATIONS)]


def make(index: int, seed: int, samples: Path, folder: Path) -> Case:
    """Case ``index`` of the run seeded ``seed``: inputs copied from ``samples`` into
    ``folder`` (the family folder of the changed input, so a configuration's relative paths
    still hold), one of them changed."""
    rng = random.Random(f"{seed}:{index}")
    command, mutation = pair(index)
    which = rng.randrange(len(command.inputs))
    case = Case(index, command, mutation, which, _flags(command, rng, folder))
    relative = command.inputs[which]
    family = relative.split("/")[0]
    shutil.copytree(samples / family, folder / family)
    paths = [samples / p for p in command.inputs]
    target = folder / relative
    paths[which] = target
    if mutation in CONTENT:
        victim = _victim(target, rng)
        victim.write_bytes(CONTENT[mutation](victim.read_bytes(), rng))
    elif mutation == "folder":
        if target.is_dir():
            shutil.rmtree(target)
        else:
            target.unlink()
        target.mkdir()
        source = samples / relative
        if rng.random() < 0.5 and source.is_file():  # a folder holding the file
            shutil.copy(source, target)
    elif mutation in ("pipe", "fifo"):
        if target.is_dir():  # a folder cannot be a pipe: one of its files a FIFO instead
            _fifo_in(target, rng)
        else:
            data = target.read_bytes()
            if rng.random() < 0.5:
                data = CONTENT[rng.choice(list(CONTENT))](data, rng)
            if mutation == "pipe":
                number = 20 + which
                case.feeds[number] = data
                paths[which] = Path(f"/dev/fd/{number}")
            else:
                target.unlink()
                os.mkfifo(target)
                case.fifos[target] = data
    elif mutation == "missing":
        if target.is_dir():
            shutil.rmtree(target)
        else:
            target.unlink()
    else:  # a name with a line break, or with a byte that is not UTF-8
        odd = os.fsdecode(b"\xff\xfe")
        if mutation == "line-break-name":
            odd = rng.choice(("\n", "\r", "\r\n", "\x1b[2J"))
        victim = _victim(target, rng)
        renamed = victim.with_name(victim.stem + odd + victim.suffix)
        victim.rename(renamed)
        if victim == target:
            paths[which] = renamed
    argv = [w.format(*map(str, paths)) for w in command.words]
    if command.words[0] == "convert":
        argv += ["--out", str(folder / "brat")]
    case.argv = argv + case.flags
    return case


def _fifo_in(folder: Path, rng: random.Random) -> None:
    """Replace one file of ``folder`` by a FIFO of the same name that nobody writes: a reader
    that opens it would wait for ever (the folder readers pass such entries over)."""
    victim = _victim(folder, rng)
    victim.unlink()
    os.mkfifo(victim)


def check(case: Case, outcome: Outcome) -> str | None:
    """What is wrong with ``outcome`` (``None``: nothing)."""
    if outcome.timed_out or outcome.seconds > case.timeout:
        if case.fifos:
            return f"over {case.timeout:.0f} s reading a FIFO written once (read twice?)"
        return f"over {case.timeout:.0f} s"
    if outcome.peak_kb > MEMORY_KB:
        return f"{outcome.peak_kb // 1024} MB of memory"
    text = outcome.stderr.decode("utf-8", "replace")
    if "Traceback" in text:
        return "a traceback: " + text[-300:]
    if outcome.status not in (0, 2):
        return f"exit {outcome.status}: {text[-300:]!r}"
    lines = text.splitlines()
    stray = [line for line in lines if not line.startswith("annoscore: ")]
    if stray:
        return f"a message of more than one line: {stray[0][:200]!r}"
    if outcome.status == 2 and not any(line.startswith("annoscore: error: ") for line in lines):
        return "exit 2 without an error message"
    if outcome.status == 2 and outcome.stdout:
        return "exit 2 after writing to standard output"
    return None
