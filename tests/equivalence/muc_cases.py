"""Random adversarial MUC inputs for the differential tests (tests/equivalence/test_muc*.py).

Each generator writes what a user gives ``annoscore muc``: a configuration and a key and a
response file, small (a few documents of a few objects or tags) so that thousands run in
seconds, and built to reach every path of the readers and the aligner:

- :func:`template_case` (TE, TR, ST): weights and thresholds that sit exactly on a reachable
  weighted score (``0.07 x 100 = 7``), negative thresholds (every pair a candidate), string
  rules with overlapping postmodifiers, multi-word premodifiers and designators, ``[minimum]``
  strings, sets differing in case, pointers (dangling ones too) and equatable classes,
  alternatives, optional slots and objects, key2key, documents on one side only with ids from
  the adversarial pools of :mod:`tests.equivalence.ids`, and a layout that is all common lines
  (the reader's scan) or not (continuation lines, comments, CR LF, U+2028 in a quoted fill:
  the checked parser);
- :func:`ne_case`: nested, empty, equal and touching tags of a few types and texts repeated
  across documents (isolated pairs seen before, isolated pairs met for the first time, pairs
  with ``ALT`` that only the full comparison scores, pairs that compete), sections and section
  groups, optional tags, attribute values from the id pools, texts that differ between key and
  response, tags outside the sections, thresholds an agreeing pair does not exceed;
- :func:`co_case`: markables with ids from the id pools (``-`` in them too), REF chains and
  REF alternatives, MIN strings that occur in the text or not, nested markables, optional ones.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tests.equivalence.ids import id_pool, split_sides

WEIGHTS = ("100", "1", "0.07", "0", "0.1", "4", "33.3")
THRESHOLDS = (
    *("0", "0", "0", "40", "-1", "7", "14", "50", "100", "0.7", "35", "133.3"),
    *("6.9999999999", "7.0000000001"),
)


@dataclass(frozen=True)
class Case:
    """One generated case: the configuration's text and the two files' texts."""

    config: str
    key: str
    response: str
    text_filter: str = "agreement"


# --------------------------------------------------------------------------- templates

STRINGS = (
    "Acme Inc.",
    "acme",
    "the acme",
    "Acme  Corp",
    "Beta Co",
    "beta",
    "s a beta",
    "S.A. Beta",
    "ab",
    "ba",
    "abab",
    "of the acme",
    "\u03a9mega",
    "\u03c9mega",
    "x\u2028y",
    "x y",
    "ACME INC",
)
KEY_STRINGS = (*STRINGS, "[acme] inc", "the [beta]", "[x] y", "acme [inc]")
SETS = ("x", "X", "y", "\u03a9", "\u03c9", "COMPANY", "company")


def _quoted(text: str) -> str:
    return f'"{text}"'


def _fills(rng: random.Random, kind: str, keys: bool, targets: list[str], n: int) -> list[str]:
    out = []
    for _ in range(n):
        if kind == "pointer":
            if targets and rng.random() < 0.9:
                out.append(f"<{rng.choice(targets)}>")
            else:
                out.append("<A-nowhere-9>")
        elif kind == "set":
            out.append(rng.choice(SETS))
        else:
            out.append(_quoted(rng.choice(KEY_STRINGS if keys else STRINGS)))
    return out


@dataclass(frozen=True)
class _SlotSpec:
    name: str
    kind: str
    target: str = ""
    """The class a pointer slot points to."""


def template_case(rng: random.Random) -> Case:
    """A random TE, TR or ST case (see the module docstring)."""
    task = rng.choice(("template_element", "template_relation", "scenario_template"))
    key2key = rng.random() < 0.1
    classes: dict[str, list[_SlotSpec]] = {
        "A": [_SlotSpec("NAME", "string"), _SlotSpec("TYPE", "set"), _SlotSpec("NOTE", "string")],
        "B": [_SlotSpec("NAME", "string"), _SlotSpec("KIND", "set")],
    }
    if rng.random() < 0.5:
        classes["A"].append(_SlotSpec("ALIAS", "string"))
    if task != "template_element":
        classes["R"] = [
            _SlotSpec("ARG", "pointer", "A"),
            _SlotSpec("ARG2", "pointer", "B"),
            _SlotSpec("KIND", "set"),
        ]
    if task == "scenario_template":
        classes["TEMPLATE"] = [_SlotSpec("CONTENT", "pointer", "R")]
    lines = [f":scoring_task {task}", ":key_file key.tpl", ":response_file response.tpl"]
    lines.append(":class_defs")
    for name in classes:
        threshold = rng.choice(THRESHOLDS) if name in ("A", "B") else rng.choice(("0", "-1"))
        lines.append(f'    "{name}  {name.lower()}  scored  {threshold}"')
    lines.append(":slot_defs")
    for name, slots in classes.items():
        for slot in slots:
            scored = "unscored" if slot.name == "NOTE" else "scored"
            weight = rng.choice(WEIGHTS)
            kind = slot.target if slot.kind == "pointer" else slot.kind
            lines.append(
                f'    "{name}  {slot.name}  {slot.name.lower()}  {scored}  {weight}  {kind}"'
            )
    for option, values in (
        (":premodifiers", ("the", "a", '"of the"', "an")),
        (":postmodifiers", ('"."', '","', "ab", "ba", "b")),
        (":corporate_designators", ("inc", "co", '"s a"', "corp", '"inc co"')),
    ):
        chosen = [v for v in values if rng.random() < 0.4]
        if chosen:
            lines.append(f"{option} {' '.join(rng.sample(chosen, len(chosen)))}")
    lines.append(
        f":stringfill_correct_comparison {rng.choice(('CLEAN', 'CLEAN', 'STRAIGHTENED', 'ORIG'))}"
    )
    lines.append(
        ":stringfill_partial_comparison "
        + rng.choice(("NONE", "NONE", "CLEAN", "STRAIGHTENED", "ORIG"))
    )
    if rng.random() < 0.3:
        lines.append(f":equatable_objects {' '.join(rng.sample(['A', 'B'], rng.randint(1, 2)))}")
    if key2key:
        lines.append(":scoring_method key2key")
    config = "\n".join(lines) + "\n"

    pool = id_pool(rng, rng.randint(1, 4), forbidden="<> \t", numeric=True)
    key_docs, rsp_docs = split_sides(rng, pool)
    common = rng.random() < 0.5  # only common lines: the reader's scan
    key = _template_file(rng, classes, key_docs, True, common, task)
    rsp = _template_file(rng, classes, rsp_docs, key2key, common, task)
    text_filter = rng.choice(("agreement", "relevance"))
    return Case(config, key, rsp, text_filter)


def _template_file(
    rng: random.Random,
    classes: dict[str, list[_SlotSpec]],
    documents: list[str],
    keys_syntax: bool,
    common: bool,
    task: str,
) -> str:
    out: list[str] = []
    for doc in documents:
        made: dict[str, list[str]] = {}
        for cls, slots in classes.items():
            count = rng.randint(0, 1 if cls == "TEMPLATE" else 4)
            if cls == "TEMPLATE" and rng.random() < 0.1:
                count = 2
            made[cls] = [f"{cls}-{doc}-{n}" for n in range(1, count + 1)]
            for ident in made[cls]:
                out.append(f"<{ident}> :=")
                for slot in slots:
                    if rng.random() < 0.15:
                        continue  # no such slot
                    targets = made.get(slot.target, [])
                    out.extend(_slot_lines(rng, slot, keys_syntax, common, targets))
                if keys_syntax and not common and rng.random() < 0.1:
                    out.append("  OBJ_STATUS: OPTIONAL")
                if not common and rng.random() < 0.1:
                    out.append(rng.choice(["", "; a comment", "   "]))
    if not out:
        return ""
    ending = "\r\n" if rng.random() < 0.15 else "\n"
    return ending.join(out) + (ending if rng.random() < 0.9 else "")


def _slot_lines(
    rng: random.Random, slot: _SlotSpec, keys_syntax: bool, common: bool, targets: list[str]
) -> list[str]:
    if common:  # one fill or none, plain: a line the scan reads
        fills = _fills(rng, slot.kind, False, targets, rng.choice((0, 1, 1, 1)))
        fills = [f for f in fills if f.startswith(('"', "<")) or f.isascii()]
        return [f"  {slot.name}: {' '.join(fills)}".rstrip()]
    first = _fills(rng, slot.kind, keys_syntax, targets, rng.choice((0, 1, 1, 2)))
    optional = "/ " if keys_syntax and rng.random() < 0.15 else ""
    lines = [f"  {slot.name}: {optional}{' '.join(first)}".rstrip()]
    if rng.random() < 0.2:  # a continuation line: more fills of the same multi-fill
        lines.append("        " + " ".join(_fills(rng, slot.kind, keys_syntax, targets, 1)))
    if keys_syntax:
        for _ in range(rng.choice((0, 0, 0, 1, 2))):  # alternatives
            more = _fills(rng, slot.kind, True, targets, rng.choice((0, 1, 1, 2)))
            lines.append("        / " + " ".join(more))
    return lines


# --------------------------------------------------------------------------- named entities

NE_TYPES = {"ENAMEX": ("PERSON", "LOCATION"), "TIMEX": ("DATE",), "NUMEX": ("MONEY", "money")}
NE_WORDS = ("Acme", "Bank", "of", "May", "the", "\u00c9mile", "x\u2028y")


def ne_case(rng: random.Random) -> Case:
    """A random named entity case (see the module docstring)."""
    sections = rng.choice((("TXT",), ("HL", "TXT"), ("TXT", "TRAILER")))
    lines = [":scoring_task named_entity", ":key_file key.sgml", ":response_file response.sgml"]
    lines.append(f":doc_sections {' '.join(sections)}")
    if rng.random() < 0.2 and len(sections) > 1:
        lines.append(f':doc_section_groups "Body {sections[-1]}" "All {" ".join(sections)}"')
    if rng.random() < 0.5:
        lines.append(":class_defs")
        for gid in NE_TYPES:
            lines.append(f'    "{gid.lower()}  {gid.lower()}  scored  {rng.choice(THRESHOLDS)}"')
        lines.append(":slot_defs")
        for gid in NE_TYPES:
            for slot, kind in (("type", "set"), ("text", "string")):
                weight = rng.choice(("4", "4", "0", "1", "0.07"))
                lines.append(f'    "{gid.lower()}  {slot}  {slot}  scored  {weight}  {kind}"')
            if rng.random() < 0.5:
                lines.append(f'    "{gid.lower()}  status  status  unscored  0  set"')
            if rng.random() < 0.3:
                lines.append(f'    "{gid.lower()}  alt  alt  unscored  0  string"')
    if rng.random() < 0.2:
        lines.append(':ne_subtask_names "enamex type person" "numex type money"')
    if rng.random() < 0.1:
        lines.append(":scoring_method key2key")
    config = "\n".join(lines) + "\n"
    numbers = [str(n) for n in rng.sample(range(100), rng.randint(1, 4))]
    key_docs, rsp_docs = split_sides(rng, numbers)
    values = id_pool(rng, 3, forbidden="\"'<>&*|", numeric=False)
    words = (*NE_WORDS, *rng.sample(values, 1))
    key: list[str] = []
    rsp: list[str] = []
    for number in dict.fromkeys([*key_docs, *rsp_docs]):
        k, r = _ne_document(rng, number, sections, words, values)
        if number in key_docs:
            key.append(k)
        if number in rsp_docs:
            rsp.append(r)
    return Case(config, "".join(key), "".join(rsp))


def _ne_document(
    rng: random.Random,
    number: str,
    sections: tuple[str, ...],
    words: tuple[str, ...],
    values: list[str],
) -> tuple[str, str]:
    head = f"<DOC>\n<DOCNO> {number} </DOCNO>\n"
    key, rsp = [head], [head]
    if rng.random() < 0.1:  # a tag outside every section
        key.append('<ENAMEX TYPE="PERSON">Out</ENAMEX>\n')
        rsp.append("Out\n")
    for section in sections:
        key.append(f"<{section}>\n")
        rsp.append(f"<{section}>\n")
        for _ in range(rng.randint(0, 8)):
            k, r = _ne_item(rng, words, values)
            key.append(k + " ; ")
            rsp.append(r + " ; ")
        if rng.random() < 0.05:
            rsp.append("extra text ")  # the texts differ outside the tags
        key.append(f"\n</{section}>\n")
        rsp.append(f"\n</{section}>\n")
    key.append("</DOC>\n")
    rsp.append("</DOC>\n")
    return "".join(key), "".join(rsp)


def _ne_item(rng: random.Random, words: tuple[str, ...], values: list[str]) -> tuple[str, str]:
    text = " ".join(rng.choice(words) for _ in range(rng.randint(1, 2)))
    gid = rng.choice(sorted(NE_TYPES))
    kind = rng.choice(NE_TYPES[gid]) if rng.random() < 0.9 else rng.choice(values)
    other = rng.choice(NE_TYPES[gid])
    extra = ""
    if rng.random() < 0.1:
        extra += ' STATUS="OPT"'
    if rng.random() < 0.1:
        extra += f' ALT="{text.split()[0]}|{rng.choice(words)}"'
    if rng.random() < 0.05:
        extra += f' NOTE="{rng.choice(values)}"'  # an attribute no slot defines
    exact = f'<{gid} TYPE="{kind}"{extra}>{text}</{gid}> w'
    k = rng.choice(
        [
            *[exact] * 6,
            f"<{gid}></{gid}>{text} w",  # an empty span
            f'<{gid} TYPE="{kind}">{text} w</{gid}>',
            f'<{gid} TYPE="{kind}"><{gid} TYPE="{other}">{text}</{gid}> w</{gid}>',
            f"{text} w",
        ]
    )
    plain = f'<{gid} TYPE="{kind}">{text}</{gid}> w'
    r = rng.choice(
        [
            *[plain] * 4,
            f"{text} w",
            f'<{gid} TYPE="{other}">{text}</{gid}> w',
            f"<{gid}></{gid}>{text} w",
            f'<{gid} TYPE="{kind}">{text}</{gid}> <{gid} TYPE="{kind}">w</{gid}>',
            f'<{gid} TYPE="{kind}"><{gid} TYPE="{other}">{text}</{gid}> w</{gid}>',
            f'<{gid} TYPE="{kind}">{text} w</{gid}>',
        ]
    )
    return k, r


# --------------------------------------------------------------------------- coreference

CO_WORDS = ("the", "firm", "Acme", "it", "she", "Jane Doe", "\u00e9t\u00e9", "a\u2028b")


def co_case(rng: random.Random) -> Case:
    """A random coreference case (see the module docstring)."""
    lines = [":scoring_task coreference", ":key_file key.sgml", ":response_file response.sgml"]
    lines.append(":doc_sections TXT")
    if rng.random() < 0.1:
        lines.append(":scoring_method key2key")
    config = "\n".join(lines) + "\n"
    numbers = [str(n) for n in rng.sample(range(100), rng.randint(1, 3))]
    key_docs, rsp_docs = split_sides(rng, numbers)
    key: list[str] = []
    rsp: list[str] = []
    for number in dict.fromkeys([*key_docs, *rsp_docs]):
        k, r = _co_document(rng, number)
        if number in key_docs:
            key.append(k)
        if number in rsp_docs:
            rsp.append(r)
    return Case(config, "".join(key), "".join(rsp))


def _co_document(rng: random.Random, number: str) -> tuple[str, str]:
    ids = id_pool(rng, 12, forbidden="\"'<>&*| \t", numeric=True)
    rsp_ids = id_pool(rng, 12, forbidden="\"'<>&*| \t", numeric=True)
    head = f"<DOC>\n<DOCNO> {number} </DOCNO>\n<TXT>\n"
    key, rsp = [head], [head]
    key_seen: list[str] = []
    rsp_seen: list[str] = []
    n = rng.randint(0, min(len(ids), len(rsp_ids), 8))
    for index in range(n):
        words = [rng.choice(CO_WORDS) for _ in range(rng.randint(1, 3))]
        text = " ".join(words)
        kid, rid = ids[index], rsp_ids[index]
        attributes = f' ID="{kid}"'
        if key_seen and rng.random() < 0.6:
            refs = rng.sample(key_seen, min(len(key_seen), rng.choice((1, 1, 1, 2))))
            attributes += f' REF="{"|".join(refs)}"'
        if rng.random() < 0.6:
            minimum = rng.choice(words) if rng.random() < 0.85 else "nowhere"
            if rng.random() < 0.1:
                minimum += f"|{rng.choice(words)}"
            attributes += f' MIN="{minimum}"'
        if rng.random() < 0.1:
            attributes += ' STATUS="OPT"'
        inner_key = f"<COREF{attributes}>{text}</COREF>"
        if rng.random() < 0.15:  # a markable inside another
            outer = ids[n + index] if n + index < len(ids) else None
            if outer is not None:
                inner_key = f'<COREF ID="{outer}">{inner_key} too</COREF>'
                key_seen.append(outer)
        key_seen.append(kid)
        u = rng.random()
        r_attributes = f' ID="{rid}"'
        if rsp_seen and rng.random() < 0.6:
            r_attributes += f' REF="{rng.choice(rsp_seen)}"'
        if u < 0.1:
            inner_rsp = text
        elif u < 0.3:  # only the last word
            inner_rsp = " ".join(words[:-1]) + f" <COREF{r_attributes}>{words[-1]}</COREF>"
            rsp_seen.append(rid)
        else:
            inner_rsp = f"<COREF{r_attributes}>{text}</COREF>"
            rsp_seen.append(rid)
        if inner_key.endswith(" too</COREF>"):
            inner_rsp += " too"
        key.append(inner_key + " w ")
        rsp.append(inner_rsp.strip() + " w ")
    key.append("\n</TXT>\n</DOC>\n")
    rsp.append("\n</TXT>\n</DOC>\n")
    return "".join(key), "".join(rsp)
