"""``python -m physeval.cli``: the command line."""

from physeval.cli import console_main

console_main()
