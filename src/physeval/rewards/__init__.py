"""The graders as RL rewards: one rollout at a time, batched, in each trainer's shape, and as a service.

* :mod:`physeval.rewards.graded`: ``numeric_reward`` / ``symbolic_reward`` (one rollout, a float).
* :mod:`physeval.rewards.scene`: the Code-Video-Judge reward of SimuScene (render, judge, binary/ratio).
* :mod:`physeval.rewards.batch`: ``score_batch(track, completions, references)`` for every track,
  over the shared grading pool, render pools or Ray (:mod:`physeval.rewards.executors`).
* :mod:`physeval.rewards.trainers`: TRL, verl and OpenRLHF adapters.
* :mod:`physeval.rewards.service`: ``physeval serve``, the HTTP reward service (needs the ``serve`` extra).

Every batched reward returns a :class:`RewardResult`: the reward and why. Importing this package
loads no heavy library (graders, FastAPI and Ray are imported when first used).
"""

from physeval.rewards.batch import NumericRewardOptions, SymbolicRewardOptions, ascore_batch, score_batch
from physeval.rewards.graded import numeric_result, numeric_reward, symbolic_result, symbolic_reward
from physeval.rewards.result import RewardResult
from physeval.rewards.scene import SceneRewardOptions, scene_reward, score_scenes
from physeval.rewards.trainers import compute_score, compute_score_batch, openrlhf_reward_func, trl_reward

__all__ = [
    "NumericRewardOptions", "RewardResult", "SceneRewardOptions", "SymbolicRewardOptions", "ascore_batch",
    "compute_score", "compute_score_batch", "numeric_result", "numeric_reward", "openrlhf_reward_func",
    "scene_reward", "score_batch", "score_scenes", "symbolic_result", "symbolic_reward", "trl_reward",
]
