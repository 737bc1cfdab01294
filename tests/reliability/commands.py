"""Every invocation of the command-line contract's table (``shared/spec/cli.md``) on the built-in
samples: the contract audit (``tests/cli/test_contract_audit.py``) checks each, the fuzzer
(``tests/reliability/test_fuzz.py``) mutates their inputs.  Paths are relative to the samples."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Command:
    """One invocation of the cli.md table on the samples (paths relative to the samples)."""

    name: str
    words: tuple[str, ...]
    inputs: tuple[str, ...]
    """Every input path in ``words``, in order (``{0}``, ``{1}``, ... in ``words``)."""
    scores: tuple[str, ...]
    counts: tuple[str, ...] = ()

    def args(self, root: Path, replace: dict[int, Path] | None = None) -> list[str]:
        paths = [str(root / p) for p in self.inputs]
        for index, path in (replace or {}).items():
            paths[index] = str(path)
        return [w.format(*paths) for w in self.words]


PRF = ("precision", "recall", "f1")
TFN = ("tp", "fp", "fn")
NLPSANDBOX = tuple(
    f"{m}_{k}" for m in ("instance_relax", "instance_strict", "token_strict", "type") for k in PRF
)
COREF = (
    *(f"{m}_{k}" for m in ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea") for k in PRF),
    "conll_f1",
)
MUC = ("recall", "precision", "f_pr", "f_2pr", "f_p2r")
MUC_COUNTS = ("pos", "act", "cor", "par", "inc", "mis", "spu", "non")
SEMEVAL = tuple(f"{s}_{k}" for s in ("strict", "exact", "partial", "type") for k in PRF)
SEMEVAL_COUNTS = tuple(
    f"{s}_{c}" for s in ("strict", "exact", "partial", "type") for c in MUC_COUNTS[2:7]
)
NER = ("pharmaconer/gold/subtrack1/sample", "pharmaconer/system/subtrack1/sample")
INDEXING = ("pharmaconer/gold/subtrack2/sample", "pharmaconer/system/subtrack2/sample")
CODIESP_D = ("codiesp/gs_D.tsv", "codiesp/pred_D.tsv", "codiesp/codes-D.tsv")
CODIESP_P = ("codiesp/gs_P.tsv", "codiesp/pred_P.tsv", "codiesp/codes-P.tsv")
NLP_FILES = ("nlpsandbox/gold.json", "nlpsandbox/pred.json")
RANKED = ("--gold", "{0}", "--pred", "{1}", "--codes", "{2}")
GOLD_PRED = ("--gold", "{0}", "--pred", "{1}")
ARE_1 = ("are/task1-gold.xml", "are/task1-system.xml", "are/task1-input.xml")
ARE_3 = ("are/task3-gold.xml", "are/task3-system.xml", "are/task3-input.xml")

COMMANDS = [
    Command("codiesp-D", ("codiesp", "D", *RANKED), CODIESP_D, ("map", *PRF), TFN),
    Command("codiesp-P", ("codiesp", "P", *RANKED), CODIESP_P, ("map", *PRF), TFN),
    Command(
        "codiesp-X",
        ("codiesp", "X", *GOLD_PRED, "--codes-d", "{2}", "--codes-p", "{3}"),
        ("codiesp/gs_X.tsv", "codiesp/pred_X.tsv", "codiesp/codes-D.tsv", "codiesp/codes-P.tsv"),
        PRF,
    ),
    Command("pharmaconer-ner", ("pharmaconer", "ner", "{0}", "{1}"), NER, PRF, TFN),
    Command("pharmaconer-indexing", ("pharmaconer", "indexing", "{0}", "{1}"), INDEXING, PRF, TFN),
    Command(
        "pharmaconer-ner-codalab", ("pharmaconer", "ner", "{0}", "{1}", "--codalab"), NER, PRF, TFN
    ),
    Command(
        "pharmaconer-indexing-codalab",
        ("pharmaconer", "indexing", "{0}", "{1}", "--codalab", "--gold-ann", "{2}"),
        (*INDEXING, NER[0]),
        PRF,
        TFN,
    ),
    *(
        Command(
            f"nlpsandbox-{category}",
            ("nlpsandbox", category, *GOLD_PRED),
            NLP_FILES,
            NLPSANDBOX + (tuple(f"hipaa_{k}" for k in PRF) if category == "location" else ()),
        )
        for category in ("date", "person", "location", "id", "contact")
    ),
    *(
        Command(f"spans-{mode}", ("spans", "{0}", "{1}", "--mode", mode), NER, PRF, TFN)
        for mode in ("strict", "exact", "overlap", "relaxed", "token")
    ),
    Command(
        "spans-semeval", ("spans", "{0}", "{1}", "--mode", "semeval"), NER, SEMEVAL, SEMEVAL_COUNTS
    ),
    Command("trec", ("trec", "{0}", "{1}"), ("trec/qrels.txt", "trec/run.txt"), ("map",)),
    Command("trec-c", ("trec", "{0}", "{1}", "-c"), ("trec/qrels.txt", "trec/run.txt"), ("map",)),
    Command("coref", ("coref", "{0}", "{1}"), ("coref/key.conll", "coref/response.conll"), COREF),
    Command("muc-te", ("muc", "{0}"), ("muc/te.config",), MUC, MUC_COUNTS),
    Command(
        "muc-te-files",
        ("muc", "{0}", "--key", "{1}", "--response", "{2}"),
        ("muc/te.config", "muc/key.synthetic.tpl", "muc/response.synthetic.tpl"),
        MUC,
        MUC_COUNTS,
    ),
    Command(
        "muc-ne",
        ("muc", "{0}", "--key", "{1}", "--response", "{2}"),
        ("muc/ne.config", "muc/ne.key.sgml", "muc/ne.response.sgml"),
        MUC,
        MUC_COUNTS,
    ),
    Command(
        "muc-co",
        ("muc", "--task", "co", "--key", "{0}", "--response", "{1}"),
        ("muc/co.key.sgml", "muc/co.response.sgml"),
        MUC,
    ),
    Command("are-1", ("are", "1", *GOLD_PRED, "--input", "{2}"), ARE_1, ("success_rate",)),
    Command(
        "are-2",
        ("are", "2", *GOLD_PRED),
        ("are/task1-gold.xml", "are/task2-system.xml"),
        ("recall", "precision", "f1"),
    ),
    Command(
        "are-3", ("are", "3", *GOLD_PRED, "--input", "{2}"), ARE_3, ("recall", "precision", "f1")
    ),
    Command(
        "are-4",
        ("are", "4", *GOLD_PRED, "--input", "{2}"),
        ("are/task3-gold.xml", "are/task4-system.xml", "are/task3-input.xml"),
        ("recall", "precision", "f1"),
    ),
]
IDS = [c.name for c in COMMANDS]
BY_NAME = {c.name: c for c in COMMANDS}
