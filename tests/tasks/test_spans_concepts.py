"""``annoscore spans --mode concepts`` against the plain reference of ``tests/oracles/concepts.py``:
random documents written as PubTator and BioC JSON (named infons), ids from the adversarial pools
of ``tests/equivalence/ids.py`` (multi-byte, shared prefixes, last-byte variants, numeric-looking),
composite ids, duplicates, documents on one side only, both ``--missing-docs`` rules.

``ANNOSCORE_EQUIVALENCE_CASES`` multiplies the number of cases (default 1).
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Literal

import pytest

from annoscore.align.documents import MissingDocs
from annoscore.align.span_modes import SpanMode
from annoscore.errors import InputError
from annoscore.metrics.prf import prf
from annoscore.tasks.spans import SpanOptions, count_spans, score_spans
from tests.conftest import Cli
from tests.equivalence.ids import id_pool
from tests.oracles.concepts import Annotation, plain_concept_counts

SCALE = max(1, int(os.environ.get("ANNOSCORE_EQUIVALENCE_CASES", "1")))
CASES = 60 * SCALE
TYPES = ["Chemical", "Disease", "Gene", "Gène", "D"]

Docs = dict[str, tuple[str, list[Annotation]]]


def _documents(rng: random.Random, names: list[str], pool: list[str]) -> Docs:
    out: Docs = {}
    for name in names:
        text = "".join(rng.choice("abc dé") for _ in range(rng.randint(5, 60)))
        annotations: list[Annotation] = []
        for _ in range(rng.randint(0, 8)):
            start = rng.randrange(len(text))
            end = rng.randint(start, min(len(text), start + 6))
            r = rng.random()
            ids: tuple[str, ...] = () if r < 0.15 else tuple(rng.sample(pool, 1 + (r > 0.85)))
            annotations.append((start, end, rng.choice(TYPES), ids))
        if annotations and rng.random() < 0.2:
            annotations.append(rng.choice(annotations))  # a duplicate
        out[name] = (text, annotations)
    return out


def _near(rng: random.Random, gold: Docs, pool: list[str], names: list[str]) -> Docs:
    """A system: the gold documents it shares, most annotations kept, some ids or types changed;
    plus documents of its own."""
    out: Docs = {}
    for name in names:
        if name not in gold:
            out.update(_documents(rng, [name], pool))
            continue
        text, annotations = gold[name]
        kept: list[Annotation] = []
        for start, end, kind, ids in annotations:
            r = rng.random()
            if r < 0.15:
                continue
            if r < 0.3:
                ids = tuple(rng.sample(pool, 1))
            elif r < 0.4:
                kind = rng.choice(TYPES)
            kept.append((start, end, kind, ids))
        out[name] = (text, kept)
    return out


def _pubtator(path: Path, docs: Docs) -> None:
    blocks = []
    for name, (text, found) in docs.items():
        lines = [f"{name}|t|{text}"]
        for start, end, kind, ids in found:
            lines.append(f"{name}\t{start}\t{end}\t{text[start:end]}\t{kind}\t{'|'.join(ids)}")
        blocks.append("\n".join(lines) + "\n")
    path.write_text("\n".join(blocks), encoding="utf-8")


def _bioc_json(path: Path, docs: Docs, type_infon: str, id_infon: str) -> None:
    documents = []
    for name, (text, found) in docs.items():
        items = []
        for k, (start, end, kind, ids) in enumerate(found):
            infons = {type_infon: kind}
            if ids:
                infons[id_infon] = "|".join(ids)
            items.append(
                {
                    "id": str(k),
                    "infons": infons,
                    "text": text[start:end],
                    "locations": [{"offset": start, "length": end - start}],
                }
            )
        documents.append(
            {"id": name, "passages": [{"offset": 0, "text": text, "annotations": items}]}
        )
    path.write_text(json.dumps({"documents": documents}), encoding="utf-8")


def _reference(docs: Docs, no_id: frozenset[str]) -> dict[str, list[Annotation]]:
    """What the reference reads: each annotation's ids, "no id" forms left out."""
    return {
        name: [(s, e, k, tuple(i for i in ids if i not in no_id)) for s, e, k, ids in annotations]
        for name, (_, annotations) in docs.items()
    }


