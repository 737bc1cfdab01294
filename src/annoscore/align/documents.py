"""Pairing gold documents with system documents by id.

Official scorers differ on documents present on one side only; :func:`pair_documents` makes the
policy explicit:

- ``ignore``: score only documents present on both sides (PharmaCoNER's official rule); the
  others contribute nothing.
- ``count``: also score a gold document without a system file (everything in it is missed) and a
  system document without gold (everything in it is spurious).

Either way the unpaired documents are listed, so the caller can warn with their number.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum


class MissingDocs(Enum):
    """What to do with a document that only one side has."""

    ignore = "ignore"
    count = "count"


@dataclass(frozen=True, slots=True)
class DocumentPairing:
    """Which document ids to score, and which were found on one side only (all sorted)."""

    scored: tuple[str, ...]
    gold_only: tuple[str, ...]
    system_only: tuple[str, ...]

    def warnings(self, policy: MissingDocs) -> list[str]:
        """Sentences naming how many documents were unpaired and what was done with them."""
        out = []
        effect = {
            MissingDocs.ignore: "left out of the score, as the official rule does",
            MissingDocs.count: "scored as if the other side were empty",
        }[policy]
        if self.gold_only:
            out.append(
                f"{len(self.gold_only)} gold document(s) have no system file and are {effect} "
                f"(first: {self.gold_only[0]})"
            )
        if self.system_only:
            out.append(
                f"{len(self.system_only)} system document(s) have no gold file and are {effect} "
                f"(first: {self.system_only[0]})"
            )
        return out


def pair_documents(
    gold_ids: Iterable[str], system_ids: Iterable[str], policy: MissingDocs
) -> DocumentPairing:
    """Pair documents by id under ``policy``."""
    gold, system = set(gold_ids), set(system_ids)
    both = gold & system
    gold_only = tuple(sorted(gold - system))
    system_only = tuple(sorted(system - gold))
    scored = both if policy is MissingDocs.ignore else gold | system
    return DocumentPairing(tuple(sorted(scored)), gold_only, system_only)
