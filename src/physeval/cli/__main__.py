"""``python -m physeval.cli``: the command line."""

import sys

from physeval.cli import main

sys.exit(main())
