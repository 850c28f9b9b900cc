"""``physeval sandbox setup`` builds apart and switches atomically; a broken environment stops a run at preflight.

The venvs here are real (``venv`` with pip, no network: nothing is installed from an index) or
faked where only the file layout matters; the runs are real CLI runs against a scripted
OpenAI-compatible server on 127.0.0.1.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from physeval.scenes.sandbox import environment, setup
from physeval.scenes.sandbox.lock import lock_path_for, sandbox_lock


class FakeBuilder:
    """A venv layout without the interpreter start-up cost (the packages are faked too)."""

    def __init__(self, **kwargs: object) -> None:
        assert kwargs["with_pip"] is True

    def create(self, root: Path) -> None:
        (root / "bin").mkdir(parents=True)
        (root / "bin" / "python").write_text("")
        (root / "lib").mkdir()
        (root / "lib" / "mod.py").write_text("")
        os.chmod(root / "lib", 0o700)
        os.chmod(root / "lib" / "mod.py", 0o600)


def _fake_pip(calls: list[list[str]], fail: bool = False, during: object = None):  # type: ignore[no-untyped-def]
    def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
        calls.append(cmd)  # pip install, then the lock file's pip freeze and python version
        if callable(during):
            during()
        if fail and "install" in cmd:
            raise subprocess.CalledProcessError(1, cmd)
        out = "numpy==2.0.0\n" if "freeze" in cmd else ("3.11.7\n" if "-c" in cmd else "")
        return subprocess.CompletedProcess(cmd, 0, stdout=out, stderr="")

    return run


def test_setup_installs_exactly_the_listed_packages_and_switches_to_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[list[str]] = []
    monkeypatch.setattr(setup.venv, "EnvBuilder", FakeBuilder)
    monkeypatch.setattr(setup.subprocess, "run", _fake_pip(calls))
    root = tmp_path / "env"
    python = setup.setup_sandbox_env(root)
    assert python == root / "bin" / "python" and python.exists()
    download, install = calls[0], calls[1]  # wheels first (binary only), then the install from them alone
    assert download[1:4] == ["-I", "-m", "pip"] and "download" in download and "--only-binary=:all:" in download
    assert "install" in install and "--no-index" in install and "--only-binary=:all:" in install
    assert install[install.index("--find-links") + 1] == str(tmp_path / "env.wheels")
    for cmd in (download, install):
        assert set(cmd[-7:]) == {
            "numpy", "matplotlib", "opencv-python-headless", "imageio", "imageio-ffmpeg", "av", "scipy",
        }  # fmt: skip
    assert root.is_symlink() and root.resolve().parent == setup.builds_dir(root)
    assert os.stat(root / "lib").st_mode & 0o055 == 0o055  # the sandbox uid can read it
    assert os.stat(root / "lib" / "mod.py").st_mode & 0o044 == 0o044
    assert lock_path_for(root).read_text() == "# python 3.11.7\nnumpy==2.0.0\n"
    assert lock_path_for(root).parent == setup.builds_dir(root)  # beside the build: venv and lock switch together


def test_an_interrupted_setup_leaves_the_previous_environment_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(setup.venv, "EnvBuilder", FakeBuilder)
    monkeypatch.setattr(setup.subprocess, "run", _fake_pip([]))
    root = tmp_path / "env"
    setup.setup_sandbox_env(root)
    first = root.resolve()
    monkeypatch.setattr(setup.subprocess, "run", _fake_pip([], fail=True))  # pip dies half-way
    with pytest.raises(subprocess.CalledProcessError):
        setup.setup_sandbox_env(root)
    assert root.resolve() == first and (root / "bin" / "python").exists()
    assert sorted(p.name for p in setup.builds_dir(root).iterdir()) == sorted([first.name, first.name + ".lock.txt"])


def test_a_first_setup_that_fails_leaves_nothing_that_looks_like_an_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(setup.venv, "EnvBuilder", FakeBuilder)
    monkeypatch.setattr(setup.subprocess, "run", _fake_pip([], fail=True))
    root = tmp_path / "env"
    with pytest.raises(subprocess.CalledProcessError):
        setup.setup_sandbox_env(root)
    assert not (root / "bin" / "python").exists()


def test_setups_run_one_at_a_time_under_the_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "env"
    held: list[bool] = []

    def try_the_lock() -> None:  # what a second, concurrent setup would do
        fd = os.open(root.with_name(".env.setup-lock"), os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held.append(False)
        except BlockingIOError:
            held.append(True)
        finally:
            os.close(fd)

    monkeypatch.setattr(setup.venv, "EnvBuilder", FakeBuilder)
    monkeypatch.setattr(setup.subprocess, "run", _fake_pip([], during=try_the_lock))
    setup.setup_sandbox_env(root)
    assert held and all(held)  # every step of the build ran with the lock held


def test_a_second_setup_switches_atomically_and_keeps_one_previous_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(setup.venv, "EnvBuilder", FakeBuilder)
    monkeypatch.setattr(setup.subprocess, "run", _fake_pip([]))
    root = tmp_path / "env"
    builds = [setup.setup_sandbox_env(root) and root.resolve() for _ in range(3)]
    kept = {p.name for p in setup.builds_dir(root).iterdir() if p.is_dir()}
    assert kept == {builds[1].name, builds[2].name} and root.resolve() == builds[2]


def test_a_venv_of_the_older_in_place_layout_is_kept_as_the_previous_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "env"
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "python").write_text("")
    (tmp_path / "env.lock.txt").write_text("# python 3.11.7\n")
    monkeypatch.setattr(setup.venv, "EnvBuilder", FakeBuilder)
    monkeypatch.setattr(setup.subprocess, "run", _fake_pip([]))
    setup.setup_sandbox_env(root)
    assert root.is_symlink() and not (tmp_path / "env.lock.txt").exists()
    legacy = [p.name for p in setup.builds_dir(root).iterdir() if p.name.startswith("legacy-")]
    assert len(legacy) == 2 and any(name.endswith(".lock.txt") for name in legacy)  # the venv and its lock


def _bare_venv(where: Path) -> Path:
    """A real venv with nothing installed (no pip, no numpy): what an interrupted setup used to leave."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    for dirpath, dirnames, filenames in os.walk(where):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                os.chmod(p, os.stat(p).st_mode | 0o055)
    os.chmod(where.parent, 0o755)
    return where / "bin" / "python"


def test_an_environment_that_lacks_numpy_is_refused_with_the_fix(tmp_path: Path) -> None:
    python = _bare_venv(tmp_path / "venv")
    with pytest.raises(environment.SandboxEnvironmentError) as caught:
        environment.verify_environment(str(python))
    message = str(caught.value)
    assert "numpy (import numpy): ModuleNotFoundError" in message and "physeval sandbox setup" in message


def test_a_lock_file_that_the_environment_does_not_match_is_refused(tmp_path: Path) -> None:
    python = _bare_venv(tmp_path / "venv")
    lock = lock_path_for(tmp_path / "venv")
    lock.write_text("# python 3.11.7\nnumpy==2.0.0\n")
    with pytest.raises(environment.SandboxEnvironmentError) as caught:
        environment.verify_environment(str(python))
    assert "numpy==2.0.0 is locked but not installed" in str(caught.value)
    assert sandbox_lock(python)["sha256"] is not None


def test_the_current_interpreter_passes_and_is_remembered() -> None:
    check = environment.verify_environment(sys.executable)
    assert "numpy" in check.modules and check.lock_file is None
    assert environment.verify_environment(sys.executable) is check  # no second probe
