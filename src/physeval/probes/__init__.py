"""Probes beyond the final answer: PHYBench's chain-of-thought poisoning and a process judge.

* :mod:`physeval.probes.perturbations`: the rule catalogue that injects one error into the LaTeX
  of a reference solution (deterministic for a seed, every edit recorded), and truncation.
* :mod:`physeval.probes.poison`: the ``phybench-poison`` task: continue a poisoned partial
  solution; each continuation is classified superficial / genuine / pseudo-genuine.
* :mod:`physeval.probes.process_judge`: a judge model scores a response's derivation against
  the reference solution on a rubric; combined score beside accuracy and EED.
* :mod:`physeval.probes.equivalence_judge`: the optional LLM fallback for ``undecided``
  equivalence verdicts.

Nothing here is imported by ``import physeval``; SymPy loads only when a rule is applied.
"""
