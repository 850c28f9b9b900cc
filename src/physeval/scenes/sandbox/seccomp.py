"""The seccomp filter of every sandboxed program: the system calls a renderer never needs, refused.

Why: namespaces hide the host, but a program can still act on what it sees. Under ``bwrap`` the
in-sandbox init runs under the program's own user id, and a program that traced it
(``ptrace``) or read its memory (``process_vm_readv``) could stop or steer its own supervision;
other calls reach past the namespaces altogether (``AF_VSOCK`` talks to the hypervisor, kernel
keyrings hold kernel memory no limit sees). A scene renderer (numpy, matplotlib, OpenCV,
ffmpeg) needs none of them. Each refusal below carries its reason; the same table is what
``physeval sandbox check`` prints (:func:`describe`) and what it probes.

The filter is compiled here, on the host, into classic BPF (:func:`compile_filter`) and handed to
the init as bytes: the init only installs it (``PR_SET_SECCOMP``) in the program's process just
before ``execve``, after ``no_new_privs``. It is inherited by every process the program makes.
A call from a foreign ABI (x32, 32-bit compat) is refused outright, so no rule can be bypassed
through another system call table.
"""

from __future__ import annotations

import errno
import platform
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["ARCHES", "MEMFD_RULES", "RULES", "Rule", "compile_filter", "describe"]

ARCHES: Mapping[str, int] = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
"""The machines the filter knows (``platform.machine()`` -> ``AUDIT_ARCH_*``); elsewhere there is none."""

CLONE_NAMESPACES = 0x7E020080
"""``CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME``."""

SOCKET_FAMILIES: Mapping[int, str] = {1: "AF_UNIX", 2: "AF_INET", 10: "AF_INET6", 16: "AF_NETLINK"}
"""The only socket families a program may create (netlink: interface names and addresses)."""


@dataclass(frozen=True)
class Rule:
    """One refused system call.

    Attributes:
        name: The system call.
        numbers: Its number per machine (see :data:`ARCHES`).
        reason: Why a renderer is refused it.
        errno: What the call returns instead (``EPERM`` unless said otherwise).
        when: ``"always"``; ``"arg0_has"``: only when the first argument has a bit of ``value``;
            ``"arg0_not_in"``: only when the first argument is none of ``allowed``.
        value: The bit mask for ``arg0_has``.
        allowed: The permitted first arguments for ``arg0_not_in``.
    """

    name: str
    numbers: Mapping[str, int]
    reason: str
    errno: int = errno.EPERM
    when: Literal["always", "arg0_has", "arg0_not_in"] = "always"
    value: int = 0
    allowed: tuple[int, ...] = ()


def _nr(x86_64: int, aarch64: int) -> Mapping[str, int]:
    return {"x86_64": x86_64, "aarch64": aarch64}


_NAMESPACES = "a new namespace (a user namespace would give the program mount rights, e.g. an unbounded tmpfs)"
_MOUNTS = "changing mounts (the program holds no mount rights; refused outright)"
_FAMILIES = ", ".join(SOCKET_FAMILIES.values())

RULES: tuple[Rule, ...] = (
    Rule("ptrace", _nr(101, 117), "tracing or stopping another process (a stopped reaper turned a finished run "
         "into a timeout); also stops a program from reading its supervisor"),
    Rule("process_vm_readv", _nr(310, 270), "reading another process's memory"),
    Rule("process_vm_writev", _nr(311, 271), "writing another process's memory"),
    Rule("pidfd_getfd", _nr(438, 438), "taking a descriptor out of another process"),
    Rule("perf_event_open", _nr(298, 241), "kernel performance counters: kernel attack surface, never needed"),
    Rule("bpf", _nr(321, 280), "loading kernel programs"),
    Rule("keyctl", _nr(250, 219), "kernel keyrings: kernel memory outside every limit, shared beyond the namespaces"),
    Rule("add_key", _nr(248, 217), "kernel keyrings (see keyctl)"),
    Rule("request_key", _nr(249, 218), "kernel keyrings (see keyctl)"),
    Rule("userfaultfd", _nr(323, 282), "user-handled page faults: a classic kernel exploit aid"),
    Rule("io_uring_setup", _nr(425, 425), "io_uring: I/O past the per-call checks, kernel attack surface"),
    Rule("io_uring_enter", _nr(426, 426), "io_uring (see io_uring_setup)"),
    Rule("io_uring_register", _nr(427, 427), "io_uring (see io_uring_setup)"),
    Rule("unshare", _nr(272, 97), _NAMESPACES),
    Rule("setns", _nr(308, 268), "joining another namespace"),
    Rule("clone", _nr(56, 220), _NAMESPACES, when="arg0_has", value=CLONE_NAMESPACES),
    Rule("clone3", _nr(435, 435), "its flags lie in memory a filter cannot read; refused with ENOSYS so that "
         "libc falls back to clone, whose flags are checked", errno=errno.ENOSYS),
    Rule("mount", _nr(165, 40), _MOUNTS),
    Rule("umount2", _nr(166, 39), _MOUNTS),
    Rule("pivot_root", _nr(155, 41), _MOUNTS),
    Rule("open_tree", _nr(428, 428), _MOUNTS),
    Rule("move_mount", _nr(429, 429), _MOUNTS),
    Rule("fsopen", _nr(430, 430), _MOUNTS),
    Rule("mount_setattr", _nr(442, 442), _MOUNTS),
    Rule("socket", _nr(41, 198), f"socket families other than {_FAMILIES} (AF_VSOCK reaches the hypervisor; "
         "packet, key, alg, bluetooth... are kernel surface)", errno=errno.EAFNOSUPPORT, when="arg0_not_in",
         allowed=tuple(SOCKET_FAMILIES)),
    Rule("socketpair", _nr(53, 199), f"socket families other than {_FAMILIES}", errno=errno.EAFNOSUPPORT,
         when="arg0_not_in", allowed=tuple(SOCKET_FAMILIES)),
)
"""Refused in every isolating run."""

