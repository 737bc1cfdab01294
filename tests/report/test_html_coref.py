"""The coreference sections of the HTML report: the errors after Kummerfeld and Klein (2013)
(metrics/coref_errors.py), their gains rescored with the project's metrics, and the entity
viewer in Chromium on a handmade document holding every kind of error and markup in its name."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from annoscore.metrics.coref import coref_counts, coref_scores
from annoscore.metrics.coref_errors import (
    CATEGORIES,
    coref_errors,
    stage_counts,
    token_span_fixes,
)
from annoscore.report.html import render_html
from annoscore.report.html_coref import COREF_ID, CorefSides, analyse
from annoscore.tasks.coref import CorefOptions, coref_partitions, score_coref
from tests.report.browser import open_report

NAME = "<b>doc</b> & </script>"
KEY = [
    [(0, 1), (5, 5), (10, 12)],  # K1: (0, 1) answered (0, 2): a span error; (10, 12) missing
    [(3, 3), (8, 8)],  # K2: (3, 3) conflated into R1; (8, 8) alone: divided
    [(14, 14), (16, 16)],  # K3: a missing entity
    [(20, 21), (24, 24), (27, 27)],  # K4: divided over R3 and R4
]
RESPONSE = [
    [(0, 2), (5, 5), (3, 3), (18, 18)],  # R1: span error, conflated, an extra mention
    [(8, 8)],
    [(20, 21), (24, 24)],
    [(27, 27)],
    [(25, 25), (29, 29)],  # an extra entity
]
WANT = {
    "span": 1,
    "extra_mention": 1,
    "extra_entity": 1,
    "missing_mention": 1,
    "missing_entity": 1,
    "conflated": 1,
    "divided": 2,
}


def _conll(path: Path, entities: list[list[tuple[int, int]]], tokens: int = 30) -> Path:
    marks: list[list[str]] = [[] for _ in range(tokens)]
    for number, entity in enumerate(entities):
        for start, end in entity:
            if start == end:
                marks[start].append(f"({number})")
            else:
                marks[start].append(f"({number}")
                marks[end].append(f"{number})")
    lines = [f"#begin document {NAME}"]
    lines += [f"d\t0\t{t}\tw{t}\t{'|'.join(m) or '-'}" for t, m in enumerate(marks)]
    lines.append("#end document")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_every_kind_of_error_once_and_the_repairs_reach_the_key() -> None:
    fixes = token_span_fixes(KEY, RESPONSE)
    assert fixes == {(0, 2): (0, 1)}
    found = coref_errors(KEY, RESPONSE, fixes)
    assert dict(found.counts) == WANT
    assert len(found.stages) == len(CATEGORIES) + 1
    assert sorted(map(sorted, found.stages[-1])) == sorted(map(sorted, KEY))
    scores = [coref_scores(c) for c in stage_counts(KEY, found)]
    assert scores[0] == coref_scores(coref_counts(KEY, RESPONSE))
    assert all(v == 1.0 for v in scores[-1].values())


def test_repairs_of_random_partitions() -> None:
    """Each stage does only its own repair, the counts say how many, and the last stage is the
    key, whatever the partitions."""
    rng = random.Random(5)
    for _ in range(400):
        mentions = list(range(rng.randrange(1, 14)))
        key: list[list[int]] = []
        for m in mentions:
            if key and rng.random() < 0.6:
                rng.choice(key).append(m)
            else:
                key.append([m])
        pool = [m for m in mentions if rng.random() < 0.8] + [100 + k for k in range(4)]
        rng.shuffle(pool)
        response: list[list[int]] = []
        for m in pool:
            if response and rng.random() < 0.5:
                rng.choice(response).append(m)
            else:
                response.append([m])
        found = coref_errors(key, response)
        counts = found.counts
        assert sorted(map(sorted, found.stages[-1])) == sorted(map(sorted, key))
        s = [{m for e in stage for m in e} for stage in found.stages]
        owned = {m for e in key for m in e}
        assert len(s[1] - s[2]) + len(s[2] - s[3]) == len(set(pool) - owned)
        assert len(found.stages[2]) - len(found.stages[3]) == counts["extra_entity"]
        assert len(s[4] - s[3]) == counts["missing_mention"]
        assert len(found.stages[5]) - len(found.stages[4]) == counts["missing_entity"]
        assert len(found.stages[6]) - len(found.stages[5]) == counts["conflated"]
        assert len(found.stages[6]) - len(found.stages[7]) == counts["divided"]
        if sorted(map(sorted, response)) == sorted(map(sorted, key)):
            assert not any(counts.values())


def test_the_analysis_of_the_handmade_file(tmp_path: Path) -> None:
    key, response = _conll(tmp_path / "k.conll", KEY), _conll(tmp_path / "r.conll", RESPONSE)
    partitions = coref_partitions(key, response)
    data = analyse(CorefSides(partitions))
    assert data["counts"] == WANT
    result = score_coref(key, response, CorefOptions())
    for k, v in data["scores"][0].items():
        assert v == result.scores[k] or (v is None and result.scores[k] == 0.0)
    assert all(v == 1.0 for v in data["scores"][-1].values())
    total = {k: sum(data["gains"][c][k] for c in CATEGORIES) for k in data["keys"]}
    for k, v in total.items():
        assert abs(v - (1.0 - data["scores"][0][k])) < 1e-9
    doc = data["documents"][NAME]
    assert doc["fixes"] == {"0-2": "0-1"} and doc["n"] == sum(WANT.values())


def test_the_command_writes_the_sections(cli: Any, tmp_path: Path) -> None:
    key, response = _conll(tmp_path / "k.conll", KEY), _conll(tmp_path / "r.conll", RESPONSE)
    out = tmp_path / "c.html"
    done = cli("coref", key, response, "--format", "html", "-o", out)
    assert done.exit_code == 0, done.output
    page = out.read_text(encoding="utf-8")
    assert f'id="{COREF_ID}"' in page and "Entity viewer" in page
    assert "<b>doc</b>" not in page


def test_the_viewer_and_the_errors_table_in_chromium(browser: Any, tmp_path: Path) -> None:
    key, response = _conll(tmp_path / "k.conll", KEY), _conll(tmp_path / "r.conll", RESPONSE)
    result = score_coref(key, response, CorefOptions())
    path = tmp_path / "coref.html"
    sides = CorefSides(coref_partitions(key, response))
    path.write_text(render_html(result, coref=sides), encoding="utf-8")
    opened = open_report(browser, path)
    page = opened.page
    try:
        assert opened.errors == []
        embedded = opened.data(COREF_ID)
        cells = page.eval_on_selector_all(
            "[data-coref-path]",
            "es => es.map(e => [e.getAttribute('data-coref-path'), e.textContent, e.title])",
        )
        assert len(cells) == len(embedded["keys"]) * (2 + len(CATEGORIES)) + len(CATEGORIES)
        for where, shown, title in cells:
            value: Any = embedded
            for step in json.loads(where):
                value = value[step]
            if value is None:
                assert shown == "-"
            elif isinstance(value, int):
                assert shown == str(value)
            else:
                assert abs(float(shown) - value) <= 0.5e-4 + 1e-12 and float(title) == value
        assert embedded["counts"] == WANT
        # the stage before any repair is the result the page embeds
        data = opened.data()
        for k, v in embedded["scores"][0].items():
            assert v == data["scores"][k]
        # the viewer: every mention tagged with what happened to it
        tags = page.eval_on_selector_all(
            "#ckey .ment, #cresp .ment",
            "es => es.map(e => [e.closest('[data-side]').getAttribute('data-side'),"
            " e.getAttribute('data-m'), e.getAttribute('data-tag')])",
        )
        seen = {(side, m): tag for side, m, tag in tags}
        assert seen[("k", "0-1")] == "span" and seen[("r", "0-2")] == "span"
        assert seen[("r", "18-18")] == "extra" and seen[("r", "25-25")] == "extra"
        assert seen[("k", "10-12")] == "missing" and seen[("k", "14-14")] == "missing"
        assert seen[("r", "3-3")] == "K2" and seen[("k", "3-3")] == "R1"  # conflated
        assert seen[("k", "20-21")] == "R3" and seen[("k", "27-27")] == "R5"  # divided
        page.click("#ckey .ent[data-entity='3']")
        assert "split over R3, R5" in page.eval_on_selector("#cinfo", "e => e.textContent")
        page.click("#cresp .ent[data-entity='0']")
        info = page.eval_on_selector("#cinfo", "e => e.textContent")
        assert "merges K1, K2" in info and "2 not in the key" in info
        hit = page.eval_on_selector_all(".ment.hit", "es => es.length")
        assert hit >= 4
        # markup in the document's name shows as text
        option = page.eval_on_selector("#cdoc option", "e => e.textContent")
        assert option.startswith(NAME.split("#")[0][:10]) and "<b>doc</b>" in option
        assert page.eval_on_selector_all("main b", "es => es.length") == 0
        assert opened.errors == []
    finally:
        page.close()


def test_the_tasks_own_muc_is_the_first_stage() -> None:
    """MUC coreference and ARE task 2 give their partitions through the result's details; the
    errors table starts from the task's own MUC F1 and ends at 1."""
    import pytest

    from annoscore.report.html_coref import details_sides
    from tests.report.test_html import sample_result

    for name in ("muc-coreference", "are-2", "are-4"):
        result = sample_result(name)
        sides = details_sides(result.details)
        assert sides is not None and sides.documents
        data = analyse(sides)
        if name != "are-4":  # task 4's overlap credit is not rescored (the table says so)
            assert data["scores"][0]["muc_f1"] == pytest.approx(result.scores["f1"], abs=1e-12)
        assert data["scores"][-1]["muc_f1"] == 1.0
    assert details_sides(sample_result("are-1").details) is None
    assert details_sides(sample_result("muc-named-entity").details) is None
