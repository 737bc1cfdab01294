"""What every registered task must do, checked on every task at once (after scikit-learn's
``sklearn/utils/estimator_checks.py`` / ``test_common.py``): a task added to the registry is
held to these without a test of its own.

- **Parts sum to the corpus**: the sample (corpus A) and a copy of it with every document
  renamed (corpus B) are scored alone and together: the counts of A + B are the sums of the
  counts of A and of B, document by document and in total (documents never interact).
- **Shuffling changes nothing**: A + B written with its documents in another order scores the
  same counts and scores.
- **A perfect system scores 1** on every higher-is-better score: the gold standard given as
  the system (written in the system's format where that differs).
- **Every option moves the signature or says it does not**: each option of each task's options
  class set to another value changes the signature exactly when the option is declared to move
  a number.

The format of each task's files is known here only to write them: documents are split,
renamed and joined as text (nothing from ``annoscore.formats``).
"""

from __future__ import annotations

import json
import math
import random
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from annoscore.options import OptionField, fields
from annoscore.result import Result
from annoscore.tasks.registry import TASKS, Task, sample_paths

# --- documents of each format, as text ------------------------------------------------------

Docs = list[tuple[str, Any]]
"""A file's documents in order: (document id, the document's content as the format has it)."""


@dataclass(frozen=True)
class Format:
    """How a format's files are cut into documents, renamed and written back."""

    split: Callable[[Path], tuple[str, Docs, str]]
    """A file (or folder) as (header, documents, footer)."""
    join: Callable[[Path, str, Docs, str], None]
    """Write (header, documents, footer) to a path."""
    rename: Callable[[str, Any, str], Any]
    """A document's content with its id changed to a new one."""


def _by_first_field(path: Path) -> tuple[str, Docs, str]:
    docs: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            docs.setdefault(re.split(r"\s", line, maxsplit=1)[0], []).append(line)
    return "", list(docs.items()), ""


def _join_lines(path: Path, head: str, docs: Docs, tail: str) -> None:
    path.write_text("".join(line + "\n" for _, lines in docs for line in lines), encoding="utf-8")


def _rename_first_field(old: str, lines: Any, new: str) -> Any:
    return [new + line[len(old) :] for line in lines]


def _folder(path: Path) -> tuple[str, Docs, str]:
    docs: dict[str, dict[str, bytes]] = {}
    for file in sorted(path.iterdir()):
        docs.setdefault(file.stem, {})[file.suffix] = file.read_bytes()
    return "", list(docs.items()), ""


def _join_folder(path: Path, head: str, docs: Docs, tail: str) -> None:
    path.mkdir()
    for stem, files in docs:
        for suffix, data in files.items():
            (path / f"{stem}{suffix}").write_bytes(data)


def _rename_folder(old: str, files: Any, new: str) -> Any:
    out = {}
    for suffix, data in files.items():
        text = data.decode("utf-8")
        if suffix == ".tsv":  # PharmaCoNER indexing: the document id is the first column
            text = "".join(_rename_first_field(old, text.splitlines(keepends=True), new))
        out[suffix] = text.encode("utf-8")
    return out


def _blocks(begin: str, end: str) -> Callable[[Path], tuple[str, Docs, str]]:
    """Documents are the blocks from a line matching ``begin`` to one matching ``end``; the id
    is ``begin``'s first group."""

    def split(path: Path) -> tuple[str, Docs, str]:
        text = path.read_text(encoding="utf-8")
        pattern = re.compile(rf"^{begin}.*?^{end}[^\n]*\n?", re.S | re.M)
        found = list(pattern.finditer(text))
        docs = [(m.group(1), m.group(0)) for m in found]
        head = text[: found[0].start()] if found else text
        tail = text[found[-1].end() :] if found else ""
        return head, docs, tail

    return split


def _join_text(path: Path, head: str, docs: Docs, tail: str) -> None:
    path.write_text(head + "".join(text for _, text in docs) + tail, encoding="utf-8")


def _rename_text(old: str, text: Any, new: str) -> Any:
    return str(text).replace(old, new)


def _json_notes(path: Path) -> tuple[str, Docs, str]:
    items = json.loads(path.read_text(encoding="utf-8"))
    return "", [(item["annotationSource"]["resourceSource"]["name"], item) for item in items], ""


def _join_json(path: Path, head: str, docs: Docs, tail: str) -> None:
    path.write_text(json.dumps([item for _, item in docs]), encoding="utf-8")


