"""Vision-language judges: ask a model yes/no questions about a rendered scene and decide.

The package along its seams, in import order:

* :mod:`.questions`: the verification questions as the judge is asked them (labels, keys).
* :mod:`.protocol`: the judge protocols (``physeval``, ``simuscene``: the paper's prompt and
  AgentFly's "Not sure" rule) and the JSON schema of a structured reply.
* :mod:`.prompt`: what the judge is shown (frames, the video, or the program) and the instruction.
* :mod:`.reply`: reading a reply: the structured reader and the forgiving parser.
* :mod:`.voting`: one judge's rule, the ensemble majority (ties false), ``binary``/``ratio``.
* :mod:`.call`: asking one judge (structured output first, the fallbacks), timing and tokens.
* :mod:`.verdict`: :func:`judge_video`, the decision on one scene.

Every public name is importable from ``physeval.scenes.judge`` as before the split.
"""

from __future__ import annotations

from physeval.scenes.judge.call import (
    DEFAULT_MAX_TOKENS,
    REPLY_PATHS,
    JudgeModel,
    JudgeRun,
    ask_judge,
)
from physeval.scenes.judge.prompt import (
    FrameLike,
    build_judge_messages,
    build_judge_prompt,
)
from physeval.scenes.judge.protocol import JUDGE_PROTOCOLS, JudgeProtocol, reply_schema
from physeval.scenes.judge.questions import (
    TEXT_MODE_EXTRA_QUESTIONS,
    JudgeMode,
    JudgeQuestion,
    coerce_questions,
    judge_questions,
    normalize_index,
)
from physeval.scenes.judge.reply import (
    PARSE_ERROR,
    ParsedReply,
    parse_judge_reply,
    read_structured,
)
from physeval.scenes.judge.verdict import JudgeVerdict, judge_video, judge_video_sync
from physeval.scenes.judge.voting import (
    Aggregation,
    aggregate,
    decide_answers,
    ensemble_vote,
)

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "JUDGE_PROTOCOLS",
    "PARSE_ERROR",
    "REPLY_PATHS",
    "TEXT_MODE_EXTRA_QUESTIONS",
    "Aggregation",
    "FrameLike",
    "JudgeMode",
    "JudgeModel",
    "JudgeProtocol",
    "JudgeQuestion",
    "JudgeRun",
    "JudgeVerdict",
    "ParsedReply",
    "aggregate",
    "ask_judge",
    "build_judge_messages",
    "build_judge_prompt",
    "coerce_questions",
    "decide_answers",
    "ensemble_vote",
    "judge_questions",
    "judge_video",
    "judge_video_sync",
    "normalize_index",
    "parse_judge_reply",
    "read_structured",
    "reply_schema",
]
