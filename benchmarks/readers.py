"""Every reader against the floor: reading the same files and splitting their lines and fields.

Issue 14's goal: every reader parses at no worse than 2x the *floor*, a minimal loop over the same
files that reads the bytes, decodes UTF-8, splits the text at ``\\n`` and splits every line into
its fields (tab for brat and CodiEsp TSV, any whitespace for trec, CoNLL and MUC templates; the
``<`` of tags for SGML and XML; ``json.loads`` for JSON, which has no lines).  Listing a folder is
part of both sides for brat.  The readers are called through the public functions the commands
use on these files (NLP Sandbox and ARE: their column readers; the checked readers they fall
back to for errors and unusual files are not timed here):

=================  =================================================  =========================
reader             function                                           data (``--scale 1``)
=================  =================================================  =========================
brat               ``formats.brat.read_brat_corpus(folder)`` (checked)  2,000 docs x 50 spans
CodiEsp TSV        ``formats.codiesp.read_code_file`` gold + preds    10,000 docs x 100 codes
trec               ``formats.trec.read_qrels`` + ``read_run``         2,000 topics x 100 docs
CoNLL              ``formats.conll.read_conll`` key + response        348 docs, 170,000 tokens
MUC templates      ``formats.muc_template.read_templates`` key + rsp  2,000 docs x 20 objects
MUC SGML           ``formats.muc_sgml.read_sgml`` key + response      500 docs x 2,000 words
NLP Sandbox JSON   ``formats.nlpsandbox.read_sandbox`` gold + preds   2,000 notes
ARE XML            ``formats.are.read_are`` (its scan), every file    1,000 docs x 1,000 tokens
=================  =================================================  =========================

The data come from the generators of the other benchmarks in this folder where there is one
(``ranking``, ``coref``, ``muc``, ``nlpsandbox``, ``are``); brat and trec files are generated
here.  In memory, in one process: each round runs the floor and the reader once each, alternating,
after a garbage collection; the best of ``--rounds`` is kept for each (the least disturbed by
other jobs) and their ratio printed, with the cyclic garbage collector running (Python's default);
for the readers whose commands pause it (``spans``, ``muc``, ``are``: :data:`COLLECTOR_PAUSED`),
a second ratio with it paused for both.  A reader whose module or generator is missing or broken is
reported as not measured, with the reason.

Run: ``python benchmarks/readers.py [--scale 1] [--rounds 5] [--only conll,trec]``;
``--scale 10`` (or ``--docs 10``) multiplies the documents by 10 (time per document should stay
flat).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling benchmarks' generators

Reader = Callable[[], Any]


def floor(paths: list[Path], fields: str | None) -> int:
    """Read, decode, split lines and split fields: the least any reader must do."""
    count = 0
    for path in paths:
        text = path.read_bytes().decode("utf-8")
        if fields == "json":
            count += len(json.loads(text))
            continue
        for line in text.split("\n"):
            count += len(line.split(fields))
    return count


# --- data -----------------------------------------------------------------------------------


def brat_data(folder: Path, scale: int) -> tuple[list[Path], Reader, str | None]:
    from annoscore.formats.brat import read_brat_corpus

    rnd = random.Random(14)
    corpus = folder / "brat"
    corpus.mkdir()
    words = ["alpha", "beta", "gamma", "delta", "omega", "kappa"]
    for d in range(2000 * scale):
        text_parts: list[str] = []
        lines: list[str] = []
        position = 0
        for t in range(50):
            gap = " ".join(rnd.choice(words) for _ in range(rnd.randint(1, 3))) + " "
            text_parts.append(gap)
            position += len(gap)
            mention = rnd.choice(words) + " " + rnd.choice(words)
            lines.append(
                f"T{t + 1}\t{rnd.choice(('DRUG', 'GENE', 'CELL'))} {position} "
                f"{position + len(mention)}\t{mention}"
            )
            text_parts.append(mention + " ")
            position += len(mention) + 1
        (corpus / f"doc{d:05d}.txt").write_text("".join(text_parts), encoding="utf-8")
        (corpus / f"doc{d:05d}.ann").write_text("\n".join(lines) + "\n", encoding="utf-8")
    paths = sorted(corpus.iterdir())

    def read() -> Any:
        return read_brat_corpus(corpus)

    return paths, read, "\t"


def tsv_data(folder: Path, scale: int) -> tuple[list[Path], Reader, str | None]:
    import ranking
    from annoscore.formats.codiesp import read_code_file

    ranking.generate(folder, 10_000 * scale)
    gold, pred = folder / "gold.tsv", folder / "pred.tsv"

    def read() -> Any:
        return read_code_file(gold, "gold"), read_code_file(pred, "predictions")

    return [gold, pred], read, "\t"


def trec_data(folder: Path, scale: int) -> tuple[list[Path], Reader, str | None]:
    from annoscore.formats.trec import read_qrels, read_run

    rnd = random.Random(15)
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    with qrels.open("w") as q, run.open("w") as r:
        for topic in range(2000 * scale):
            docs = [f"doc{rnd.randrange(10**6):07d}" for _ in range(100)]
            q.write("".join(f"{topic} 0 {doc} {rnd.randint(0, 2)}\n" for doc in docs[:30]))
            r.write(
                "".join(
                    f"{topic} Q0 {doc} {rank + 1} {100 - rank * 0.5:.4f} bench\n"
                    for rank, doc in enumerate(docs)
                )
            )

    def read() -> Any:
        return read_qrels(qrels), read_run(run)

    return [qrels, run], read, None


def conll_data(folder: Path, scale: int) -> tuple[list[Path], Reader, str | None]:
    import coref
    from annoscore.formats.conll import read_conll

    key, response, _, _ = coref.generate(folder, 348 * scale)

    def read() -> Any:
        return read_conll(key), read_conll(response)

    return [key, response], read, None


def muc_template_data(folder: Path, scale: int) -> tuple[list[Path], Reader, str | None]:
    import muc
    from annoscore.formats.muc_template import read_templates

    key_text, response_text = muc.generate(2000 * scale, 20)
    key, response = folder / "key.tpl", folder / "response.tpl"
    key.write_text(key_text, encoding="utf-8")
    response.write_text(response_text, encoding="utf-8")

    def read() -> Any:
        return (
            read_templates(key, keys_syntax=True),
            read_templates(response, keys_syntax=False),
        )

    return [key, response], read, None


def muc_sgml_data(folder: Path, scale: int) -> tuple[list[Path], Reader, str | None]:
    import muc
    from annoscore.formats.muc_sgml import SgmlMarkup, read_sgml

    key_text, response_text = muc.generate_ne(500 * scale, 2000, 60)
    key, response = folder / "key.sgml", folder / "response.sgml"
    key.write_text(key_text, encoding="utf-8")
    response.write_text(response_text, encoding="utf-8")
    gids = ("ENAMEX", "TIMEX", "NUMEX")

    def read() -> Any:
        return (
            read_sgml(key, gids, SgmlMarkup(sections=("HL", "TXT"))),
            read_sgml(response, gids, SgmlMarkup(sections=("HL", "TXT"))),
        )

    return [key, response], read, "<"


def sandbox_data(folder: Path, scale: int) -> tuple[list[Path], Reader, str | None]:
    import nlpsandbox
    from annoscore.formats.nlpsandbox import CATEGORIES, Numbering, read_sandbox, type_numbering

    gold, pred = nlpsandbox.write(folder, *nlpsandbox.generate(2000 * scale))

    def read() -> Any:  # the reader ``annoscore nlpsandbox`` uses
        texts, kinds = Numbering(), {name: type_numbering() for name in CATEGORIES}
        return (
            read_sandbox(gold, texts=texts, kinds=kinds),
            read_sandbox(pred, texts=texts, kinds=kinds),
        )

    return [gold, pred], read, "json"


def are_data(folder: Path, scale: int) -> tuple[list[Path], Reader, str | None]:
    import are
    from annoscore.formats.are import read_are

    paths = sorted(set(are.generate(folder, 1000 * scale).values()))

    def read() -> Any:  # the reader ``annoscore are`` uses (its columnar scan, on this layout)
        read = [read_are(path) for path in paths]
        assert all(f.source.lines is None for f in read)  # the scan read every one
        return read

    return paths, read, "<"


READERS: dict[str, Callable[[Path, int], tuple[list[Path], Reader, str | None]]] = {
    "brat": brat_data,
    "tsv": tsv_data,
    "trec": trec_data,
    "conll": conll_data,
    "muc-templates": muc_template_data,
    "muc-sgml": muc_sgml_data,
    "nlpsandbox-json": sandbox_data,
    "are-xml": are_data,
}


COLLECTOR_PAUSED = frozenset({"brat", "muc-templates", "muc-sgml", "are-xml"})
"""The readers whose commands (``spans``, ``muc``, ``are``) run with the cyclic garbage collector
paused (``cli.common.cyclic_gc_paused``)."""


def best_of(
    rounds: int, floor_call: Reader, reader_call: Reader, paused: bool = False
) -> tuple[float, float]:
    """Best seconds of the floor and of the reader, alternating, with the cyclic garbage
    collector running (Python's default) or ``paused`` for both."""
    floor_call()  # warm-up: imports, caches
    reader_call()
    floor_best = reader_best = float("inf")
    for _ in range(rounds):
        for which in ("floor", "reader"):
            gc.collect()
            if paused:
                gc.disable()
            started = time.perf_counter()
            (floor_call if which == "floor" else reader_call)()
            elapsed = time.perf_counter() - started
            gc.enable()
            if which == "floor":
                floor_best = min(floor_best, elapsed)
            else:
                reader_best = min(reader_best, elapsed)
    return floor_best, reader_best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", "--docs", type=int, default=1, help="x the documents")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated readers: " + ",".join(READERS))
    args = parser.parse_args()
    chosen = [n for n in args.only.split(",") if n] or list(READERS)
    unknown = [n for n in chosen if n not in READERS]
    if unknown:
        parser.error(f"unknown reader {', '.join(unknown)}: choose from {','.join(READERS)}")
    print(
        f"{'reader':16} {'MB':>6} {'floor s':>8} {'reader s':>9} {'ratio':>6}"
        f"   (best of {args.rounds}; last column: both with the collector paused, as the "
        "spans, muc and are commands run)"
    )
    worst = 0.0
    for name in chosen:
        with tempfile.TemporaryDirectory() as scratch:
            folder = Path(scratch)
            try:
                paths, read, fields = READERS[name](folder, args.scale)
            except Exception as error:  # a reader being written by someone else, say
                print(f"{name:16} not measured: {type(error).__name__}: {error}")
                continue
            size = sum(p.stat().st_size for p in paths) / 1e6
            if name == "brat":
                corpus = paths[0].parent

                def floor_call(corpus: Path = corpus) -> int:
                    return floor([p for p in sorted(corpus.iterdir()) if p.is_file()], "\t")
            else:

                def floor_call(paths: list[Path] = paths, fields: str | None = fields) -> int:
                    return floor(paths, fields)

            try:
                floor_s, reader_s = best_of(args.rounds, floor_call, read)
                paused = ""
                if name in COLLECTOR_PAUSED:
                    floor_p, reader_p = best_of(args.rounds, floor_call, read, paused=True)
                    paused = f"   paused: {reader_p / floor_p:5.2f}x"
            except Exception as error:
                print(f"{name:16} not measured: reader failed: {type(error).__name__}: {error}")
                continue
            ratio = reader_s / floor_s
            worst = max(worst, ratio)
            print(f"{name:16} {size:6.1f} {floor_s:8.3f} {reader_s:9.3f} {ratio:5.2f}x{paused}")
    print(f"worst ratio: {worst:.2f}x (goal: <= 2x)")


if __name__ == "__main__":
    main()
