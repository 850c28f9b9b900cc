"""``python -m physeval``: the command line, exactly as the ``physeval`` console script."""

import sys

from physeval.cli import main

sys.exit(main())
