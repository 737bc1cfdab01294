"""What a Codabench bundle and the compute worker agree on: the image, the command, the
names of the bundle's files and the launcher ``score.py`` that runs annoscore in the worker
(``../shared/spec/campaign.md``)."""

from __future__ import annotations

IMAGE = "codalab/codalab-legacy:py312"
"""The pinned image: Python 3.12, numpy 1.26, scipy 1.11, PyYAML (campaign.md)."""
IMAGES_WITH_PYTHON_311 = frozenset({IMAGE})
"""Images known to run Python 3.11 or later."""
CONFIG = "annoscore-bundle.json"
COMMAND = "python3 $program/score.py $input $output"
KEY_LENGTH = 36
"""Codabench's limit on a column's key and title."""
PLACEHOLDERS = {
    "$predictions": "/app/input/res",
    "$program": "/app/program",
    "$hidden": "/app/input/ref",
    "$shared": "/app/shared",
    "$output": "/app/output",
    "$input": "/app/input",
    "$tmp": "/app/output/tmp",
}
"""The worker's legacy placeholders (longest first where one begins another)."""
IMAGE_PROVIDES = frozenset({"numpy", "scipy", "numpy.libs", "scipy.libs", "yaml", "_yaml"})
SHORTER = {"precision": "p", "recall": "r", "instance": "inst", "strict": "st", "relax": "rl"}

LAUNCHER = '''"""Codabench scoring program: annoscore {version}, vendored (task, options: {config}).

Run as the worker runs it: python3 score.py INPUT OUTPUT (defaults /app/input /app/output).
"""

import os
import sys

if sys.version_info < (3, 11):
    sys.stderr.write("annoscore needs Python 3.11 or later; this image has %s\\n" % sys.version)
    sys.exit(1)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "vendor"))
os.environ["ANNOSCORE_NLTK_ENGINE"] = "re"  # NLTK's rules on the stdlib's re: no regex package
sys.dont_write_bytecode = True

import importlib.util  # noqa: E402
import json  # noqa: E402

with open(os.path.join(HERE, "{config}"), encoding="utf-8") as config:
    image = json.load(config).get("image", {{}})
missing = [name for name in image if importlib.util.find_spec(name) is None]
if missing:
    needs = ", ".join(
        name + (" (needed by " + ", ".join(image[name]) + ")" if image[name] else "")
        for name in missing
    )
    sys.stderr.write("annoscore: error: the image lacks the compiled package(s) %s\\n" % needs)
    sys.exit(1)

from annoscore.cli import main  # noqa: E402

folders = sys.argv[1:3] or ["/app/input", "/app/output"]
main(["codabench", "score", *folders, "--config", os.path.join(HERE, "{config}")])
'''