MEMFD_RULES: tuple[Rule, ...] = (
    Rule("memfd_create", _nr(319, 279), "memory in no process's address space: without a per-run cgroup neither "
         "RLIMIT_AS nor the watcher would see it"),
    Rule("memfd_secret", _nr(447, 447), "memory in no process's address space (see memfd_create)"),
)
"""Refused as well when no per-run cgroup accounts the run's memory (the ``watched`` accounting)."""

# classic BPF: opcodes, seccomp_data offsets and return values
_LD_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_NR, _ARCH, _ARG0 = 0, 4, 16  # args[0]'s low 32 bits (little-endian machines only)
_ALLOW = 0x7FFF0000
_X32_BIT = 0x40000000


def _errno(value: int) -> int:
    return 0x00050000 | (value & 0xFFFF)


def _block(rule: Rule) -> list[tuple[int, int, int, int]]:
    """The instructions run once the call number matched ``rule``; each path ends in a return."""
    refuse = (_RET, 0, 0, _errno(rule.errno))
    if rule.when == "always":
        return [refuse]
    if rule.when == "arg0_has":
        return [(_LD_ABS, 0, 0, _ARG0), (_JSET, 0, 1, rule.value), refuse, (_RET, 0, 0, _ALLOW)]
    n = len(rule.allowed)
    code = [(_LD_ABS, 0, 0, _ARG0)]
    code += [(_JEQ, n - i, 0, value) for i, value in enumerate(rule.allowed)]  # equal: jump to the allow
    return [*code, refuse, (_RET, 0, 0, _ALLOW)]


def compile_filter(*, memfd: bool, machine: str | None = None) -> bytes | None:
    """The filter for ``machine`` (default: this one) as packed ``sock_filter`` records.

    ``memfd``: also refuse :data:`MEMFD_RULES`. ``None`` on a machine the table does not know
    (the run then has namespaces and limits but no filter; ``physeval sandbox check`` says so).
    """
    machine = machine or platform.machine()
    if machine not in ARCHES:
        return None
    prog: list[tuple[int, int, int, int]] = [
        (_LD_ABS, 0, 0, _ARCH),
        (_JEQ, 1, 0, ARCHES[machine]),
        (_RET, 0, 0, _errno(errno.EPERM)),  # a foreign ABI: refused
        (_LD_ABS, 0, 0, _NR),
    ]
    if machine == "x86_64":  # the x32 ABI marks its calls with bit 30
        prog += [(_JGE, 0, 1, _X32_BIT), (_RET, 0, 0, _errno(errno.EPERM))]
    for rule in (*RULES, *(MEMFD_RULES if memfd else ())):
        block = _block(rule)
        prog.append((_JEQ, 0, len(block), rule.numbers[machine]))
        prog += block
    prog.append((_RET, 0, 0, _ALLOW))
    if len(prog) > 4096:  # BPF_MAXINSNS
        raise ValueError("the seccomp filter is too long")
    return b"".join(struct.pack("HBBI", *ins) for ins in prog)


def describe(*, memfd: bool) -> list[dict[str, Any]]:
    """Each refused call with its reason and what it returns instead (for ``physeval sandbox check``)."""
    out = []
    for rule in (*RULES, *(MEMFD_RULES if memfd else ())):
        condition = {
            "always": "",
            "arg0_has": f" (only with flags {rule.value:#x})",
            "arg0_not_in": " (only for families other than " + ", ".join(SOCKET_FAMILIES[a] for a in rule.allowed)
            + ")",
        }[rule.when]
        out.append({"syscall": rule.name, "returns": errno.errorcode[rule.errno], "reason": rule.reason + condition})
    return out
