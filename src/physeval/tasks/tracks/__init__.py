"""Track behaviour shared by benchmarks: how a kind of answer is prompted, graded and measured.

A benchmark module (``tasks/abench.py``, ``tasks/phybench.py``, ...) keeps only its loader and
names and subclasses one of these.
"""
