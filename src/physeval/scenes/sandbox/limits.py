"""The vocabulary of one sandboxed run: its limits, its result, and the error for "no sandbox".

Why a module of its own: every backend, the host-side runner and the render stage ladder share
these types, and none of them should import a backend to get them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from physeval.errors import UserError

__all__ = ["GIB", "INODE_BYTES", "MIB", "SandboxLimits", "SandboxResult", "SandboxUnavailable"]

MIB = 1 << 20
GIB = 1 << 30
INODE_BYTES = 2048
"""Kernel memory one file of a tmpfs holds (its inode and dentry, about 1 KiB measured; doubled)."""


class SandboxUnavailable(UserError, RuntimeError):
    """No isolating backend can run here (or the one asked for cannot), and ``none`` was not asked for.

    A :class:`~physeval.errors.UserError`: the message says what to install or choose.
    """


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits for one sandboxed run.

    Attributes:
        wall_s: Wall-clock seconds before every process of the run is killed.
        cpu_s: CPU seconds per process (``RLIMIT_CPU``; SIGXCPU, then SIGKILL 5 s later).
        memory_bytes: Memory of the whole run. Enforced as the cgroup's ``memory.max`` when
            the host delegates a cgroup; otherwise as the address space of each process
            (``RLIMIT_AS``) plus a watcher that kills the run when the resident anonymous and
            shared memory of all its processes and SysV segments together passes it.
        file_bytes: Largest file a process may write (``RLIMIT_FSIZE``; also bounds each memfd).
        disk_bytes: Size of the tmpfs working directory (isolating backends).
        tmp_bytes: Size of the private ``/tmp`` (isolating backends).
        shm_bytes: Size of the private ``/dev/shm`` (isolating backends).
        open_files: Open file descriptors per process (``RLIMIT_NOFILE``).
        processes: Processes and threads (``RLIMIT_NPROC`` of the sandbox uid; ``pids.max``
            of the cgroup when there is one).
        inodes: Files and directories each tmpfs may hold (``nr_inodes`` of ``/tmp``, ``/dev/shm``
            and the working directory): each costs kernel memory (:data:`INODE_BYTES`) that no
            per-process limit sees.
        ptys: Pseudo-terminals of the private devpts instance.
        msgqueue_bytes: POSIX message-queue bytes (``RLIMIT_MSGQUEUE``).
        output_bytes: How much of the end of stdout and of stderr is kept.
        max_output_bytes: stdout + stderr bytes after which the run is killed.
        threads: Value of ``OMP_NUM_THREADS`` and friends inside the sandbox.
        require_isolation: Refuse the unsafe ``none`` backend even when it was asked for.
    """

    wall_s: float = 120.0
    cpu_s: int = 300
    memory_bytes: int = 4 * GIB
    file_bytes: int = 512 * MIB
    disk_bytes: int = 1 * GIB
    tmp_bytes: int = 64 * MIB
    shm_bytes: int = 64 * MIB
    open_files: int = 256
    processes: int = 256
    inodes: int = 16384
    ptys: int = 16
    msgqueue_bytes: int = 1 * MIB
    output_bytes: int = 64 * 1024
    max_output_bytes: int = 16 * MIB
    threads: int = 2
    require_isolation: bool = False

    def footprint_bytes(self) -> int:
        """The most host memory one run can hold: memory, every size-limited tmpfs and their inodes."""
        return self.memory_bytes + self.disk_bytes + self.tmp_bytes + self.shm_bytes + self.inode_bytes()

    def inode_bytes(self) -> int:
        """The most kernel memory the files of the run's three tmpfs mounts can hold."""
        return 3 * self.inodes * INODE_BYTES


@dataclass(frozen=True)
class SandboxResult:
    """What happened when a program ran in the sandbox.

    Attributes:
        exit_code: The program's exit status, ``None`` when a signal ended it or it never ran.
        signal: The number of the signal that ended the program, if any.
        timed_out: The wall-clock limit was reached and the run was killed.
        killed_reason: ``"timeout"``, ``"output_limit"``, ``"cpu_limit"``, ``"memory_limit"`` or ``None``.
        wall_s: Seconds from start to the end of the program.
        cpu_s: CPU seconds (user + system) of the program and its reaped descendants.
        peak_memory_bytes: Largest resident set of the program or any reaped descendant.
        peak_total_memory_bytes: Largest memory of the whole run (cgroup peak, or the watcher's
            largest sum), when it was measured.
        stdout_tail: The last ``output_bytes`` of stdout (UTF-8, errors replaced).
        stderr_tail: The last ``output_bytes`` of stderr.
        stdout_bytes: Total bytes the program wrote to stdout (read until the cap).
        stderr_bytes: Total bytes written to stderr.
        files: Collected files: name -> absolute path in the caller's ``collect_dir``.
        workdir_files: What the program left in its working directory: name -> size in bytes
            (at most 50 entries; directories have size -1), for diagnostics.
        mode: The backend in force: ``"bwrap"``, ``"namespaces"`` or ``"none"``.
        memory_accounting: ``"cgroup"``, ``"watched"`` (per-process limits plus the watcher) or
            ``"rlimit"`` (per-process limits only).
        setup_error: Why the sandbox itself failed to start, if it did.
    """

    exit_code: int | None
    signal: int | None
    timed_out: bool
    killed_reason: str | None
    wall_s: float
    cpu_s: float | None
    peak_memory_bytes: int | None
    stdout_tail: str
    stderr_tail: str
    stdout_bytes: int
    stderr_bytes: int
    files: dict[str, str] = field(default_factory=dict)
    workdir_files: dict[str, int] = field(default_factory=dict)
    mode: str = "none"
    memory_accounting: str = "rlimit"
    peak_total_memory_bytes: int | None = None
    setup_error: str | None = None

    @property
    def ok(self) -> bool:
        """True when the program exited 0 within every limit."""
        return self.exit_code == 0 and self.signal is None and self.killed_reason is None and self.setup_error is None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of every field."""
        return asdict(self)