def _rename_json(old: str, item: Any, new: str) -> Any:
    copy = json.loads(json.dumps(item))
    copy["annotationSource"]["resourceSource"]["name"] = new
    return copy


def _are(path: Path) -> tuple[str, Docs, str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"^<\?xml[^>]*\?>\s*", "", text)
    found = list(re.finditer(r'<document id="([^"]*)".*?</document>', text, re.S))
    return "", [(m.group(1), m.group(0)) for m in found], ""


def _join_are(path: Path, head: str, docs: Docs, tail: str) -> None:
    body = "\n".join(text for _, text in docs)
    path.write_text(f'<?xml version="1.0" encoding="UTF-8"?>\n<corpus>\n{body}\n</corpus>\n')


def _rename_are(old: str, text: Any, new: str) -> Any:
    return str(text).replace(f'<document id="{old}"', f'<document id="{new}"', 1)


def _rename_number(old: str, text: Any, new: str) -> Any:
    return str(text).replace(old, new)


LINES = Format(_by_first_field, _join_lines, _rename_first_field)
FOLDER = Format(_folder, _join_folder, _rename_folder)
CONLL = Format(_blocks(r"#begin document \(([^)]*)\)", r"#end document"), _join_text, _rename_text)
SGML = Format(
    _blocks(r"<DOC>\s*(?:<DOCID>[^<]*</DOCID>\s*)?<DOCNO>\s*([^<]*?)\s*</DOCNO>", r"</DOC>"),
    _join_text,
    _rename_text,
)
TEMPLATES = Format(
    _blocks(r"<TEMPLATE-(\d+)-\d+> :=", r"(?=<TEMPLATE-|\Z)"), _join_text, _rename_number
)
NOTES = Format(_json_notes, _join_json, _rename_json)


def _docstart_blocks(path: Path) -> tuple[str, Docs, str]:
    """CoNLL tag files: a document runs from its ``-DOCSTART- ID`` line to the next one."""
    text = path.read_text(encoding="utf-8")
    found = list(re.finditer(r"^-DOCSTART- (\S+).*?(?=^-DOCSTART-|\Z)", text, re.S | re.M))
    head = text[: found[0].start()] if found else text
    return head, [(m.group(1), m.group(0)) for m in found], ""


BIO = Format(_docstart_blocks, _join_text, _rename_text)
ARE = Format(_are, _join_are, _rename_are)


def _format(name: str) -> Format:
    family = name.split("-")[0]
    if name in ("pharmaconer-ner", "pharmaconer-indexing", "spans"):
        return FOLDER
    return {
        "coref": CONLL,
        "codiesp": LINES,
        "trec": LINES,
        "nlpsandbox": NOTES,
        "are": ARE,
        "conlleval": BIO,
        "seqeval": BIO,
    }.get(family) or (SGML if name in ("muc-named-entity", "muc-coreference") else TEMPLATES)


def _new_id(old: str) -> str:
    """A new id for a copy of a document: digits stay digits (MUC document numbers)."""
    return old + "7" if re.fullmatch(r"[\d.-]+", old.strip()) else old + "~b"


# --- the corpora -----------------------------------------------------------------------------


def _inputs(task: Task) -> dict[str, Path]:
    gold, system, options = sample_paths(task)
    paths = {"gold": gold, "system": system}
    if "input_path" in options:  # ARE: the input file is a document-by-document file too
        paths["input_path"] = options["input_path"]
    return paths


def _corpora(task: Task, folder: Path, rng: random.Random) -> dict[str, dict[str, Path]]:
    """The files of corpus A (the sample), B (renamed copy), A + B, and A + B shuffled."""
    form = _format(task.name)
    out: dict[str, dict[str, Path]] = {"A": {}, "B": {}, "AB": {}, "shuffled": {}}
    for role, path in _inputs(task).items():
        head, docs, tail = form.split(path)
        assert docs, f"{path}: no document found"
        renamed = [(_new_id(i), form.rename(i, d, _new_id(i))) for i, d in docs]
        mixed = docs + renamed
        shuffled = mixed[:]
        while len(shuffled) > 1 and shuffled == mixed:
            rng.shuffle(shuffled)
        for corpus, content in (("A", docs), ("B", renamed), ("AB", mixed), ("shuffled", shuffled)):
            target = folder / corpus / f"{role}{path.suffix}"
            target.parent.mkdir(exist_ok=True)
            form.join(target, head, content, tail)
            out[corpus][role] = target
    return out


