"""The gold standard as the submission that scores best, for the tasks whose gold is not itself
one (``Task.solution`` names the function here; ``annoscore codabench init`` writes its output
as the bundle's ``solutions/``).

Each function is ``(gold, target, options) -> notes``: it reads ``gold`` (the file or folder the
task reads) with the format's own reader, writes the submission into the folder ``target`` with
:mod:`annoscore.formats.writers`, and returns the reasons the best score the task's rules allow
is below 1.0 (none when the submission scores 1.0):

- ``trec``: qrels are judgements, not a ranking: the run ranks each query's relevant documents
  (judged at least ``relevance_level`` and at least 0).  A query with no relevant document is
  left out of the run (trec_eval averages over the run's queries); under ``complete`` it counts
  with AP 0, and under ``max_docs`` a query with more relevant documents than the cut cannot
  reach AP 1.
- ``codiesp-x``: the gold has 5 columns (with the reference text), a prediction 4: one
  prediction per (document, code) pair at its first reference's position ("one reference is
  enough").  A gold code outside the valid lists cannot be predicted (the official script drops
  such predictions) unless ``filter_gold`` drops it from the gold too.
- MUC template tasks: a key may hold alternatives (``/``), optional slots and objects and
  ``[minimum]`` strings, which only keys may hold: the response takes each slot's first
  alternative with the minimum's brackets removed, and every object.
- ARE tasks 1 and 3: the gold holds chains, the output pairs: each pronoun to resolve is paired
  with a noun phrase of its gold chain.  A pronoun in no chain or alone in one earns 0; one
  whose chain has no noun phrase earns 0.5 at most (are.md, decision 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from annoscore.errors import InputError
from annoscore.templates import TemplateDocument, TemplateFill, TemplateObject, TemplateSlot


def _write(target: Path, name: str, data: str | bytes) -> None:
    target.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        (target / name).write_bytes(data)
    else:
        (target / name).write_text(data, encoding="utf-8")


def _best(value: float) -> str:
    return f"{value:.4f}".rstrip("0").rstrip(".")


# --- trec --------------------------------------------------------------------------------------


def trec_solution(gold: Path, target: Path, options: Any) -> list[str]:
    """The run of the qrels ``gold`` that scores the best MAP (see the module doc).

    >>> import tempfile
    >>> from annoscore.tasks.trec import TrecOptions
    >>> work = Path(tempfile.mkdtemp())
    >>> _ = (work / "qrels").write_text("q1 0 d1 1\\nq1 0 d2 0\\nq2 0 d3 0\\n")
    >>> trec_solution(work / "qrels", work / "out", TrecOptions())
    []
    >>> print((work / "out" / "run.txt").read_text(), end="")
    q1 Q0 d1 1 1 gold
    """
    from annoscore.formats.trec import read_qrels
    from annoscore.formats.writers import trec_run_text

    qrels = read_qrels(gold)
    level = max(int(options.relevance_level), 0)
    relevant: dict[int, dict[bytes, None]] = {q: {} for q in range(len(qrels.queries))}
    for row, (query, value) in enumerate(
        zip(qrels.query.tolist(), qrels.value.tolist(), strict=True)
    ):
        if value >= level:
            relevant[query].setdefault(qrels.document(row), None)
    rankings = [(qrels.queries[q], list(docs)) for q, docs in relevant.items() if docs]
    _write(target, "run.txt", trec_run_text(rankings))
    notes: list[str] = []
    empty = len(qrels.queries) - len(rankings)
    cut = options.max_docs
    precisions = [min(len(d), cut or len(d)) / len(d) for _, d in rankings]
    if options.complete and empty:
        notes.append(
            f"{empty} judged query(ies) have no relevant document: with complete (-c) each "
            "counts with AP 0"
        )
        precisions += [0.0] * empty
    if cut is not None and any(p < 1 for p in precisions):
        notes.append(
            f"{sum(0 < p < 1 for p in precisions)} query(ies) have more relevant documents than "
            f"max_docs (-M {cut}) keeps"
        )
    if notes and precisions:
        notes.append(f"the best map is {_best(sum(precisions) / len(precisions))}")
    return notes


# --- codiesp-x ---------------------------------------------------------------------------------


def codiesp_x_solution(gold: Path, target: Path, options: Any) -> list[str]:
    """The CodiEsp-X predictions of the gold ``gold`` (see the module doc)."""
    from annoscore.formats.codiesp import read_gold_reference_file, read_valid_code_file
    from annoscore.formats.writers import codiesp_x_text

    valid: set[str] = set()
    for path, name in ((options.codes_d, "codes_d"), (options.codes_p, "codes_p")):
        if path is None:
            raise InputError(f"codiesp-x needs the option {name} (a valid-code TSV)")
        valid |= read_valid_code_file(path).codes
    references = read_gold_reference_file(gold, lowercase=False).references
    chosen: dict[tuple[str, str], Any] = {}
    invalid: set[tuple[str, str]] = set()
    for reference in references:
        code = reference.code.lower() if options.lowercase else reference.code
        key = (reference.document, code)
        if code not in valid:
            invalid.add(key)
        else:
            chosen.setdefault(key, reference)
    _write(target, gold.name, codiesp_x_text(list(chosen.values())))
    if not invalid or options.filter_gold:
        return []
    recall = len(chosen) / (len(chosen) + len(invalid))
    return [
        f"{len(invalid)} gold (document, code) pair(s) have a code outside the valid lists "
        "(codes_d, codes_p), whose predictions the official script drops (recall at most "
        f"{_best(recall)}): the best f1 is {_best(2 * recall / (1 + recall))}"
    ]


# --- MUC templates -----------------------------------------------------------------------------


def _response_slot(slot: TemplateSlot) -> TemplateSlot:
    fills = next((a for a in slot.alternatives if a), ())
    return TemplateSlot(
        slot.name, (tuple(TemplateFill(f.text, f.is_pointer) for f in fills),), line=slot.line
    )


def muc_template_solution(gold: Path, target: Path, options: Any) -> list[str]:
    """The MUC response template file of the key ``gold`` (see the module doc): each slot's
    first non-empty alternative, every object.

    >>> import tempfile
    >>> from annoscore.samples import SAMPLES
    >>> from annoscore.tasks.muc import TemplateOptions
    >>> work = Path(tempfile.mkdtemp())
    >>> muc = SAMPLES / "muc"
    >>> options = TemplateOptions(config=muc / "te.config")
    >>> muc_template_solution(muc / "key.synthetic.tpl", work, options)
    []
    >>> print((work / "key.synthetic.tpl").read_text().splitlines()[10])
        ORG_DESCRIPTOR: "a maker of industrial widgets"
    """
    from annoscore.formats.muc_config import read_muc_config
    from annoscore.formats.muc_template import read_templates
    from annoscore.formats.writers import response_templates_text

    if options.config is None:
        raise InputError("a MUC template task needs its configuration file (config)")
    status_slot = read_muc_config(options.config).value("optional_status_slot")
    keys = read_templates(gold, keys_syntax=True, status_slot=status_slot)
    responses = [
        TemplateDocument(
            document.id,
            tuple(
                TemplateObject(
                    o.id,
                    o.class_name,
                    o.document,
                    o.number,
                    tuple(_response_slot(s) for s in o.slots),
                    line=o.line,
                )
                for o in document.objects
            ),
            document.path,
        )
        for document in keys
    ]
    _write(target, gold.name, response_templates_text(responses))
    return []


# --- ARE tasks 1 and 3 -------------------------------------------------------------------------

Attributes = dict[str, str]


def _chains(f: Any, index: int, by_span: bool) -> list[list[tuple[Attributes, bool]]]:
    """The chains of document ``index`` of the gold file ``f``: each member's attributes (as
    written) and whether the gold marks it a pronoun."""
    from annoscore.align.are_documents import item_starts

    starts = item_starts(f, index)
    first_chain, member = starts["chains"], starts["members"]
    chains = []
    for size in f.chain_sizes[first_chain : first_chain + int(f.chain_counts[index])].tolist():
        chain = []
        for k in range(member, member + size):
            if by_span:
                attributes = {
                    "start": f.text(int(f.members.start[k])),
                    "end": f.text(int(f.members.end[k])),
                }
            else:
                attributes = {"id": f.text(int(f.members.id[k]))}
            chain.append((attributes, bool(f.pronominal[k])))
        chains.append(chain)
        member += size
    return chains


def _listed(placed: Any) -> tuple[bool, list[str]]:
    """Whether the input document has an ``<anaphoric_pronouns>`` list, and its ids."""
    from annoscore.align.are_documents import item_starts

    if placed is None:
        return False, []
    f, index = placed.file, placed.index
    first = item_starts(f, index)["listed"]
    codes = f.listed[first : first + int(f.listed_sizes[index])].tolist()
    return bool(f.has_list[index]), [f.text(int(c)) for c in codes]


def _pairs(
    chains: list[list[tuple[Attributes, bool]]], pronouns: Sequence[str]
) -> tuple[list[tuple[Attributes, Attributes]], list[float]]:
    """A pair for each pronoun (named as :func:`_name` names them, in order) with a noun phrase
    of its chain (else another pronoun of it), and the credit each pronoun can earn."""
    where: dict[str, list[tuple[Attributes, bool]]] = {}
    for chain in chains:
        for attributes, _ in chain:
            where.setdefault(_name(attributes), chain)
    pairs: list[tuple[Attributes, Attributes]] = []
    credits: list[float] = []
    for pronoun in dict.fromkeys(pronouns):
        chain = where.get(pronoun, [])
        others = [(a, flag) for a, flag in chain if _name(a) != pronoun]
        nouns = [a for a, flag in others if not flag]
        if nouns or others:
            own = next(a for a, _ in chain if _name(a) == pronoun)
            pairs.append((own, nouns[0] if nouns else others[0][0]))
        credits.append(1.0 if nouns else 0.5 if others else 0.0)
    return pairs, credits


def _name(attributes: Mapping[str, str]) -> str:
    return attributes["id"] if "id" in attributes else f"{attributes['start']}-{attributes['end']}"


def _are_solution(task: int, gold: Path, target: Path, options: Any) -> list[str]:
    from annoscore.align.are_documents import collect_documents
    from annoscore.formats.writers import are_pairs_text

    corpus, _ = collect_documents(gold, gold, options.input_path, needs_input=True)
    files: dict[Path, list[tuple[str | None, list[tuple[Attributes, Attributes]]]]] = {}
    every: list[float] = []
    for document in corpus.documents:
        placed = document.gold
        if placed is None:
            continue
        f = placed.file
        chains = _chains(f, placed.index, by_span=task == 3)
        if task == 1:
            has_list, pronouns = _listed(document.input)
            if not has_list:  # the gold's pronouns that share a chain (are.md, decision 3)
                pronouns = [_name(a) for c in chains if len(c) > 1 for a, flag in c if flag]
            listed = set(pronouns)  # pronominal: marked in the gold or listed (decision 2)
            chains = [[(a, flag or _name(a) in listed) for a, flag in c] for c in chains]
        else:
            pronouns = [_name(a) for c in chains for a, flag in c if flag]
        pairs, credits = _pairs(chains, pronouns)
        if task == 3:
            credits = [c for c in credits if c > 0]  # the recall counts the resolvable ones
        every += credits
        files.setdefault(f.path, []).append((f.keys[placed.index], pairs))
    for path, documents in files.items():
        _write(target, path.name, are_pairs_text(documents))
    short = [c for c in every if c < 1]
    if not short:
        return []
    none, half = sum(c == 0 for c in short), sum(c == 0.5 for c in short)
    headline = "success_rate" if task == 1 else "f1"
    parts = []
    if none:
        parts.append(f"{none} pronoun(s) to resolve are in no gold chain or alone in one (0)")
    if half:
        parts.append(f"{half} pronoun(s) are in chains without a noun phrase (0.5 at most)")
    return [f"{'; '.join(parts)}: the best {headline} is {_best(sum(every) / len(every))}"]


def are_1_solution(gold: Path, target: Path, options: Any) -> list[str]:
    """ARE task 1's pairs of the gold chains ``gold`` (see the module doc).

    >>> import tempfile
    >>> from annoscore.samples import SAMPLES
    >>> from annoscore.tasks.are import Are1Options
    >>> work = Path(tempfile.mkdtemp())
    >>> are = SAMPLES / "are"
    >>> are_1_solution(are / "task1-gold.xml", work,
    ...                Are1Options(input_path=are / "task1-input.xml"))
    []
    >>> print((work / "task1-gold.xml").read_text().splitlines()[3])
    <pair id="p1"><pronoun id="2"/><antecedent id="1"/></pair>
    """
    return _are_solution(1, gold, target, options)


def are_3_solution(gold: Path, target: Path, options: Any) -> list[str]:
    """ARE task 3's pairs of the gold chains ``gold`` (see the module doc)."""
    return _are_solution(3, gold, target, options)
