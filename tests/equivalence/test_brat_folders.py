"""The brat folder reader's passes over a folder's names and files (the scan's files made with
their columns on first use, a chunk's listing from its names, the stems and ``.txt`` of names
ending in ``.ann``), each held to the plain path it stands for on random folders: odd lines,
missing ``.txt``, unicode, CRLF, byte-order marks, empty files, odd names."""

from __future__ import annotations

import dataclasses
import itertools
import os
import random
from pathlib import Path
from typing import Any

import pytest

from annoscore.errors import InputError
from annoscore.formats import brat
from annoscore.formats.brat import AnnFile, parse_ann_file, read_brat_corpus
from annoscore.formats.files import folder_files, selected_files
from tests.formats.test_brat import _ODD_LINES, _scan_spy, random_entity_lines
from tests.oracles import brat as oracle_brat

TEXT = "abcdefghij klmnopqrs tuvwxyz" * 3

NAMES = ("d", "é", "a.b", "a..", ".x", "a-b", "a b", "Ab")
"""Stems of the random folders' files: each read as a document of its own."""

ODD_NAMES = ((".ann",), ("..ann",), ("e.ANN", "f.Ann"), ("g.txt",), ("h", "h.ann"), ("i.ann.bak",))
"""Names the random folders sometimes hold: stems made of dots, a suffix in another case, a
``.txt`` without ``.ann``, two files of one stem, other files."""


def _content(rng: random.Random) -> bytes:
    """An ``.ann`` file: plain entity lines, now and then an odd one, a CRLF line end, a
    byte-order mark, a missing final newline, or nothing."""
    if rng.random() < 0.08:
        return b""
    lines = random_entity_lines(rng, TEXT, rng.randint(0, 8))
    if rng.random() < 0.3:
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(_ODD_LINES))
    ends = rng.choice(("\n", "\r\n", "mixed"))
    body = "".join(
        line + (rng.choice(("\n", "\r\n")) if ends == "mixed" else ends) for line in lines
    )
    if body and rng.random() < 0.1:
        body = body.rstrip("\n")
    data = body.encode("utf-8")
    return b"\xef\xbb\xbf" + data if rng.random() < 0.05 else data


def _random_folder(folder: Path, rng: random.Random) -> None:
    folder.mkdir()
    for n in range(rng.randint(1, 14)):
        stem = f"{rng.choice(NAMES)}{n}"
        (folder / f"{stem}.ann").write_bytes(_content(rng))
        roll = rng.random()
        if roll < 0.75:  # its text; else none
            text = TEXT if rng.random() < 0.85 else TEXT.replace("a", "é")
            (folder / f"{stem}.txt").write_text(text, encoding="utf-8")
    for names in rng.sample(ODD_NAMES, rng.randint(0, 3)):
        for name in names:
            (folder / name).write_bytes(_content(rng))


def _view(file: AnnFile) -> dict[str, Any]:
    """Every field of a file as plain values (its line numbers and fragments as
    :meth:`AnnFile.line_of` and :meth:`AnnFile.entity_fragments` give them: the parser's
    ``pharmaconer`` dialect lists continuous fragments the scan leaves as ``None``), its rows'
    entities and its document."""
    out: dict[str, Any] = {}
    for field in dataclasses.fields(AnnFile):
        value = getattr(file, field.name)
        if field.name == "rows":
            value = None if value is None else (value.hi - value.lo)
        elif field.name == "lines":
            value = [file.line_of(k) for k in range(len(file))]
        elif field.name == "fragments":  # None where none is discontinuous, or the list
            value = file.entity_fragments()
        elif field.name in ("ids", "types", "starts", "ends", "texts"):
            assert len(value) == len(file)
            value = list(value)
        out[field.name] = value
    rows = file.rows
    if rows is not None:  # a file's own (files of one stem merged have none)
        block = rows.block
        out["block"] = (
            block.starts[rows.lo : rows.hi].tolist(),
            block.ends[rows.lo : rows.hi].tolist(),
            [block.type_names[c] for c in block.type_codes[rows.lo : rows.hi].tolist()],
        )
    out["document"] = file.document()
    return out


def _read(folder: Path, **options: Any) -> object:
    """The folder read (every file's view and the folder's warnings), or the error's words."""
    try:
        corpus = read_brat_corpus(folder, **options)
    except InputError as error:
        return ("error", str(error), error.path, error.line)
    files = {doc: _view(file) for doc, file in corpus.files.items()}
    return files, corpus.warnings, corpus.all_warnings()


@pytest.mark.parametrize("seed", range(6))
def test_a_folder_reads_alike_by_the_scan_and_by_the_parser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """Files the scan took (their columns, line numbers, references, warnings, text, rows and
    document made on first use) against the same files read by the checked parser."""
    from annoscore.formats import brat_scan

    rng = random.Random(2800 + seed)
    taken_total = 0
    for case in range(12):
        folder = tmp_path / str(case)
        _random_folder(folder, rng)
        # the scan's chunks of a file or a few, or of the whole folder
        monkeypatch.setattr(brat_scan, "CHUNK_BYTES", rng.choice((1, 64, 300, 1 << 20)))
        for options in (
            {},
            {"check_text": False},
            {"dialect": "pharmaconer"},
            {"dialect": "pharmaconer", "every_file": True},
        ):
            with monkeypatch.context() as patched:
                _scan_spy(patched, decline_all=True)
                parsed = _read(folder, **options)
            with monkeypatch.context() as patched:
                taken = _scan_spy(patched)
                read = _read(folder, **options)
            assert read == parsed, (case, options)
            taken_total += len(taken)
    assert taken_total > 50  # the scan took files


