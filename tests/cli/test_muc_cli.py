"""``annoscore muc``: exit codes, the cli.md JSON keys, report files and bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

from annoscore.samples import sample_path
from tests.conftest import Cli


def sample_copy(tmp_path: Path) -> Path:
    for name in ("te.config", "key.synthetic.tpl", "response.synthetic.tpl"):
        shutil.copy(sample_path("muc", name), tmp_path / name)
    return tmp_path / "te.config"


def test_json_has_the_cli_contract_keys(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    data = cli.json("muc", sample_copy(tmp_path))
    assert data["task"] == "muc-template-element"
    for key in ("recall", "precision", "f_pr", "f_2pr", "f_p2r"):
        assert key in data["scores"]
    for key in ("pos", "act", "cor", "par", "inc", "mis", "spu", "non"):
        assert isinstance(data["counts"][key], int)
    assert data["counts"]["pos"] == 17 and data["counts"]["cor"] == 12
    assert "slot:person:per_title:non" in data["counts"]
    assert data["signature"].startswith("annoscore:")


def test_text_report_and_files_as_configured(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = sample_copy(tmp_path)
    with config.open("a", encoding="utf-8") as handle:
        handle.write(":report_summary_file summary.txt\n:dump_map_history yes\n")
    result = cli("muc", config, "--totals-only")
    assert result.exit_code == 0, result.output
    assert "ALL SLOTS       17    16|  12   0    1|   4    3    7|  71  75  24  19   8  40" in (
        result.stdout
    )
    assert "F-MEASURES                                        72.73     74.07     71.43" in (
        result.stdout
    )
    assert (
        (tmp_path / "summary.txt")
        .read_text()
        .startswith("COR |                 | <ORGANIZATION-9901010001-1>")
    )
    assert (tmp_path / "map_history").read_text().startswith("{\n{-docnum 9901010001")
    data = cli.json("muc", config, "--no-files", "--per-doc")
    assert "map_history" in data and "9901010001" in data["documents"]


def test_key_response_and_task_override_the_file(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = sample_copy(tmp_path)
    key = tmp_path / "key.synthetic.tpl"
    data = cli.json("muc", config, "--key", key, "--task", "tr")
    assert data["task"] == "muc-template-relation"
    assert data["counts"]["pos"] == 17
    # a response equal to the key without its key-only marks scores 1
    perfect = tmp_path / "perfect.tpl"
    text = key.read_text().replace("OBJ_STATUS: OPTIONAL", "")
    text = (
        text.replace('/ "widget maker"', "")
        .replace('/ "Mr."', "")
        .replace("/ ", "")
        .replace("[", "")
        .replace("]", "")
    )
    perfect.write_text(text)
    data = cli.json("muc", config, "--response", perfect, "--task", "template_element")
    assert data["scores"]["recall"] == 1.0 and data["scores"]["precision"] == 1.0


def test_bad_input_exits_2_with_file_and_line(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = sample_copy(tmp_path)
    (tmp_path / "bad.tpl").write_text("<ORGANIZATION-1-1> :=\n    ORG_NAME: x\n    / y\n")
    result = cli("muc", config, "--response", tmp_path / "bad.tpl")
    assert result.exit_code == 2
    assert "bad.tpl:3:" in result.stderr and "Traceback" not in result.stderr
    (tmp_path / "unknown.tpl").write_text("<ORGANIZATION-1-1> :=\n    NO_SUCH: x\n")
    result = cli("muc", config, "--response", tmp_path / "unknown.tpl")
    assert result.exit_code == 2 and "unknown.tpl:2:" in result.stderr
    config.write_text(config.read_text() + ":bogus 1\n")
    result = cli("muc", config)
    assert result.exit_code == 2 and "unknown option :bogus" in result.stderr
    result = cli("muc", tmp_path / "missing.config")
    assert result.exit_code == 2 and "no such file" in result.stderr


def test_help_has_an_example(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("muc", "--help")
    assert result.exit_code == 0 and "Example: annoscore muc" in result.stdout


# ------------------------------------------------------------------ named entity, coreference
def sgml_copy(tmp_path: Path) -> Path:
    for name in ("ne.config", "ne.key.sgml", "ne.response.sgml", "co.key.sgml", "co.response.sgml"):
        shutil.copy(sample_path("muc", name), tmp_path / name)
    return tmp_path / "ne.config"


def test_named_entity_text_json_and_files(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = sgml_copy(tmp_path)
    with config.open("a", encoding="utf-8") as handle:
        handle.write(":report_summary_file ne.summary\n:dump_map_history yes\n")
    result = cli("muc", config, "--totals-only")
    assert result.exit_code == 0, result.output
    assert "ALL SLOTS       38    36|  27   0    3|   8    6    5|  71  75  21  17  10  39" in (
        result.stdout
    )
    assert "Body            30    30|  22   0    2|   6    6    5|" in result.stdout
    summary = (tmp_path / "ne.summary").read_text()
    assert 'ENAMEX     inc  cor  PERSON       ORGANIZATION "Jane Doe"' in summary
    history = (tmp_path / "map_history").read_text()
    assert "-key_obj_start_offset" in history and "-doc_section TXT" in history
    data = cli.json("muc", config)
    assert data["task"] == "muc-named-entity"
    assert data["counts"]["subtask:enamex:type:person:inc"] == 1
    assert data["counts"]["section:Header:pos"] == 8
    csv = cli("muc", config, "--format", "csv")
    assert csv.exit_code == 0 and "f_pr" in csv.stdout


def test_coreference_without_configuration(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sgml_copy(tmp_path)
    key, rsp = tmp_path / "co.key.sgml", tmp_path / "co.response.sgml"
    result = cli("muc", "--task", "co", "-k", key, "-r", rsp, "--partitions", tmp_path / "p.txt")
    assert result.exit_code == 0, result.output
    assert "TOTALS:             2     2       1 / 3      33.3%        1 / 3      33.3%  33.3%" in (
        result.stdout
    )
    assert (tmp_path / "p.txt").read_text().startswith("Document 9901010002\n\n*****")
    data = cli.json("muc", "--task", "co", "-k", key, "-r", rsp, "--metric", "muc,bcub,ceafe")
    assert data["task"] == "muc-coreference"
    assert set(data["scores"]) >= {"recall", "muc_f1", "bcub_f1", "ceafe_f1", "conll_f1"}
    assert data["counts"]["muc_recall_den"] == 3
    bad = cli("muc", "--task", "co", "-k", key, "-r", rsp, "--metric", "nope")
    assert bad.exit_code == 2 and "metric: 'nope' is not one of mentions, muc," in bad.output


def test_coreference_files_as_configured_never_over_an_input(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sgml_copy(tmp_path)
    config = tmp_path / "co.config"
    config.write_text(
        ":scoring_task coreference\n:key_file co.key.sgml\n:response_file co.response.sgml\n"
        ":partition_file partitions\n:report_summary_file summary\n:score_report_file scores\n"
    )
    result = cli("muc", config)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "summary").read_text().splitlines()[1] == (
        'COR "Acme Widget Corp. of Springfield" "Acme Widget Corp."'
    )
    assert "TOTALS:" in (tmp_path / "scores").read_text()
    assert (tmp_path / "partitions").exists()
    clash = cli("muc", config, "--summary", tmp_path / "co.key.sgml")
    assert clash.exit_code == 2 and "refusing to write the output: it is" in clash.output
    assert (tmp_path / "co.key.sgml").read_text().startswith("<DOC>")


def test_malformed_sgml_and_strict_text_exit_2(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sgml_copy(tmp_path)
    key = tmp_path / "co.key.sgml"
    bad = tmp_path / "bad.sgml"
    bad.write_text("<DOC>\n<DOCNO>1</DOCNO>\n<TEXT>\n<COREF ID=1>x\n</TEXT>\n</DOC>\n")
    result = cli("muc", "--task", "co", "-k", key, "-r", bad)
    assert result.exit_code == 2
    assert "bad.sgml:5: column 1: <COREF> opened on line 4, column 1" in result.output
    assert "Traceback" not in result.output
    other = tmp_path / "other.sgml"
    other.write_text(
        (tmp_path / "co.response.sgml").read_text().replace("starts Monday", "starts Friday")
    )
    warned = cli("muc", "--task", "co", "-k", key, "-r", other)
    assert warned.exit_code == 0 and "differs from the key's" in warned.output
    strict = cli("muc", "--task", "co", "-k", key, "-r", other, "--strict-text")
    assert strict.exit_code == 2 and "document 9901010002" in strict.output


def test_a_report_file_over_the_configuration_is_refused(cli: Cli, tmp_path: Path) -> None:
    """The configuration's own report-file options may not name the configuration (or an input)."""
    from annoscore.samples import SAMPLES

    for name in ("te.config", "key.synthetic.tpl", "response.synthetic.tpl"):
        shutil.copy(SAMPLES / "muc" / name, tmp_path / name)
    config = tmp_path / "te.config"
    before = config.read_bytes()
    config.write_bytes(before + b":report_summary_file te.config\n")
    result = cli("muc", config)
    assert result.exit_code == 2 and "refusing to write the output" in result.output
    assert config.read_bytes() == before + b":report_summary_file te.config\n"


