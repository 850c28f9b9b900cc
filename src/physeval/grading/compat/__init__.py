"""Official scorers reproduced bug for bug, kept apart from physeval's own graders.

``abench``: the official ABench-Physics evaluator's verdicts (``grade_numeric(..., compat="abench")``).
The PHYBench pipeline's conversions live with the LaTeX normalisation
(:func:`physeval.answers.latex` ``compat="phybench"``).
"""
