"""The papers' analyses over run stores: importable functions returning frozen, typed results.

One module per analysis, each light to import (numpy at most; scipy only inside the fit):

- :mod:`~physeval.analysis.run`: the :class:`~physeval.analysis.run.Run` value every analysis reads.
- :mod:`~physeval.analysis.runs`: a run directory read once (summary, rows, task, track).
- :mod:`~physeval.analysis.leaderboard`: ABench, PHYBench and SimuScene tables, in five formats.
- :mod:`~physeval.analysis.paired`: paired differences, exact sign-flip p-values and confidence,
  bootstrap intervals where valid, tiers.
- :mod:`~physeval.analysis.scaling`: pass@k / maj@k curves and the exponential-decay fit.
- :mod:`~physeval.analysis.outcomes`: why answers fail, per run and per model.
- :mod:`~physeval.analysis.lengths`: completion and reasoning token distributions, accuracy by length.
- :mod:`~physeval.analysis.matched`: downstream scene metrics on samples every run brought to a stage.
- :mod:`~physeval.analysis.robustness`: EED under other scoring constants (PHYBench C.2, Table 6).

Every number an analysis returns carries the count it stands on (``n``).
"""
