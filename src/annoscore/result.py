"""What every task returns: scores, the counts behind them, warnings and optional detail tables.

The JSON contract (``docs``: ../shared/spec/cli.md) is :meth:`Result.to_json_dict`:
``task``, ``signature``, ``scores`` (flat name -> fraction or ``null``), ``counts`` (flat name ->
integer statistic), ``warnings`` and, when asked for, ``documents`` (per-document scores and
counts) and ``types`` (per-type scores and counts).  ``details`` carries whatever a task's official
text layout needs beyond that; it is not part of the JSON unless the task puts it in ``extra``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from annoscore.counts import Counts
from annoscore.signature import Signature

Scores = dict[str, float | None]


@dataclass(slots=True)
class ScoredUnit:
    """Scores and counts of one document or one type."""

    scores: Scores
    counts: Counts

    def to_json_dict(self) -> dict[str, Any]:
        return {"scores": dict(self.scores), "counts": self.counts.as_dict()}


@dataclass(slots=True)
class Result:
    """The outcome of scoring one system against one gold standard."""

    task: str
    signature: Signature
    scores: Scores
    counts: Counts
    warnings: list[str] = field(default_factory=list)
    documents: dict[str, ScoredUnit] | None = None
    types: dict[str, ScoredUnit] | None = None
    averages: dict[str, Scores] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    details: Any = None

    def to_json_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "task": self.task,
            "signature": str(self.signature),
            "scores": dict(self.scores),
            "counts": self.counts.as_dict(),
            "warnings": list(self.warnings),
        }
        if self.averages:
            out["averages"] = {name: dict(s) for name, s in self.averages.items()}
        if self.types is not None:
            out["types"] = {k: v.to_json_dict() for k, v in self.types.items()}
        if self.documents is not None:
            out["documents"] = {k: v.to_json_dict() for k, v in self.documents.items()}
        out.update(self.extra)
        return out
