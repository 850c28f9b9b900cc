"""physeval inside the tools researchers already run.

- :mod:`physeval.integrations.inspect`: every physeval task as an inspect_ai task
  (``inspect eval physeval/abench_b``), physeval's graders as inspect scorers and its metrics as
  inspect metrics (extra ``inspect``).
- :mod:`physeval.integrations.logging`: a finished run's metrics and samples to Weights & Biases
  (extra ``wandb``) and TensorBoard (extra ``tensorboard``).

Nothing here is imported by ``import physeval``; each module imports its third-party library
only when used and names the extra to install when it is missing.
"""
