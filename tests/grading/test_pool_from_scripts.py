"""The shared grading pool started from a plain script: the symbolic page's snippet saved as a file.

Workers start with ``spawn``, which imports the main script in each worker. Without the
``if __name__ == "__main__":`` guard the script's top-level call ran again in every worker, which
failed, was replaced, and failed again for ever (thousands of tracebacks; issue 36, case 2). Now
the parent raises one error that names the fix, and the guarded script grades in the pool.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SNIPPET = '''import physeval

grades = physeval.grade_symbolic_many([(r"\\boxed{2 m g}", "2mg"), (r"\\boxed{m g}", "2mg")])
print([g.eed_score for g in grades])
'''
HANG_GUARD = 240  # the unguarded script used to run until killed; a finished one takes seconds


def _python(tmp_path: Path, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PHYSEVAL_GRADING_PROCESSES": "2", "PHYSEVAL_EED_CACHE": "off"}
    return subprocess.run([sys.executable, *argv], cwd=tmp_path, input=stdin, capture_output=True, text=True,
                          timeout=HANG_GUARD, env=env)


def _one_clear_error(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 1
    assert done.stderr.count("WorkerStartError:") == 1, done.stderr[-3000:]
    assert "bootstrapping phase" not in done.stderr  # multiprocessing's own message, once per dead worker
    assert len(done.stderr.splitlines()) < 40, done.stderr[-3000:]


def test_an_unguarded_script_gets_one_error_naming_the_guard(tmp_path: Path) -> None:
    (tmp_path / "grade.py").write_text(SNIPPET, encoding="utf-8")
    done = _python(tmp_path, "grade.py")
    _one_clear_error(done)
    assert 'if __name__ == "__main__":' in done.stderr and "processes=0" in done.stderr
    assert str(tmp_path / "grade.py") in done.stderr


def test_a_script_read_from_stdin_is_refused_before_any_worker_starts(tmp_path: Path) -> None:
    done = _python(tmp_path, "-", stdin=SNIPPET)
    _one_clear_error(done)
    assert "save it as a file" in done.stderr


def test_the_guarded_script_grades_in_the_pool(tmp_path: Path) -> None:
    guarded = 'if __name__ == "__main__":\n' + "".join(f"    {line}\n" for line in SNIPPET.splitlines() if line)
    (tmp_path / "grade.py").write_text(guarded, encoding="utf-8")
    done = _python(tmp_path, "grade.py")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[100.0, 35.0]"


def test_an_unguarded_script_grades_in_this_process_with_processes_0(tmp_path: Path) -> None:
    (tmp_path / "grade.py").write_text(SNIPPET.replace("\"2mg\")])", "\"2mg\")], processes=0)"), encoding="utf-8")
    done = _python(tmp_path, "grade.py")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[100.0, 35.0]"
