"""``python -m physeval``: the command line, exactly as the ``physeval`` console script."""


from physeval.cli import console_main

console_main()
