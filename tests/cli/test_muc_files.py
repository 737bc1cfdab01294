"""``annoscore muc`` writes its report files in a background thread: the files are the report
functions' text, and a failed write leaves neither a partial file nor a temporary one."""

from __future__ import annotations

import shutil
from pathlib import Path

from annoscore.report.muc import report_summary
from annoscore.report.muc_history import map_history_tcl
from annoscore.samples import sample_path
from tests.conftest import Cli
from tests.muc_scoring import score_configured


def _named_entity(tmp_path: Path) -> Path:
    for name in ("ne.config", "ne.key.sgml", "ne.response.sgml"):
        shutil.copy(sample_path("muc", name), tmp_path / name)
    config = tmp_path / "ne.config"
    with config.open("a", encoding="utf-8") as handle:
        handle.write(":report_summary_file ne.summary\n:dump_map_history yes\n")
    return config


def test_the_files_written_are_the_reports(cli: Cli, tmp_path: Path) -> None:
    config = _named_entity(tmp_path)
    result = cli("muc", config, "--totals-only")
    assert result.exit_code == 0, result.output
    scored = score_configured(config)
    assert (tmp_path / "ne.summary").read_text(encoding="utf-8") == report_summary(scored)
    history = (tmp_path / "map_history").read_text(encoding="utf-8")
    assert history == map_history_tcl(scored.details)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_a_failed_write_exits_2_and_leaves_no_temporary_file(cli: Cli, tmp_path: Path) -> None:
    config = _named_entity(tmp_path)
    (tmp_path / "map_history").mkdir()  # the rename into place fails
    result = cli("muc", config, "--totals-only")
    assert result.exit_code == 2 and "cannot write the output" in result.output
    assert (tmp_path / "map_history").is_dir()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    # the summary, written before the history (as the reports were written one by one), whole
    scored = score_configured(config)
    assert (tmp_path / "ne.summary").read_text(encoding="utf-8") == report_summary(scored)
