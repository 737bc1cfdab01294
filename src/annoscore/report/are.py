"""The text report of ``annoscore are``: for every pronoun or chain, what the system chose and
what it earned, then the corpus scores.

- Tasks 1 and 3: one line per pronoun (task 1: every pronoun of the input's list; task 3: every
  system pair, then every gold pronoun left unresolved): the pronoun, the system's antecedent,
  (task 3) the gold member m* it was scored against and their overlap, the credit and why.
- Tasks 2 and 4: one line per chain of two or more mentions, gold chains (recall) then system
  chains (precision): its members cut into parts by the other side's chains, (task 4) the mean
  overlap weight of each part, and what it earned of |chain| - 1.

Mentions (tasks 3, 4) print as their token ids, ``start..end`` (or one id for one token).
"""

from __future__ import annotations

from collections.abc import Hashable

from annoscore.metrics.anaphora_items import REASONS, AreDetails, DocumentExplanation
from annoscore.result import Result, Scores

TITLES = {
    1: "ARE 2007 task 1: pronoun resolution over entity ids, success rate",
    2: "ARE 2007 task 2: coreference chains over entity ids, MUC",
    3: "ARE 2007 task 3: pronoun resolution over token spans, overlap credit",
    4: "ARE 2007 task 4: coreference chains over token spans, fractional-credit MUC",
}


def _number(value: float) -> str:
    return f"{value:.4f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))


def _label(item: Hashable | None) -> str:
    return "-" if item is None else str(item)


def _pronoun_lines(document: DocumentExplanation, task: int) -> list[str]:
    lines = []
    for item in document.pronouns:
        pronoun = _label(item.pronoun)
        answer = _label(item.answer)
        against = ""
        if task == 3 and item.target is not None and item.overlap is not None:
            against = f"  vs {_label(item.target)} (overlap {_number(item.overlap)})"
        lines.append(
            f"  pronoun {pronoun} -> {answer}{against}: credit {_number(item.credit)}, "
            f"{REASONS.get(item.reason, item.reason)}"
        )
    return lines


def _chain_lines(document: DocumentExplanation, task: int) -> list[str]:
    lines = []
    for item in document.chains:
        other = "system" if item.side == "gold" else "gold"
        parts = []
        for part, weight in zip(item.parts, item.part_weights, strict=True):
            text = "{" + " ".join(_label(m) for m in part) + "}"
            if task == 4 and len(part) > 1:
                text += f" w={_number(weight)}"
            parts.append(text)
        lines.append(
            f"  {item.side} chain {item.chain + 1} ({len(item.members)} members) cut by the "
            f"{other} chains: {' '.join(parts)}: earns {_number(item.earned)} of {item.possible}"
        )
    return lines


def _scores(scores: Scores) -> str:
    return "  ".join(f"{k} {'-' if v is None else f'{v:.4f}'}" for k, v in scores.items())


def render_report(result: Result) -> str:
    """The text report (see the module doc); warnings go to stderr as for every task."""
    details = result.details
    lines = [
        TITLES.get(details.task, result.task) if isinstance(details, AreDetails) else result.task,
        f"signature: {result.signature}",
        "",
    ]
    if isinstance(details, AreDetails):
        for document in details.explanations():
            lines.append(f"document {document.key}")
            if details.task in (1, 3):
                body = _pronoun_lines(document, details.task)
                lines.extend(body or ["  (no pronoun to resolve and no system pair)"])
            else:
                body = _chain_lines(document, details.task)
                lines.extend(body or ["  (no chain of two or more mentions on either side)"])
            unit = result.documents.get(document.key)
            if unit is not None and result.view.documents:
                lines.append("  " + _scores(unit.scores))
            lines.append("")
    counts = ", ".join(f"{name} {_number(value)}" for name, value in result.counts.items())
    lines += ["TOTAL", f"counts: {counts}", f"scores: {_scores(result.scores)}"]
    return "\n".join(lines) + "\n"
