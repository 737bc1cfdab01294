"""``annoscore trec`` on the command line: ``--trec-eval 9.0.8`` (trec_eval release 9.0.8's
numbers, as pytrec-eval-terrier gives them) beside the default, trec_eval master's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli

QRELS = "q1 0 a 1\nq1 0 z 0\nq1 0 b 2\nq2 0 c 1\nq2 0 d 0\nq2 0 e 1\nq3 0 f 1\n"
# scores in exponent notation that differ only beyond float32 (q1), are inf in float32 (q2),
# or 0 there (q3)
RUN = (
    "q1 Q0 a 1 1.0000000001E-1 tag\n"
    "q1 Q0 z 2 1e-1 tag\n"
    "q1 Q0 b 3 -1e-46 tag\n"
    "q2 Q0 c 1 2E+39 tag\n"
    "q2 Q0 d 2 1e39 tag\n"
    "q2 Q0 e 3 -3.5e+38 tag\n"
    "q3 Q0 f 1 1e-46 tag\n"
    "q3 Q0 x 2 -1E-46 tag\n"
)


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "qrels").write_text(QRELS, encoding="ascii")
    (tmp_path / "run").write_text(RUN, encoding="ascii")
    return tmp_path / "qrels", tmp_path / "run"


def _parsed(text: str) -> dict[str, dict[str, float]]:
    """The files as pytrec_eval takes them."""
    out: dict[str, dict[str, float]] = {}
    for line in text.splitlines():
        fields = line.split()
        value = float(fields[4]) if len(fields) == 6 else int(fields[3])
        out.setdefault(fields[0], {})[fields[2]] = value
    return out


def test_9_0_8_all_trec_json_equals_pytrec_eval(cli: Cli, files: tuple[Path, Path]) -> None:
    """``-m all_trec -f json --trec-eval 9.0.8``: every mean pytrec_eval gives (but ``runid``
    and ``relstring``), no ``rbp`` or ``unj``; the default gives master's other ranking."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = files
    old = cli.json("trec", qrels, run, "--trec-eval", "9.0.8", "-m", "all_trec")
    master = cli.json("trec", qrels, run, "-m", "all_trec")
    measures = set(pytrec_eval.supported_measures) - {"runid", "relstring"}
    peer = pytrec_eval.RelevanceEvaluator(_parsed(QRELS), measures).evaluate(_parsed(RUN))
    names = {name for values in peer.values() for name in values}
    for name in names:
        mean = pytrec_eval.compute_aggregated_measure(name, [v[name] for v in peer.values()])
        got = old["counts"][name] if name.startswith("num_") else old["scores"][name]
        assert got == pytest.approx(mean, abs=1e-12), name
    assert not {"rbp", "rbp_resid", "unj_5"} & set(old["scores"])
    assert {"rbp", "rbp_resid", "unj_5"} <= set(master["scores"])
    # q1: a (relevant) above z in master, z first in 9.0.8; q2: c, d, e in both (inf, inf, -inf
    # in 9.0.8: c and d tie, d first); q3: f first in master, x in 9.0.8
    assert master["scores"]["recip_rank"] == pytest.approx(1.0)
    assert old["scores"]["recip_rank"] == pytest.approx((1 / 2 + 1 / 2 + 1 / 2) / 3)
    assert "|judged-only:no|trec-eval:9.0.8|" in old["signature"]
    assert "trec-eval" not in master["signature"]


def test_9_0_8_gives_the_same_bytes_with_2_jobs(cli: Cli, files: tuple[Path, Path]) -> None:
    qrels, run = files
    for fmt in ("json", "text"):
        args = ("trec", qrels, run, "--trec-eval", "9.0.8", "-m", "all_trec", "-q", "-f", fmt)
        one, two = cli(*args, "--jobs", "1"), cli(*args, "--jobs", "2")
        assert one.exit_code == two.exit_code == 0, (one.output, two.output)
        assert one.stdout == two.stdout
        assert "rbp" not in one.stdout


@pytest.mark.parametrize("spec", ["rbp", "unj.5", "rbp.0.5"])
def test_a_measure_of_master_only_is_exit_2_with_one_line(
    cli: Cli, files: tuple[Path, Path], spec: str
) -> None:
    qrels, run = files
    outcome = cli("trec", qrels, run, "-m", spec, "--trec-eval", "9.0.8")
    assert outcome.exit_code == 2
    name = spec.partition(".")[0]
    assert outcome.stderr == (
        f"annoscore: error: -m {spec}: {name} is not in trec_eval 9.0.8 (a measure of trec_eval "
        "master: leave out --trec-eval 9.0.8 to compute it)\n"
    )
    assert cli("trec", qrels, run, "-m", spec).exit_code == 0


@pytest.mark.parametrize("version", ["9.0.9", "10.0", "Master9"])
def test_an_unknown_version_is_a_usage_error(
    cli: Cli, files: tuple[Path, Path], version: str
) -> None:
    qrels, run = files
    outcome = cli("trec", qrels, run, "--trec-eval", version)
    assert outcome.exit_code == 2
    assert "--trec-eval" in outcome.stderr and outcome.stdout == ""


def test_the_default_is_master_and_named_so(cli: Cli, files: tuple[Path, Path]) -> None:
    """``--trec-eval master`` is the default: the same bytes as without the flag (signature
    included: the default leaves it out)."""
    qrels, run = files
    plain = cli("trec", qrels, run, "-m", "all_trec", "-f", "json")
    named = cli("trec", qrels, run, "-m", "all_trec", "-f", "json", "--trec-eval", "master")
    assert plain.exit_code == named.exit_code == 0
    assert plain.stdout == named.stdout
    data: dict[str, Any] = json.loads(plain.stdout)
    assert "trec-eval" not in data["signature"]
