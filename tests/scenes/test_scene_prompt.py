"""The scene prompt states the sandbox's contract; code extraction picks the right block."""

from __future__ import annotations

import pytest

from physeval.scenes.prompt import extract_code, scene_prompt


def test_prompt_states_the_contract() -> None:
    messages = scene_prompt("  A ball is dropped from 10 m.  ")
    assert [m["role"] for m in messages] == ["system", "user"]
    system = messages[0]["content"]
    for needle in ("sys.argv[1]", "MP4", "30 frames per second", "10 to 20 seconds", "640x360",
                   "time stamp", "numpy", "matplotlib", "opencv-python-headless", "imageio",
                   "imageio-ffmpeg", "PyAV", "scipy", "no network", "nothing can be installed"):
        assert needle in system, needle
    assert "A ball is dropped from 10 m." in messages[1]["content"]


REPLY = """Some words.
```python
print("first")
```
More words.
```
print("untagged")
```
```python
import numpy as np
print("second, longer")
```
"""


@pytest.mark.parametrize(
    ("pick", "expected"),
    [
        ("first", 'print("first")\n'),
        ("last", 'import numpy as np\nprint("second, longer")\n'),
        ("longest", 'import numpy as np\nprint("second, longer")\n'),
    ],
)
def test_pick_rule(pick: str, expected: str) -> None:
    assert extract_code(REPLY, pick=pick) == expected  # type: ignore[arg-type]


def test_reasoning_is_never_run() -> None:
    reply = "<think>draft:\n```python\nimport os; os.remove('x')\n```\n</think>\nFinal:\n```py\nprint(1)\n```"
    assert extract_code(reply) == "print(1)\n"


def test_no_code_is_none() -> None:
    assert extract_code("I cannot write that program.") is None
    assert extract_code("") is None
    assert extract_code("<think>```python\nprint(1)\n```</think> sorry") is None
    assert extract_code("```python\n\n```") is None


def test_untagged_fence_counts_only_without_a_python_block() -> None:
    assert extract_code("```\nprint(2)\n```") == "print(2)\n"
    assert extract_code("```bash\npip install x\n```") is None


def test_truncated_reply_takes_the_open_block_to_the_end() -> None:
    assert extract_code("Here:\n```python\nimport sys\nprint(sys.argv[1])") == "import sys\nprint(sys.argv[1])\n"


def test_indented_and_tilde_fences() -> None:
    assert extract_code("  ```python\n  x = 1\n  ```") == "  x = 1\n"
    assert extract_code("~~~python\ny = 2\n~~~") == "y = 2\n"


def test_bad_pick_raises() -> None:
    with pytest.raises(ValueError):
        extract_code("```python\nx\n```", pick="middle")  # type: ignore[arg-type]
