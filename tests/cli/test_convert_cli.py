"""``annoscore convert muc-sgml``: brat files from MUC SGML, scored by ``annoscore spans``."""

from __future__ import annotations

from pathlib import Path

from annoscore.formats.brat import read_ann_file
from annoscore.samples import sample_path


def test_named_entity_to_brat_and_span_scoring(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = sample_path("muc", "ne.config")
    for side, name in (("gold", "ne.key.sgml"), ("system", "ne.response.sgml")):
        done = cli(
            "convert",
            "muc-sgml",
            sample_path("muc", name),
            "--out",
            tmp_path / side,
            "--config",
            config,
        )
        assert done.exit_code == 0, done.output
    ann = (tmp_path / "gold" / "9301010002.ann").read_text()
    assert "T2\tORGANIZATION 120 144\tSpringfield Savings Bank\n" in ann
    text = (tmp_path / "gold" / "9301010002.txt").read_text()
    assert text[120:144] == "Springfield Savings Bank"
    # strict spans: the 20 key tags (19 + the optional one), 18 response tags, 11 exact matches:
    # the cor/cor pairs of the MUC report (the optional Acme is an ordinary entity here)
    data = cli.json("spans", tmp_path / "gold", tmp_path / "system", "--mode", "strict")
    assert (data["counts"]["tp"], data["counts"]["fp"], data["counts"]["fn"]) == (11, 7, 9)
    again = cli(
        "convert", "muc-sgml", sample_path("muc", "ne.key.sgml"), "--out", tmp_path / "gold"
    )
    assert again.exit_code == 2 and "use --force" in again.output


def test_coreference_classes_become_equivalences(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    done = cli(
        "convert", "muc-sgml", sample_path("muc", "co.key.sgml"), "--out", tmp_path, "--task", "co"
    )
    assert done.exit_code == 0, done.output
    ann = (tmp_path / "9901010002.ann").read_text()
    assert "*\tCoreference T1 T2 T5\n" in ann and "*\tCoreference T3 T4 T6\n" in ann
    document = read_ann_file(tmp_path / "9901010002.ann").document()
    assert len(document.mentions) == 6 and document.warnings == ()  # the .txt agrees


def test_an_input_file_is_never_overwritten(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    source = tmp_path / "9901010002.ann"
    source.write_text(sample_path("muc", "co.key.sgml").read_text())
    done = cli("convert", "muc-sgml", source, "--out", tmp_path, "--task", "co", "--force")
    assert done.exit_code == 2 and "refusing to overwrite an input file" in done.output
    assert source.read_text().startswith("<DOC>")