@pytest.mark.parametrize("system_format", ["pubtator", "bioc-json"])
def test_concept_scores_are_the_plain_reading(tmp_path: Path, system_format: str) -> None:
    rng = random.Random(f"concepts-{system_format}")
    for case in range(CASES):
        pool = id_pool(rng, rng.randint(2, 12), forbidden="|\t\n\r ")
        names = [f"d{k}" for k in range(rng.randint(1, 5))]
        gold = _documents(rng, [n for n in names if rng.random() < 0.85] or names[:1], pool)
        system = _near(rng, gold, pool, [n for n in names if rng.random() < 0.85] or names[:1])
        gold_path, system_path = tmp_path / "gold.txt", tmp_path / "system.json"
        _pubtator(gold_path, gold)
        type_infon, id_infon = rng.choice([("type", "identifier"), ("kind", "MESH")])
        if system_format == "pubtator":
            _pubtator(system_path, system)
            type_infon, id_infon = "type", "identifier"
        else:
            _bioc_json(system_path, system, type_infon, id_infon)
        missing: Literal[MissingDocs.count, MissingDocs.ignore] = rng.choice(
            [MissingDocs.count, MissingDocs.ignore]
        )
        options = SpanOptions(
            mode=SpanMode.concepts,
            gold_format="pubtator",
            system_format=system_format,  # type: ignore[arg-type]
            type_infon=type_infon,
            id_infon=id_infon,
            missing_docs=missing,
        )
        no_id = frozenset({"", "-1"})
        expected = plain_concept_counts(
            _reference(gold, no_id),
            _reference(system, no_id),
            ignore_missing=missing is MissingDocs.ignore,
        )
        if len(gold) == 1 and len(system) == 1:  # two files of one document each: that one
            (g,) = gold
            (s,) = system
            expected = {
                g: plain_concept_counts(
                    {g: _reference(gold, no_id)[g]},
                    {g: _reference(system, no_id)[s]},
                )[g]
            }
        result = score_spans(gold_path, system_path, options)
        assert {d: row.counts.as_dict() for d, row in result.documents.items()} == {
            d: {k: v for k, v in sorted(c.items())} for d, c in expected.items()
        }, case
        total = {k: sum(c[k] for c in expected.values()) for k in ("tp", "fp", "fn")}
        ids = {k: sum(c[f"ids_{k}"] for c in expected.values()) for k in ("tp", "fp", "fn")}
        if not expected:  # no document scored (--missing-docs ignore): nothing is defined
            assert result.scores == prf(0, 0, 0).as_dict(), case
            continue
        assert result.scores == {
            **prf(total["tp"], total["fp"], total["fn"]).as_dict(),
            **prf(ids["tp"], ids["fp"], ids["fn"]).as_dict("ids_"),
        }, case


def test_concepts_in_memory_and_a_side_without_ids_named() -> None:
    from annoscore.model import AnnotatedDocument, Mention, Normalization, Span

    m = Mention(Span.of(0, 4), "Gene", "T1")
    gold = {
        "d": AnnotatedDocument("d", (m,), normalizations=(Normalization("N1", "R", "T1", "", "7"),))
    }
    system = {"d": AnnotatedDocument("d", (m,))}
    result = count_spans(gold, system, SpanOptions(mode=SpanMode.concepts))
    assert result.counts.as_dict() == {
        "fn": 1,
        "fp": 0,
        "ids_fn": 1,
        "ids_fp": 0,
        "ids_tp": 0,
        "tp": 0,
    }
    assert any("carry no concept id" in w.message for w in result.warnings if hasattr(w, "message"))


def test_concepts_refuse_a_matching_parameter_of_another_mode() -> None:
    with pytest.raises(InputError, match="has no effect"):
        count_spans({}, {}, SpanOptions(mode=SpanMode.concepts, tolerance=1))


def test_bioc_infons_name_the_type_and_the_id(tmp_path: Path, cli: Cli) -> None:
    """``--type-infon`` and ``--id-infon`` choose the BioC infons (BioC XML here); with neither
    side BioC they change nothing and a warning says so."""
    xml = (
        "<collection><source/><date/><key/><document><id>1</id><passage><offset>0</offset>"
        "<text>Aspirin helps</text><annotation id='A1'><infon key='type'>Drug</infon>"
        "<infon key='kind'>Chemical</infon><infon key='MESH'>D001241</infon>"
        "<location offset='0' length='7'/><text>Aspirin</text></annotation></passage>"
        "</document></collection>"
    )
    gold = tmp_path / "gold.xml"
    gold.write_text(xml, encoding="utf-8")
    system = tmp_path / "system.txt"
    system.write_text("1|t|Aspirin helps\n1\t0\t7\tAspirin\tChemical\tD001241\n", encoding="utf-8")
    plain = score_spans(gold, system, SpanOptions(mode=SpanMode.concepts))
    assert plain.counts.as_dict() == {
        "fn": 0,
        "fp": 1,
        "ids_fn": 0,
        "ids_fp": 1,
        "ids_tp": 0,
        "tp": 0,
    }  # type Drug, no identifier infon: the gold side carries no id
    named = SpanOptions(mode=SpanMode.concepts, type_infon="kind", id_infon="MESH")
    result = score_spans(gold, system, named)
    assert result.counts.as_dict() == {
        "fn": 0,
        "fp": 0,
        "ids_fn": 0,
        "ids_fp": 0,
        "ids_tp": 1,
        "tp": 1,
    }
    assert "|type-infon:kind|id-infon:MESH" in str(result.signature)
    assert score_spans(gold, system, SpanOptions(type_infon="kind")).counts["tp"] == 1
    shown = cli.json("spans", str(system), str(system), "--id-infon", "MESH")
    assert any(
        "--id-infon 'MESH' has no effect: neither side is BioC" in w for w in shown["warnings"]
    )