def _run(task: Task, paths: dict[str, Path]) -> Result:
    _, _, options = sample_paths(task)
    if "input_path" in paths:
        options["input_path"] = paths["input_path"]
    return task.run(paths["gold"], paths["system"], **options)


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


NAMES = list(TASKS)


@pytest.mark.parametrize("name", NAMES)
def test_parts_sum_to_the_corpus_and_shuffling_changes_nothing(name: str, tmp_path: Path) -> None:
    task = TASKS[name]
    corpora = _corpora(task, tmp_path, random.Random(name))
    a, b, ab, shuffled = (_run(task, corpora[k]) for k in ("A", "B", "AB", "shuffled"))
    assert a.matrix.documents and len(ab.matrix.documents) == 2 * len(a.matrix.documents)
    for key in ab.counts.keys() | a.counts.keys():
        assert _close(ab.counts[key], a.counts[key] + b.counts[key]), key
    both = {**a.document_counts(), **b.document_counts()}
    assert ab.document_counts().keys() == both.keys()
    for document, counts in ab.document_counts().items():
        assert all(_close(v, both[document][k]) for k, v in counts.items()), document
    assert shuffled.document_counts().keys() == ab.document_counts().keys()
    for key in ab.counts.keys() | shuffled.counts.keys():
        assert _close(shuffled.counts[key], ab.counts[key]), key
    assert ab.scores.keys() == shuffled.scores.keys()
    assert all(_close(shuffled.scores[k], v) for k, v in ab.scores.items())


# --- a perfect system ------------------------------------------------------------------------

HIGHER_IS_BETTER = re.compile(
    r"(^|_)(precision|recall|f1|f_pr|f_2pr|f_p2r|map|success_rate|conll_f1)$"
)


def _perfect_trec(gold: Path, target: Path) -> Path:
    lines = []
    for line in gold.read_text(encoding="utf-8").splitlines():
        query, _, document, relevance = line.split()
        lines.append(f"{query} Q0 {document} 0 {relevance} perfect\n")
    target.write_text("".join(lines), encoding="utf-8")
    return target


def _perfect_codiesp_x(gold: Path, target: Path) -> Path:
    lines = []
    for line in gold.read_text(encoding="utf-8").splitlines():
        document, label, code, _, position = line.split("\t")
        lines.append(f"{document}\t{position}\t{label}\t{code}\n")
    target.write_text("".join(lines), encoding="utf-8")
    return target


def _perfect_are_pairs(gold: Path, target: Path) -> Path:
    """Pairs linking every pronoun of a gold chain to the chain's first non-pronoun (tasks 1
    and 3: by id, or by start and end)."""
    text = gold.read_text(encoding="utf-8")
    pairs = []
    for chain in re.findall(r"<chain[^>]*>(.*?)</chain>", text, re.S):
        members = re.findall(r"<(node|mention)\b([^>]*?)/>", chain)
        heads = [m for m in members if 'type="pronoun"' not in m[1]]
        for _kind, attributes in members:
            if 'type="pronoun"' in attributes and heads:
                where = re.sub(r'\s*(value|type)="[^"]*"', "", attributes)
                head = re.sub(r'\s*(value|type)="[^"]*"', "", heads[0][1])
                pairs.append(f"<pair><pronoun{where}/><antecedent{head}/></pair>")
    body = "\n".join(pairs)
    identity = re.search(r'<document id="[^"]*"', text)
    assert identity is not None
    target.write_text(f'<?xml version="1.0"?>\n{identity.group(0)}>\n{body}\n</document>\n')
    return target


def _perfect_are_chains(gold: Path, target: Path) -> Path:
    text = gold.read_text(encoding="utf-8").replace(' type="pronoun"', "")
    target.write_text(text, encoding="utf-8")
    return target


def _perfect_templates(gold: Path, target: Path) -> Path:
    """A key written as a response: the first of each fill's alternatives, no optional
    markers, minimal strings in full."""
    lines = []
    for line in gold.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if stripped.startswith("/") or stripped.startswith("OBJ_STATUS"):
            continue
        line = re.sub(r":\s*/\s*", ": ", line).replace("[", "").replace("]", "")
        if " / " in line:
            line = line.split(" / ")[0]
        lines.append(line + "\n")
    target.write_text("".join(lines), encoding="utf-8")
    return target


