"""``annoscore convert muc-sgml FILE --out DIR``: MUC SGML task files to brat standoff.

So the same named entity (or coreference) files can be scored by the MUC scorer
(``annoscore muc``) and by the generic span modes (``annoscore spans``, CoNLL-style strict,
overlap, SemEval ...) in one run::

    annoscore convert muc-sgml key.sgml --out gold/ --config ne.config
    annoscore convert muc-sgml response.sgml --out system/ --config ne.config
    annoscore spans gold/ system/ --mode strict

One ``DOCNUM.txt`` (the document with the task's tags removed: the text the MUC offsets count)
and one ``DOCNUM.ann`` per document.  Existing files are not overwritten unless ``--force``; an
input file never is.  Every file is written into a temporary folder first and moved into place
only when all are written (:func:`write_files`), so a full disk or an interrupt leaves no
partial file and no half-converted folder.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import shutil
import tempfile
import typing
from pathlib import Path
from typing import Annotated

import typer

from annoscore.cli.common import choice, guarded, tell
from annoscore.errors import InputError
from annoscore.formats.annotations import Answer, OffsetUnit, ReaderOptions

OFFSET_UNITS = typing.get_args(OffsetUnit)


def _new_mode() -> int:
    """What ``mkdir`` gives a new folder: 0o777 less the umask."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o777 & ~mask


def write_files(out: Path, planned: list[tuple[Path, str]]) -> None:
    """Write each ``(name in out, text)`` through a temporary folder: beside ``out`` when it does
    not exist (the folder is then renamed to ``out``, so it appears whole), inside it otherwise
    (each file then renamed into ``out``).  On any error the temporary folder is removed, and so
    are the parent folders this call created."""
    created: list[Path] = []  # parent folders made here, deepest last
    parent = out.parent if str(out.parent) else Path(".")
    for folder in reversed(out.parents):
        if str(folder) not in ("", ".") and not folder.exists():
            created.append(folder)
    try:
        new = not out.exists()
        try:
            parent.mkdir(parents=True, exist_ok=True)
            if not new and not out.is_dir():
                raise FileExistsError(17, "Not a directory")
            staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=parent if new else out))
        except OSError as error:
            raise InputError(f"cannot create the folder: {error.strerror}", out) from None
        try:
            for path, text in planned:
                try:
                    with (staging / path.name).open("w", encoding="utf-8", newline="") as handle:
                        handle.write(text)
                except OSError as error:
                    raise InputError(f"cannot write: {error.strerror}", path) from None
            try:
                if new:
                    staging.chmod(_new_mode())
                    staging.rename(out)
                else:
                    for path, _ in planned:
                        os.replace(staging / path.name, path)
            except OSError as error:
                raise InputError(f"cannot write: {error.strerror}", out) from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    except BaseException:
        for folder in reversed(created):
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


def _check_targets(planned: list[tuple[Path, str]], inputs: set[Path], force: bool) -> None:
    """Refuse (:class:`InputError`) to write over an input, a folder, or a file unless forced."""
    for path, _ in planned:
        if path.resolve() in inputs:
            raise InputError("refusing to overwrite an input file", path)
        if path.is_dir():
            raise InputError("is a folder: cannot write the file", path)
        if path.exists() and not force:
            raise InputError("exists; use --force to overwrite", path)


HELP = (
    "Convert annotation files between formats: annoscore convert FROM TO INPUT OUTPUT (brat, "
    "bioc-xml, bioc-json, pubtator, i2b2-xml, prodigy-jsonl, spacy-jsonl, conll-bio, "
    "nlpsandbox-json), and MUC "
    "SGML to brat standoff (annoscore convert muc-sgml FILE --out DIR)."
)
Force = Annotated[bool, typer.Option("--force", help="Overwrite existing output files.")]


def register(app: typer.Typer) -> None:
    convert = typer.Typer(help=HELP, no_args_is_help=True)
    app.add_typer(convert, name="convert")

    @convert.command(
        "muc-sgml",
        help="Write a brat .txt/.ann pair per document of a MUC SGML named entity (ENAMEX, "
        "TIMEX, NUMEX) or coreference (COREF) file, offsets as the MUC scorer counts them.",
    )
    @guarded
    def muc_sgml(
        source: Annotated[Path, typer.Argument(help="The SGML key or response file.")],
        out: Annotated[
            Path, typer.Option("--out", help="Folder for the .txt and .ann files (created).")
        ],
        config: Annotated[
            Path | None,
            typer.Option(
                "--config",
                help="MUC configuration (:scoring_task, :class_defs, :doc_sections, :sgml_*); "
                "default: the manual's named entity defaults.",
            ),
        ] = None,
        task: Annotated[
            str | None, typer.Option("--task", help="named_entity or coreference (ne, co).")
        ] = None,
        force: Force = False,
    ) -> None:
        from annoscore.formats.muc_sgml_objects import brat_annotation
        from annoscore.tasks.muc import load_config
        from annoscore.tasks.muc_sgml import read_task_file, sgml_slots

        if config is None and task is None:
            task = "named_entity"
        cfg = load_config(config, task)
        if cfg.scoring_task not in ("named_entity", "coreference"):
            raise InputError(f":scoring_task {cfg.scoring_task} is not an SGML task", cfg.path)
        coreference = cfg.scoring_task == "coreference"
        gids = [c.name.upper() for c in cfg.class_defs]
        if coreference:
            gids = gids[:1]
        documents = read_task_file(cfg, source, gids)
        inputs = {source.resolve(), *(p.resolve() for p in ([config] if config else []))}
        slots = sgml_slots(cfg)
        planned: list[tuple[Path, str]] = []
        for number, document in documents.items():
            ann = brat_annotation(document, gids, slots=slots, coreference=coreference)
            planned.append((out / f"{number}.txt", document.text))
            planned.append((out / f"{number}.ann", ann))
        _check_targets(planned, inputs, force)
        write_files(out, planned)
        tell("note", f"{len(documents)} documents written to {out}")

    from annoscore.formats.annotations import FORMATS

    for source_format in FORMATS:
        _register_format(convert, source_format)


