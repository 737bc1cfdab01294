"""Every example a user is shown works as shown.

- Every ``annoscore ...`` line in a shell block of ``README.md`` and ``docs/*.md``, and every
  example in a command's ``--help`` epilog, names a real sub-command, real options spelled as
  shown, valid choices and the right number of arguments (checked against the Click command tree
  of :data:`annoscore.cli.app`, without running anything heavy).
- Every ``--help`` epilog example runs (exit 0) on the built-in samples, its placeholder file
  names replaced by the sample files they stand for, and names the files of its own sub-command.
- The README's Python API snippet runs on the PharmaCoNER sample, and every ``annoscore.x.y``
  name the README and docs mention exists.
- The numbers the README quotes for the samples are what the commands print.
"""

from __future__ import annotations

import fnmatch
import importlib
import json
import re
import shlex
import shutil
from collections.abc import Iterator
from itertools import product
from pathlib import Path
from typing import Any

import pytest
import typer

import annoscore
from annoscore.cli import app
from annoscore.errors import InputError
from annoscore.samples import SAMPLES

from .conftest import SHARED_DATA, Cli

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


# --- collecting the examples -------------------------------------------------------------------


def _blocks(path: Path, languages: tuple[str, ...]) -> Iterator[tuple[int, str]]:
    """(first line number, text) of each fenced block whose language is in ``languages``."""
    fence = re.compile(r"^```(\w*)\s*$")
    language: str | None = None
    start, lines = 0, list[str]()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = fence.match(line)
        if match and language is None:
            language, start, lines = match.group(1), number + 1, []
        elif line.startswith("```") and language is not None:
            if language in languages:
                yield start, "\n".join(lines)
            language = None
        elif language is not None:
            lines.append(line)


def _commands(text: str) -> Iterator[str]:
    """Every ``annoscore ...`` command of a shell text: continuations joined, comments and the
    other commands of an ``&&`` chain dropped."""
    for line in text.replace("\\\n", " ").splitlines():
        for part in line.split("&&"):
            part = part.strip()
            if part.startswith("annoscore"):
                yield part


def doc_examples() -> list[tuple[str, str]]:
    """(where, command) for every ``annoscore`` line of the README's and docs' code blocks."""
    found = []
    for path in DOCS:
        for start, text in _blocks(path, ("sh", "bash", "console", "")):
            for command in _commands(text):
                found.append((f"{path.name}:{start}", command))
    return found


def _root() -> Any:
    command = typer.main.get_command(app)
    assert _is_group(command)
    return command


def _is_group(command: Any) -> bool:
    return hasattr(command, "list_commands")


