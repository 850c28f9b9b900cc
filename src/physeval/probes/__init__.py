"""Probes beyond the final answer: PHYBench's chain-of-thought poisoning and a process judge.

* :mod:`physeval.probes.perturbations`: inject one error into the LaTeX of a reference solution
  (deterministic for a seed, every edit recorded), and truncation; the rules, one family a module,
  are in :mod:`physeval.probes.rules`, the edit checks in :mod:`physeval.probes.edit_checks`, the
  LaTeX readings in :mod:`physeval.probes.latex_spans` and :mod:`physeval.probes.latex_structure`,
  the implied answer in :mod:`physeval.probes.implied` (on the normal form of
  :mod:`physeval.probes.normal_form`).
* :mod:`physeval.probes.poison`: the ``phybench-poison`` task: continue a poisoned partial
  solution; each continuation is classified superficial / genuine / pseudo-genuine (items cached
  by :mod:`physeval.probes.poison_cache`).
* :mod:`physeval.probes.process_judge`: a judge model scores a response's derivation against
  the reference solution on a rubric; combined score beside accuracy and EED.
* :mod:`physeval.probes.equivalence_judge`: the optional LLM fallback for ``undecided``
  equivalence verdicts.

Nothing here is imported by ``import physeval``; SymPy loads only when a rule is applied.
"""
