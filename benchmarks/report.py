"""The HTML report at scale (issue 27): ``annoscore spans GOLD SYSTEM -f html -o report.html``
against the same run with ``-f json``, and the page opened in headless Chromium.

Data: ``benchmarks/spans.py``'s generator written as brat files (gold ``.ann`` with its
``.txt``, system ``.ann``), 10,000 documents x 50 gold spans by default.  Timed as whole
processes, alternating, after a warm-up of each: wall and CPU seconds (medians of the rounds),
peak memory, the report's size against the ``--max-html-mb`` budget (20 MB by default), and the
time Chromium (Debian's, through Playwright's ``executable_path``) takes from navigation to the
page's script having drawn the first screen (``html[data-ready]``, the viewer's first document
and the per-document table included), measured as the median of ``--rounds`` fresh pages.

Goals: the report written in under 2x the JSON run's time, under the size budget, open in under
3 s.

Run: ``python benchmarks/report.py [--docs 10000] [--spans 50] [--rounds 3] [--seed 13]``
(``--chromium PATH`` for another browser).

Latest figures (10,000 documents x 50 spans, 3 rounds, medians; 2 CPUs shared with other
sessions' test runs, load 6-8): JSON 3.88 s wall / 1.22 s CPU, the report 6.98 s / 2.14 s (1.80x
wall, 1.75x CPU) with the seven kinds of buckets (0.3 s CPU of it: the texts read once as code
points for tokens, equal texts and the frequent errors); 14.4 MB (budget 20 MB: the texts are
cut to windows around the errors, which here cover most of each text); opened in Chromium with
the first screen drawn in 1.37-3.15 s (median 2.26 s of 3 pages, under that load).  Before the
new buckets, the same day: 1.41x wall, 1.69x CPU, opened in 1.39 s; before the array analysis
(the per-span analysis in Python, the inputs read twice): 5.15x wall, 5.98x CPU.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from spans import installed_environment, run, write_brat


def command(gold: Path, system: Path, fmt: str, out: Path) -> list[str]:
    head = [sys.executable, "-m", "annoscore", "spans", str(gold), str(system)]
    per_doc = ["--per-doc"] if fmt == "json" else []  # the object the report embeds
    return [*head, "--per-type", *per_doc, "-f", fmt, "-o", str(out)]


def open_times(path: Path, chromium: str, rounds: int) -> list[float]:
    """Seconds from navigation to the first screen drawn, one fresh page per round."""
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            for _ in range(rounds):
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                errors: list[str] = []
                page.on("pageerror", lambda e, seen=errors: seen.append(str(e)))
                start = time.perf_counter()
                page.goto(path.as_uri())
                page.wait_for_selector("html[data-ready='1']", timeout=60_000)
                page.evaluate("() => new Promise(r => requestAnimationFrame(() => r(0)))")
                times.append(time.perf_counter() - start)
                if errors:
                    raise SystemExit(f"page errors: {errors}")
                page.close()
        finally:
            browser.close()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--spans", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    environment = installed_environment()
    with tempfile.TemporaryDirectory(prefix="annoscore-report-") as folder:
        root = Path(folder)
        gold, system = write_brat(root, args.docs, args.spans, args.seed)
        outputs = {"json": root / "out.json", "html": root / "report.html"}
        for fmt, out in outputs.items():  # warm-up
            run(command(gold, system, fmt, out), environment)
        measured: dict[str, list[tuple[float, float, float]]] = {"json": [], "html": []}
        for _ in range(args.rounds):
            for fmt, out in outputs.items():
                measured[fmt].append(run(command(gold, system, fmt, out), environment))
        figures = {}
        for fmt, rows in measured.items():
            wall = statistics.median(r[0] for r in rows)
            cpu = statistics.median(r[1] for r in rows)
            peak = max(r[2] for r in rows)
            figures[fmt] = (wall, cpu)
            print(f"{fmt:5} wall {wall:6.2f} s  cpu {cpu:6.2f} s  peak {peak:6.0f} MB")
        ratio_wall = figures["html"][0] / figures["json"][0]
        ratio_cpu = figures["html"][1] / figures["json"][1]
        print(f"html / json: wall {ratio_wall:.2f}x, cpu {ratio_cpu:.2f}x (goal < 2x)")
        size = outputs["html"].stat().st_size / 1_000_000
        plain = outputs["json"].stat().st_size / 1_000_000
        print(f"report size {size:.1f} MB (budget 20 MB); the JSON alone {plain:.1f} MB")
        opened = open_times(outputs["html"], args.chromium, args.rounds)
        print(
            f"opened in Chromium: median {statistics.median(opened):.2f} s "
            f"({', '.join(f'{t:.2f}' for t in opened)}; goal < 3 s)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