PERFECT: dict[str, Callable[[Path, Path], Path]] = {
    "muc-template-element": _perfect_templates,
    "muc-template-relation": _perfect_templates,
    "muc-scenario-template": _perfect_templates,
    "trec": _perfect_trec,
    "codiesp-x": _perfect_codiesp_x,
    "are-1": _perfect_are_pairs,
    "are-2": _perfect_are_chains,
    "are-3": _perfect_are_pairs,
    "are-4": _perfect_are_chains,
}
"""How the gold standard is written as a system where the two formats differ (the others give
the gold file or folder itself)."""


PERFECT_OPTIONS: dict[str, dict[str, Any]] = {"codiesp-x": {"filter_gold": True}}
"""Official settings under which a perfect system cannot score 1, changed for this test: the
CodiEsp-X sample's gold holds codes outside the valid lists, which the official script keeps in
the gold standard (``--filter-gold`` drops them) but removes from the predictions."""

NOT_ONE = {
    "nlpsandbox-person": ("type_precision", "type_recall", "type_f1"),
    "nlpsandbox-all": ("person_type_precision", "person_type_recall", "person_type_f1"),
}
"""Scores a perfect system cannot reach on the sample: its person annotations carry no
``personType``, and an absent type never matches (nlpsandbox.md)."""


@pytest.mark.parametrize("name", NAMES)
def test_a_perfect_system_scores_one(name: str, tmp_path: Path) -> None:
    task = TASKS[name]
    gold, system, options = sample_paths(task)
    options.update(PERFECT_OPTIONS.get(name, {}))
    perfect = PERFECT.get(name)
    if perfect is not None:
        target = tmp_path / f"perfect{system.suffix}"
        system = perfect(gold, target)
    elif gold.is_dir():
        system = tmp_path / "perfect"
        shutil.copytree(gold, system)
    else:
        system = gold
    result = task.run(gold, system, **options)
    scored = {
        k: v
        for k, v in result.scores.items()
        if HIGHER_IS_BETTER.search(k) and k not in NOT_ONE.get(name, ())
    }
    assert scored, f"{name}: no higher-is-better score among {list(result.scores)}"
    assert all(v is None or v == pytest.approx(1.0) for v in scored.values()), scored


# --- options and the signature ---------------------------------------------------------------


def _another(spec: OptionField) -> Any:
    """A valid value of the option other than its default, or ``None`` if there is none
    (``...``: the option takes no other value worth checking here)."""
    default, low, high = spec.default, spec.setting.low, spec.setting.high
    if spec.kind == "bool":
        return not default
    if spec.kind == "int":
        if default is None:
            return int(low) if low is not None else 1
        up = default + 1
        return up if high is None or up <= high else default - 1
    if spec.kind == "float":
        value = 0.5 if default != 0.5 else 0.25
        return value
    if spec.kind == "choice":
        others = [c for c in spec.choices if c != str(getattr(default, "value", default))]
        return others[0] if others else ...
    if spec.kind == "names":  # a declared name, if the option declares them
        names = [(c,) for c in spec.choices] or [("x",), ("y",)]
        return next(name for name in names if name != default)
    if spec.kind == "text":
        return "x" if default != "x" else "y"
    return ...  # paths: the data, not a setting


OPTION_CASES = [
    (name, spec.name)
    for name, task in TASKS.items()
    for spec in fields(task.options_class())
    if not spec.setting.fixed
]


@pytest.mark.parametrize(("name", "option"), OPTION_CASES)
def test_each_option_moves_the_signature_exactly_when_declared_to(name: str, option: str) -> None:
    task = TASKS[name]
    cls = task.options_class()
    spec = next(s for s in fields(cls) if s.name == option)
    value = _another(spec)
    if value is ...:
        assert not spec.setting.moves, f"{name} {option}: a path or text that moves a number"
        return
    # a required option (a file the task reads) takes the sample's value
    given = {s.name: sample_paths(task)[2][s.name] for s in fields(cls) if s.setting.required}
    try:
        changed = cls.from_values({**given, option: value})
    except Exception as error:  # a value this option refuses: try its other bound
        pytest.fail(f"{name} {option}={value!r} refused: {error}")
    before, after = cls.from_values(given).signature(name), changed.signature(name)
    assert (before != after) is spec.setting.moves, (name, option, str(before), str(after))