def test_a_scanned_file_is_an_ann_file(tmp_path: Path) -> None:
    """A file the scan took: its fields are set or made when asked, and it is copied,
    narrowed and merged as any :class:`AnnFile`."""
    (tmp_path / "d.ann").write_text("T1\tDrug 0 2\tab\nT2\tDose 3 5\tde\n")
    (tmp_path / "d.txt").write_text(TEXT)
    (file,) = read_brat_corpus(tmp_path).files.values()
    assert isinstance(file, AnnFile) and type(file) is not AnnFile  # the scan's
    assert (file.lines, file.fragments, file.warnings, file.text) == (None, None, [], TEXT)
    assert (file.normalizations, file.relations, file.notes) == ((), (), ())
    assert list(file.ids) == ["T1", "T2"] and list(file.starts) == [0, 3]
    narrowed, removed = file.without_type("Dose")
    assert removed == 1 and list(narrowed.types) == ["Drug"]
    merged = file.merged(file)
    assert list(merged.ids) == ["T1", "T2", "T1", "T2"] and merged.lines == [1, 2, 1, 2]
    copy = dataclasses.replace(file, id="e")
    assert copy.id == "e" and list(copy.texts) == ["ab", "de"]
    given = parse_ann_file("T1\tDrug 0 2\tab\n", tmp_path / "d.ann", "d", TEXT)
    assert type(given) is type(file) and list(given.texts) == ["ab"]  # text: the scan reads it


def test_the_scans_chunks_hold_files_until_they_reach_its_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each chunk the scan reads: the files from the first not yet read until they hold
    :data:`~annoscore.formats.brat_scan.CHUNK_BYTES` (one file at least), in order; a file
    larger than that is declined (the parser reads it)."""
    from annoscore.formats import brat_scan

    rng = random.Random(2801)
    sizes = []
    for k in range(40):
        lines = rng.choice((0, 1, 2, 5))
        content = "".join(f"T{n + 1}\tDrug 0 2\tab\n" for n in range(lines))
        (tmp_path / f"d{k:02d}.ann").write_text(content)
        sizes.append(len(content))
    chunks: list[list[int]] = []
    scan = brat_scan._scan_chunk

    def spy(big: bytes, file_ends: Any, texts: list[bytes | None]) -> Any:
        ends = [len(brat_scan._PAD), *file_ends.tolist()]
        chunks.append([b - a for a, b in itertools.pairwise(ends)])
        assert len(big) == ends[-1] + len(brat_scan._PAD)
        return scan(big, file_ends, texts)

    monkeypatch.setattr(brat_scan, "_scan_chunk", spy)
    for size in (1, 17, 40, 100, 1 << 20):
        monkeypatch.setattr(brat_scan, "CHUNK_BYTES", size)
        chunks.clear()
        assert len(read_brat_corpus(tmp_path).files) == 40
        expected: list[list[int]] = []
        for n in (n for n in sizes if n <= size):  # larger: the parser's
            if not expected or sum(expected[-1]) >= size:  # held less: the next file too
                expected.append([])
            expected[-1].append(n)
        assert chunks == expected


@pytest.mark.parametrize("seed", range(4))
def test_a_chunk_of_names_lists_what_the_folder_lists(tmp_path: Path, seed: int) -> None:
    """:func:`folder_files` of a folder's names (a chunk of it, :func:`selected_files`,
    ``listed``), against the folder listed; the reader then reads the same."""
    rng = random.Random(2900 + seed)
    for case in range(10):
        folder = tmp_path / str(case)
        _random_folder(folder, rng)
        names = os.listdir(folder)
        for suffix, every_file in ((".ann", False), (".ann", True), (".txt", False)):
            texts_listed: set[str] = set()
            texts_chunk: set[str] = set()
            listed = folder_files(folder, suffix, every_file, texts_listed)
            with selected_files({str(folder): names}, listed=True):
                chunk = folder_files(folder, suffix, every_file, texts_chunk)
            assert chunk == listed and texts_chunk == texts_listed
        whole = _read(folder)
        with selected_files({str(folder): names}, listed=True):
            assert _read(folder) == whole


@pytest.mark.parametrize("seed", range(4))
def test_stems_and_texts_are_each_names_own(tmp_path: Path, seed: int) -> None:
    rng = random.Random(3000 + seed)
    for case in range(10):
        folder = tmp_path / str(case)
        _random_folder(folder, rng)
        for every_file in (False, True):
            texts: set[str] = set()
            paths, _ = folder_files(folder, every_file=every_file, texts=texts)
            for check_text in (True, False):
                plain = oracle_brat.document_names(paths, texts, check_text, every_file)
                assert brat._stems_and_texts(folder, paths, texts, check_text, every_file) == plain