def _walk(command: Any, ctx: Any, words: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield words, command
    if _is_group(command):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None, name
            if not sub.hidden:
                child = typer.Context(sub, info_name=name, parent=ctx)
                yield from _walk(sub, child, (*words, name))


def every_command() -> list[tuple[tuple[str, ...], Any]]:
    root = _root()
    return list(_walk(root, typer.Context(root, info_name="annoscore"), ()))


def epilog_examples() -> list[tuple[str, str]]:
    """(command path, example) for every ``annoscore ...`` example of every ``--help`` epilog."""
    found = []
    for words, command in every_command():
        epilog = " ".join((command.epilog or "").split())
        # "Example: annoscore a ...  annoscore b ... (diff with: ...)  |  annoscore c ..."
        epilog = re.sub(r"\([^()]*\)", " ", epilog)
        for piece in re.split(r"(?=\bannoscore )", epilog):
            piece = piece.strip().rstrip("|").strip()
            if piece.startswith("annoscore "):
                # prose after the example ("JSON scores are ...") starts with a capital letter
                kept: list[str] = []
                for word in piece.split():
                    if kept and word[:1].isupper() and not word.startswith(("D", "P", "X")):
                        break
                    kept.append(word)
                found.append((" ".join(("annoscore", *words)), " ".join(kept)))
    return found


# --- checking one command line against the Click tree ------------------------------------------


def _alternatives(words: list[str]) -> Iterator[list[str]]:
    """``date|person`` and ``contain|symmetric`` stand for each choice in turn."""
    for choice in product(*(w.split("|") if "|" in w else [w] for w in words)):
        yield list(choice)


def _clean(command: str) -> list[str]:
    command = command.split(" #")[0]
    words = shlex.split(command)
    assert words[0] == "annoscore", command
    out = []
    for word in words[1:]:
        if word == "...":  # "annoscore codiesp D ... --missing-docs zero": arguments left out
            out.append(word)
            continue
        out.append(word.strip("[]"))
    return out


def check_command_line(command: str) -> None:
    """The sub-command exists, every option is one of its options with a valid value, and the
    number of positional arguments fits (a ``...`` stands for arguments left out)."""
    for words in _alternatives(_clean(command)):
        root = _root()
        ctx = typer.Context(root, info_name="annoscore")
        current = root
        while _is_group(current):
            assert words, f"{command!r}: a group without its sub-command"
            name = words.pop(0)
            sub = current.get_command(ctx, name)
            assert sub is not None, f"{command!r}: no sub-command {name!r}"
            ctx = typer.Context(sub, info_name=name, parent=ctx)
            current = sub
        options: dict[str, Any] = {}
        for param in current.params:
            if param.param_type_name == "option":
                for flag in (*param.opts, *param.secondary_opts):
                    options[flag] = param
        arguments = [p for p in current.params if p.param_type_name == "argument"]
        positional: list[str] = []
        elided = False
        queue = list(words)
        while queue:
            word = queue.pop(0)
            if word == "...":
                elided = True
            elif word.startswith("-") and word != "-" and not re.fullmatch(r"-?\d+(\.\d+)?", word):
                name, equals, value = word.partition("=")
                assert name in options, f"{command!r}: {ctx.command_path} has no option {name}"
                option = options[name]
                if option.is_flag or option.count:
                    assert not equals, f"{command!r}: {name} takes no value"
                    continue
                if not equals:
                    assert queue, f"{command!r}: {name} needs a value"
                    value = queue.pop(0)
                if option.type.name not in ("path", "file", "filename"):
                    option.type.convert(value, option, ctx)  # a bad choice or number raises
            else:
                positional.append(word)
        if ctx.command_path == "annoscore compare" and positional:
            # the task exists and takes every --option NAME=VALUE shown
            from annoscore.cli.compare import parse_options
            from annoscore.tasks.registry import get

            items = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--option"]
            parse_options(items, get(positional[0]))
        for argument, value in zip(arguments, positional, strict=False):
            if argument.type.name not in ("path", "file", "filename"):
                argument.type.convert(value, argument, ctx)
        least = sum(max(a.nargs, 1) for a in arguments if a.required)
        most = None if any(a.nargs == -1 for a in arguments) else sum(a.nargs for a in arguments)
        if not elided:
            assert len(positional) >= least, f"{command!r}: {least} argument(s) needed"
        assert most is None or len(positional) <= most, f"{command!r}: too many arguments"


# --- the tests of the command lines -------------------------------------------------------------


def test_the_docs_and_every_help_have_examples() -> None:
    """The collectors find what is there (a broken collector would pass every test below)."""
    assert len(doc_examples()) >= 40
    where = {w for w, _ in epilog_examples()}
    assert {"annoscore codiesp D", "annoscore codiesp P", "annoscore codiesp X"} <= where
    assert {"annoscore are", "annoscore coref", "annoscore muc", "annoscore compare"} <= where
    assert {f"annoscore nlpsandbox {c}" for c in ("date", "location", "all")} <= where


@pytest.mark.parametrize(("where", "command"), doc_examples())
def test_every_documented_command_line_parses(where: str, command: str) -> None:
    check_command_line(command)


@pytest.mark.parametrize(("where", "command"), epilog_examples())
def test_every_help_example_parses(where: str, command: str) -> None:
    assert command.startswith(where), f"the help of {where!r} shows another command: {command!r}"
    check_command_line(command)


@pytest.mark.parametrize(
    "command",
    [
        "annoscore spans g s --mode fuzzy",
        "annoscore spans g s --no-such-flag",
        "annoscore codiesp Q --gold g",
        "annoscore coref k",
        "annoscore trec q r extra",
        "annoscore are 5 --gold g --pred p",
        "annoscore compare spans g a b --option mode=fuzzy",
        "annoscore compare spans g a b --option tokenizer=whitespace",
        "annoscore codiesp X --gold g --pred p --codes-d d --codes-p p --tolerance-mode wide",
    ],
)
def test_the_command_line_check_catches_a_wrong_example(command: str) -> None:
    with pytest.raises((AssertionError, typer.BadParameter, InputError)):
        check_command_line(command)


@pytest.mark.parametrize(("where", "command"), epilog_examples())
def test_a_help_example_names_the_files_of_its_own_sub_command(where: str, command: str) -> None:
    """``annoscore codiesp P --help`` once showed ``--gold gs_D.tsv ... --codes codes-D.tsv``."""
    if where.startswith("annoscore codiesp "):
        subtask = where.split()[-1]
        for name in re.findall(r"\S+\.tsv", command):
            if name.startswith(("codes-D", "codes-P")) and subtask == "X":
                continue
            assert re.search(rf"[_-]{subtask}\.tsv$", name), f"{where}: {command}"


# --- running the help examples on the samples ---------------------------------------------------


def _copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target


def materialise(where: str, command: str, tmp: Path) -> list[str]:
    """The example's arguments with its placeholder names replaced by the sample files."""
    pharma = SAMPLES / "pharmaconer"
    gold1, system1 = pharma / "gold/subtrack1/sample", pharma / "system/subtrack1/sample"
    words = _clean(command)
    family = where.split()[1]
    common: dict[str, Path | str] = {
        "gold.json": SAMPLES / "nlpsandbox/gold.json",
        "pred.json": SAMPLES / "nlpsandbox/pred.json",
        "key.conll": SAMPLES / "coref/key.conll",
        "response.conll": SAMPLES / "coref/response.conll",
        "qrels.txt": SAMPLES / "trec/qrels.txt",
        "run.txt": SAMPLES / "trec/run.txt",
    }
    for name in ("gs", "pred"):
        for subtask in "DPX":
            common[f"{name}_{subtask}.tsv"] = SAMPLES / f"codiesp/{name}_{subtask}.tsv"
    for subtask in "DP":
        common[f"codes-{subtask}.tsv"] = SAMPLES / f"codiesp/codes-{subtask}.tsv"
    muc = SAMPLES / "muc"
    common.update(
        {
            "te.config": muc / "te.config",
            "ne.config": muc / "ne.config",
            "key.tpl": muc / "key.synthetic.tpl",
            "response.tpl": muc / "response.synthetic.tpl",
            "key.sgml": muc / "co.key.sgml",
            "rsp.sgml": muc / "co.response.sgml",
            "ne.summary": tmp / "ne.summary",
        }
    )
    if family in ("pharmaconer", "spans", "compare", "report"):
        common.update(
            {
                "gold/subtrack1": gold1,
                "system/subtrack1": system1,
                "gold/": gold1,
                "system/": system1,
                "run1/": system1,
                "gold.ann": gold1 / "S0004-06142005000500011-1.ann",
                "system.ann": system1 / "S0004-06142005000500011-1.ann",
            }
        )
        if "run2/" in words:
            run2 = _copy(system1, tmp / "run2")
            (run2 / "S0004-06142005000900013-1.ann").write_text("", encoding="utf-8")
            common["run2/"] = run2
        if "ref/subtask2" in words:
            codalab = SHARED_DATA / "pharmaconer/codalab/subtask2/input"
            if not codalab.exists():
                pytest.skip(f"conformance data not found at {codalab}")
            common["ref/subtask2"] = codalab / "ref/subtask2"
            common["res/subtask2"] = codalab / "res/subtask2"
            common["ref/subtask1"] = codalab / "ref/subtask1"
    if family in ("conlleval", "seqeval"):
        for name in ("tagged.txt", "tagged.tsv", "gold.conll", "system.conll"):
            common[name] = SAMPLES / "bio" / name
        common["gold-tags.json"] = SAMPLES / "bio/gold-tags.json"
        common["pred-tags.json"] = SAMPLES / "bio/pred-tags.json"
    if family == "are":
        task = words[1]
        first = "task1" if task in "12" else "task3"
        common.update(
            {
                "gold.xml": SAMPLES / f"are/{first}-gold.xml",
                "input.xml": SAMPLES / f"are/{first}-input.xml",
                "run1.xml": SAMPLES / f"are/task{task}-system.xml",
            }
        )
        for side, name in (("gold/", f"{first}-gold.xml"), ("run1/", f"task{task}-system.xml")):
            folder = tmp / side.rstrip("/")
            folder.mkdir()
            shutil.copy(SAMPLES / "are" / name, folder / "d1.xml")
            common[side] = folder
    out = [str(common.get(word, word)) for word in words]
    unknown = [w for w in out if re.search(r"\.(tsv|json|conll|txt|xml|ann|tpl|sgml)$", w)]
    assert all(Path(w).exists() for w in unknown), f"no sample for {unknown} in {command!r}"
    return out


@pytest.mark.parametrize(("where", "command"), epilog_examples())
def test_every_help_example_runs_on_the_samples(
    where: str, command: str, cli: Cli, tmp_path: Path
) -> None:
    for i, words in enumerate(_alternatives(materialise(where, command, tmp_path))):
        out = tmp_path / f"output{i}"
        result = cli(*words, *(["-o", out] if words[0] not in ("demo", "convert") else []))
        assert result.exit_code == 0, f"{command!r}: {result.output}"
        if "json" in words:
            assert json.loads(out.read_text(encoding="utf-8"))["scores"]


# --- the Python API -----------------------------------------------------------------------------


def _python_block(heading: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_readme_python_api_snippet_runs_on_the_sample(tmp_path: Path) -> None:
    snippet = _python_block("Python API")
    pharma = SAMPLES / "pharmaconer"
    run2 = _copy(pharma / "system/subtrack1/sample", tmp_path / "run2")
    (run2 / "S0004-06142005000900013-1.ann").write_text("", encoding="utf-8")
    paths = {
        '"gold/subtrack1"': pharma / "gold/subtrack1/sample",
        '"run1/subtrack1"': pharma / "system/subtrack1/sample",
        '"run2/subtrack1"': run2,
    }
    for placeholder, path in paths.items():
        assert placeholder in snippet, placeholder
        snippet = snippet.replace(placeholder, repr(str(path)))
    # each expression statement's value is kept, to check what its comment says
    values: list[Any] = []
    namespace: dict[str, Any] = {"_keep": values.append}
    lines = []
    for line in snippet.splitlines():
        code = line.split("  #")[0].rstrip()
        if code and not code.startswith("import") and "=" not in code.split("(")[0]:
            code = f"_keep(({code}))"
        lines.append(code)
    exec(compile("\n".join(lines), "README.md", "exec"), namespace)
    r = namespace["r"]
    f1, tp = values[0]
    assert (f1, tp) == (r.scores["f1"], r.counts["tp"]) and 0 < f1 < 1 and tp > 0
    assert values[1].counts["tp"] >= 0  # a document's scores and counts
    low, high = values[4]
    assert low <= r.scores["f1"] <= high
    assert 0 < values[5] <= 1  # a p-value
    assert set(values[6]) == set(annoscore.list_tasks()) and "pharmaconer-ner" in values[6]


def test_every_annoscore_name_in_the_docs_exists() -> None:
    names = set()
    for path in DOCS:
        names |= set(re.findall(r"\bannoscore(?:\.[A-Za-z_]\w*)+", path.read_text("utf-8")))
    assert "annoscore.tasks.trec.score_trec" in names
    for name in sorted(names):
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj: Any = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for part in parts[cut:]:
                assert hasattr(obj, part), f"{name}: {part} not found"
                obj = getattr(obj, part)
            break


def test_the_readme_python_functions_take_the_arguments_it_shows() -> None:
    from annoscore.tasks.codiesp import RankedOptions, score_codiesp_d, score_codiesp_p
    from annoscore.tasks.trec import TrecOptions, score_trec

    codiesp = SAMPLES / "codiesp"
    gold, pred = codiesp / "gs_D.tsv", codiesp / "pred_D.tsv"
    d = score_codiesp_d(gold, pred, RankedOptions(codes=codiesp / "codes-D.tsv"))
    assert (
        annoscore.score("codiesp-d", gold, pred, codes=codiesp / "codes-D.tsv").to_dict()
        == d.to_dict()
    )
    options = RankedOptions(codes=codiesp / "codes-P.tsv")
    p = score_codiesp_p(codiesp / "gs_P.tsv", codiesp / "pred_P.tsv", options)
    assert p.task == "codiesp-p"
    trec = score_trec(
        SAMPLES / "trec/qrels.txt",
        SAMPLES / "trec/run.txt",
        TrecOptions(complete=False, relevance_level=1),
    )
    same = annoscore.score("trec", SAMPLES / "trec/qrels.txt", SAMPLES / "trec/run.txt")
    assert trec.scores["map"] == same.scores["map"]


# --- the numbers the README quotes ---------------------------------------------------------------


def test_the_readme_json_example_is_the_pharmaconer_sample_output(cli: Cli) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = json.loads(text.split("```json\n", 1)[1].split("```", 1)[0])
    pharma = SAMPLES / "pharmaconer"
    data = cli.json(
        "pharmaconer", "ner", pharma / "gold/subtrack1/sample", pharma / "system/subtrack1/sample"
    )
    assert data == shown


def test_the_readme_codiesp_toy_numbers(cli: Cli) -> None:
    codiesp = SAMPLES / "codiesp"
    d = cli.json(
        "codiesp", "D", "--gold", codiesp / "gs_D.tsv", "--pred", codiesp / "pred_D.tsv",
        "--codes", codiesp / "codes-D.tsv",
    )  # fmt: skip
    shown = [round(d["scores"][k], 3) for k in ("map", "precision", "recall", "f1")]
    assert shown == [0.444, 0.444, 0.4, 0.421]
    x = cli.json(
        "codiesp", "X", "--gold", codiesp / "gs_X.tsv", "--pred", codiesp / "pred_X.tsv",
        "--codes-d", codiesp / "codes-D.tsv", "--codes-p", codiesp / "codes-P.tsv",
    )  # fmt: skip
    assert x["counts"]["tp"] == 7
    assert x["counts"]["tp"] + x["counts"]["fp"] == x["counts"]["tp"] + x["counts"]["fn"] == 13


def test_the_nlpsandbox_text_tables_are_the_ones_the_readme_names(cli: Cli) -> None:
    """The tables the official never computed follow the four official ones, under the titles
    the README gives them."""
    sandbox = SAMPLES / "nlpsandbox"
    titles = {}
    for category in ("date", "person", "location"):
        result = cli(
            "nlpsandbox", category, "--gold", sandbox / "gold.json", "--pred", sandbox / "pred.json"
        )
        assert result.exit_code == 0, result.output
        titles[category] = [
            line.split()[0] for line in result.stdout.splitlines() if "Recall" in line.split()
        ]
    assert titles["date"] == ["instance", "instance", "date", "token", "dateFormat"]
    assert titles["person"] == ["instance", "instance", "person", "token", "personType"]
    assert titles["location"] == ["instance", "instance", "location", "token", "hipaa"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert all(f"`{t}`" in readme for t in ("dateFormat", "personType", "hipaa"))


def test_the_samples_readme_names_every_sample_file() -> None:
    """``src/annoscore/samples/README.md`` says what each shipped file is (``trec/`` and the
    CodiEsp P pair were once missing)."""
    text = (SAMPLES / "README.md").read_text(encoding="utf-8")
    named = re.findall(r"`([^`]+)`", text)
    for folder in sorted(p for p in SAMPLES.iterdir() if p.is_dir() and p.name != "__pycache__"):
        assert f"`{folder.name}/`" in text, folder.name
        for path in sorted(folder.iterdir()):
            if path.is_file():
                assert any(
                    fnmatch.fnmatchcase(path.name, n) or fnmatch.fnmatchcase(path.stem, n)
                    for n in named
                ), f"{folder.name}/{path.name} is not described"


def test_every_python_call_annoscore_demo_prints_runs(cli: Cli) -> None:
    """``annoscore demo`` prints ``# annoscore.score('codiesp-d', <samples>/..., codes=...)``
    above each task: with ``<samples>`` read as the samples folder, each call runs as printed
    (the path options once showed a bare ``'codes-D.tsv'``, which is no such file)."""
    result = cli("demo")
    assert result.exit_code == 0, result.output
    calls = re.findall(r"^\$ annoscore .*?# (annoscore\.score\(.*\))$", result.stdout, re.M)
    assert len(calls) == len(annoscore.list_tasks())
    for call in calls:
        code = re.sub(r"<samples>/([^,)]+)", lambda m: repr(str(SAMPLES / m.group(1))), call)
        scored = eval(code, {"annoscore": annoscore})
        assert scored.scores, call


def test_the_task_names_the_compare_help_shows_are_registered() -> None:
    """``annoscore compare --help`` once sent users to ``annoscore demo`` for the task names,
    which it does not list; the names it gives now are real ones."""
    compare = dict(every_command())[("compare",)]
    (task,) = [p for p in compare.params if p.name == "task"]
    shown = re.findall(r"\b[a-z]+(?:-[a-z]+)*\b", task.help.split("e.g.", 1)[1].split("(")[0])
    assert shown and set(shown) <= set(annoscore.list_tasks()), shown


def test_the_readme_in_memory_examples_run_as_shown() -> None:
    """The README's ``pycon`` block (scoring data in memory) is a doctest: each output shown is
    the one printed."""
    import doctest

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Python API\n", 1)[1].split("\n## ", 1)[0]
    block = section.split("```pycon\n", 1)[1].split("```", 1)[0]
    test = doctest.DocTestParser().get_doctest(block, {}, "README.md", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False) == (0, len(test.examples))
    assert len(test.examples) >= 8