def _register_format(convert: typer.Typer, source_format: str) -> None:
    """``annoscore convert FROM TO INPUT OUTPUT`` for one ``FROM`` (a sub-command per format
    name, beside ``muc-sgml``)."""
    from annoscore.formats.annotations import FORMATS

    targets = [f for f in FORMATS if f != "spacy-docbin"]

    def convert_format(
        target: Annotated[str, typer.Argument(help="The format to write.", metavar="TO")],
        source: Annotated[Path, typer.Argument(help="The file (or brat folder) to read.")],
        output: Annotated[Path, typer.Argument(help="The file (or folder) to write.")],
        force: Force = False,
        offsets: Offsets = "chars",
        answers: Answers = None,
    ) -> None:
        from annoscore.formats.annotations import read_corpus
        from annoscore.formats.writers import write_annotations, write_warnings

        if target not in targets:
            raise InputError(f"cannot write {target!r}; TO is one of {', '.join(targets)}")
        unit = typing.cast(OffsetUnit, offsets)  # one of OFFSET_UNITS: the flag's parser checks
        options = ReaderOptions(offsets=unit, answers=_answers(answers))
        corpus = read_corpus(source, source_format, options)
        for warning in corpus.warnings:
            tell("warning", warning)
        documents = list(corpus.documents.values())
        files = write_annotations(documents, target)
        for warning in write_warnings(documents, target):
            tell("warning", warning)
        planned = [(output if name == "" else output / name, text) for name, text in files]
        _check_targets(planned, {source.resolve()}, force)
        if len(files) == 1 and files[0][0] == "":
            _write_file(output, files[0][1])
        else:
            write_files(output, planned)
        tell("note", f"{len(documents)} documents written to {output} as {target}")

    # --offsets for BioC input only, --answers for Prodigy JSONL only (the command's flags)
    own = {"bioc-xml": "offsets", "bioc-json": "offsets", "prodigy-jsonl": "answers"}
    signature = inspect.signature(convert_format, eval_str=True)
    convert_format.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[
            p
            for p in signature.parameters.values()
            if p.name not in ("offsets", "answers") or own.get(source_format) == p.name
        ]
    )
    convert.command(
        source_format,
        help=f"Convert {source_format} to another format: annoscore convert {source_format} TO "
        f"INPUT OUTPUT (TO: {', '.join(targets)}; brat and i2b2-xml write a folder, the others "
        "one file).  Offsets, types, mention and concept ids are kept; what TO cannot hold is an "
        "error, never a silent loss.",
    )(guarded(convert_format))


Offsets = Annotated[
    str,
    typer.Option(
        "--offsets",
        help="What the BioC offsets count: chars, utf8-bytes, or auto (chars, unless a "
        "document's annotation texts match only at UTF-8 byte offsets: then bytes, and a warning "
        "says so).",
        **choice(OFFSET_UNITS),
    ),
]
Answers = Annotated[
    list[str] | None,
    typer.Option(
        "--answers",
        help="The Prodigy answers whose lines are kept (accept, reject, ignore; comma-separated; "
        "default: accept); the others are left out, and a warning counts them.",
    ),
]


def _answers(values: list[str] | None) -> tuple[Answer, ...]:
    """``--answers`` (repeated, or comma-separated) as the Prodigy reader takes them."""
    known = typing.get_args(Answer)
    names = [part.strip() for value in values or () for part in value.split(",") if part.strip()]
    for name in names:
        if name.lower() not in known:
            raise InputError(f"--answers: {name!r} is not one of {', '.join(known)}")
    return tuple(typing.cast(Answer, name.lower()) for name in names) or ("accept",)


def _write_file(path: Path, text: str) -> None:
    """``text`` to ``path`` through a temporary file beside it (so it appears whole)."""
    parent = path.parent if str(path.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        handle, staging = tempfile.mkstemp(prefix=f".{path.name}.", dir=parent)
    except OSError as error:
        raise InputError(f"cannot write: {error.strerror}", path) from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        os.chmod(staging, 0o666 & _new_mode())
        os.replace(staging, path)
    except OSError as error:
        raise InputError(f"cannot write: {error.strerror}", path) from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(staging)
