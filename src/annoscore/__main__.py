"""``python -m annoscore``: the same as the ``annoscore`` command."""

from annoscore.cli import main

main()
