"""``--bootstrap N`` on every scoring command: an interval for every score key, recorded in the
signature, reproducible with the same seed."""

from __future__ import annotations

import pytest

from annoscore.samples import SAMPLES
from tests.conftest import Cli

S = SAMPLES
COMMANDS = {
    "pharmaconer ner": [
        "pharmaconer", "ner", S / "pharmaconer/gold/subtrack1/sample",
        S / "pharmaconer/system/subtrack1/sample",
    ],
    "pharmaconer indexing": [
        "pharmaconer", "indexing", S / "pharmaconer/gold/subtrack2/sample",
        S / "pharmaconer/system/subtrack2/sample",
    ],
    "spans": [
        "spans", S / "pharmaconer/gold/subtrack1/sample", S / "pharmaconer/system/subtrack1/sample",
        "--mode", "semeval",
    ],
    "coref": ["coref", S / "coref/key.conll", S / "coref/response.conll"],
    "muc": [
        "muc", S / "muc/te.config", "--no-files", "--key", S / "muc/key.synthetic.tpl",
        "--response", S / "muc/response.synthetic.tpl",
    ],
    "codiesp D": [
        "codiesp", "D", "--gold", S / "codiesp/gs_D.tsv", "--pred", S / "codiesp/pred_D.tsv",
        "--codes", S / "codiesp/codes-D.tsv",
    ],
    "codiesp X": [
        "codiesp", "X", "--gold", S / "codiesp/gs_X.tsv", "--pred", S / "codiesp/pred_X.tsv",
        "--codes-d", S / "codiesp/codes-D.tsv", "--codes-p", S / "codiesp/codes-P.tsv",
    ],
    "trec": ["trec", S / "trec/qrels.txt", S / "trec/run.txt"],
    "nlpsandbox": [
        "nlpsandbox", "location", "--gold", S / "nlpsandbox/gold.json",
        "--pred", S / "nlpsandbox/pred.json",
    ],
    "are": [
        "are", "3", "--gold", S / "are/task3-gold.xml", "--pred", S / "are/task3-system.xml",
        "--input", S / "are/task3-input.xml",
    ],
    "muc ne": ["muc", S / "muc/ne.config", "--no-files"],
}  # fmt: skip


@pytest.mark.parametrize("name", list(COMMANDS))
def test_bootstrap_gives_an_interval_for_every_score(cli: Cli, name: str) -> None:
    args = [*COMMANDS[name], "--bootstrap", "60", "--seed", "7"]
    data = cli.json(*args)
    assert set(data["intervals"]) == set(data["scores"])
    assert "|bootstrap:60|confidence:0.95|seed:7" in data["signature"]
    for key, bounds in data["intervals"].items():
        if bounds is not None:
            assert bounds[0] <= bounds[1], key
    assert cli.json(*args)["intervals"] == data["intervals"]  # same seed, same intervals
    plain = cli.json(*COMMANDS[name])
    assert "intervals" not in plain and plain["scores"] == data["scores"]


def test_bootstrap_interval_table_follows_the_official_text_layout(cli: Cli) -> None:
    result = cli(*COMMANDS["pharmaconer ner"], "--bootstrap", "40")
    official = cli(*COMMANDS["pharmaconer ner"]).stdout
    assert result.exit_code == 0
    assert result.stdout.startswith(official)  # the official layout is untouched above
    assert "95% bootstrap confidence intervals (40 resamples of the documents" in result.stdout