def test_nan_and_infinite_weights_and_thresholds_are_refused(cli: Cli, tmp_path: Path) -> None:
    from annoscore.samples import SAMPLES

    for name in ("key.synthetic.tpl", "response.synthetic.tpl"):
        shutil.copy(SAMPLES / "muc" / name, tmp_path / name)
    text = (SAMPLES / "muc/te.config").read_text(encoding="utf-8")
    threshold = '"PERSON        person        scored  0"'
    weight = "PER_NAME        name        scored    100"
    for old, new in (
        (threshold, threshold.replace("scored  0", "scored  nan")),
        (weight, weight.replace("100", "inf")),
        (weight, weight.replace("100", "-inf")),
        (weight, weight.replace("100", "1e999")),
        (weight, weight.replace("100", "1_0")),
        (weight, weight.replace("100", "\u0661\u0660")),
    ):
        assert old in text
        (tmp_path / "te.config").write_text(text.replace(old, new), encoding="utf-8")
        result = cli("muc", tmp_path / "te.config", "--no-files")
        assert result.exit_code == 2, new
        assert "must be a finite number" in result.output or (
            "must be a decimal number" in result.output
        ), new


def test_per_doc_with_totals_only_text_is_refused(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The totals page has no document rows: ``--per-doc`` would be dropped silently."""
    config = sample_copy(tmp_path)
    done = cli("muc", config, "--totals-only", "--per-doc")
    assert done.exit_code == 2
    assert "--per-doc has no effect with --totals-only" in done.stderr
    data = cli.json("muc", config, "--totals-only", "--per-doc")  # JSON shows the documents
    assert data["documents"]


# ------------------------------------------------------------------ one undefined rule
def test_undefined_is_star_and_null_by_default_zero_with_undefined_0(
    cli: Cli, tmp_path: Path
) -> None:
    """MUC's ``*`` is the rendering of an undefined value (the rule: JSON null, named in the
    generic warning); ``--undefined 0`` (or ``zero``) prints the manual's 0 in the score report
    and 0.0 in the corpus scores, and the signature says which."""
    config = sample_copy(tmp_path)
    empty = tmp_path / "empty.tpl"
    empty.write_text("")
    args = ("muc", config, "--response", empty, "--no-files")
    star = cli(*args, "--totals-only")
    assert star.exit_code == 0, star.output
    assert "ALL SLOTS       17     0|   0   0    0|  17    0    6|   0   * 100   *   * 100" in (
        star.stdout
    )
    assert "F-MEASURES not available" in star.stdout  # the report's own rule for F
    assert "undefined (a zero denominator, JSON null): precision, overgeneration" in star.stderr
    data = cli.json(*args)
    assert data["scores"]["precision"] is None and data["scores"]["f_pr"] == 0.0
    assert "|undefined:null|" in data["signature"]
    for spelled in ("0", "zero"):
        zero = cli(*args, "--totals-only", "--undefined", spelled)
        assert "ALL SLOTS       17     0|   0   0    0|  17    0    6|   0   0 100   0   0 100" in (
            zero.stdout
        )
        data = cli.json(*args, "--undefined", spelled)
        assert data["scores"]["precision"] == 0.0 and "|undefined:zero|" in data["signature"]
        assert any("shown as 0.0" in w for w in data["warnings"])


def test_an_option_of_another_muc_task_is_refused(cli: Cli, tmp_path: Path) -> None:
    """One command serves five tasks: a flag of another task's options (``--text-filter`` is
    scenario template's) given with a value other than its default is exit 2 naming it, as
    ``--metric`` and ``--strict-text`` are (before: ``--text-filter`` was silently ignored
    outside ST)."""
    config = sample_copy(tmp_path)
    refused = cli("muc", config, "--no-files", "--text-filter", "relevance")
    assert refused.exit_code == 2
    assert "--text-filter has no effect with :scoring_task template_element" in refused.stderr
    assert "only with muc-scenario-template" in refused.stderr
    taken = cli.json("muc", config, "--no-files", "--task", "st", "--text-filter", "relevance")
    assert "|text-filter:relevance|" in taken["signature"]
    assert cli("muc", config, "--no-files", "--text-filter", "agreement").exit_code == 0


def test_every_option_of_the_five_tasks_is_a_flag(cli: Cli) -> None:
    """The flags come from the options classes (``@scoring_command`` with a ``Choice``)."""
    from annoscore.options import fields
    from annoscore.tasks.registry import TASKS

    shown = cli("muc", "--help").stdout
    for name, task in TASKS.items():
        if name.startswith("muc-"):
            for spec in fields(task.options_class()):
                if not spec.setting.fixed and spec.name != "config":
                    assert (spec.setting.flags or (spec.flag,))[0] in shown, spec.flag


def test_the_configured_sgml_markup_reaches_the_reader(cli: Cli, tmp_path: Path) -> None:
    """``:sgml_DOC_gid``, ``:sgml_DOCNUM_gid``, ``:sgml_attribute_quote_char`` and the sections
    of a configuration reach the SGML reader (one
    :class:`~annoscore.formats.muc_sgml.SgmlMarkup`): the sample's files with other document
    and number tags score as the sample, in one run and with ``--jobs 2``."""
    from annoscore.formats.muc_config import MucConfig
    from annoscore.tasks.muc import load_config
    from annoscore.tasks.muc_sgml import read_task_file

    config = sgml_copy(tmp_path)
    expected = cli.json("muc", config, "--no-files")["counts"]
    for name in ("ne.key.sgml", "ne.response.sgml"):
        path = tmp_path / name
        text = (
            path.read_text(encoding="utf-8").replace("<DOC>", "<ART>").replace("</DOC>", "</ART>")
        )
        path.write_text(text.replace("DOCNO>", "NUM>"), encoding="utf-8")
    assert cli("muc", config, "--no-files").exit_code == 2  # no <DOC>: not the sample
    with config.open("a", encoding="utf-8") as handle:
        handle.write(":sgml_DOC_gid ART\n:sgml_DOCNUM_gid NUM\n")
    for jobs in ("1", "2"):
        assert cli.json("muc", config, "--no-files", "--jobs", jobs)["counts"] == expected, jobs
    with config.open("a", encoding="utf-8") as handle:
        handle.write(":sgml_attribute_quote_char #\n")
    (tmp_path / "q.sgml").write_text(
        '<ART><NUM>7</NUM><TXT><ENAMEX TYPE="PERSON" ALT="a #b# *c*">Ann</ENAMEX>'
        "<TIMEX TYPE=DATE>x</TIMEX></TXT><HL><NUMEX TYPE=MONEY>1</NUMEX></HL></ART>",
        encoding="utf-8",
    )
    configured: MucConfig = load_config(config)
    (document,) = read_task_file(
        configured, tmp_path / "q.sgml", ["ENAMEX", "TIMEX", "NUMEX"]
    ).values()
    assert document.number == "7"
    assert [(t.name, t.section) for t in document.tags] == [
        ("ENAMEX", "TXT"), ("TIMEX", "TXT"), ("NUMEX", "HL")
    ]  # fmt: skip
    assert document.tags[0].attributes["ALT"] == 'a "b" *c*'
