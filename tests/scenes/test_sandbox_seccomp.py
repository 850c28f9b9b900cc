"""The seccomp filter, read instruction by instruction: which calls it refuses, with what, and why.

A small classic-BPF interpreter runs the compiled program on ``seccomp_data`` records, so each
case states a system call and its first argument and the verdict the kernel would get. (The
hostile suites check the same filter in force, from inside real sandboxes.)
"""

from __future__ import annotations

import errno
import struct

import pytest

from physeval.scenes.sandbox.limits import INODE_BYTES, SandboxLimits
from physeval.scenes.sandbox.seccomp import ARCHES, MEMFD_RULES, RULES, compile_filter, describe

ALLOW = "allow"


def run_filter(prog: bytes, *, nr: int, arch: int, arg0: int = 0) -> str | int:
    """The verdict of the filter for one call: ``"allow"`` or the errno it returns."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, arg0, 0, 0, 0, 0, 0)
    code = [struct.unpack("HBBI", prog[i:i + 8]) for i in range(0, len(prog), 8)]
    acc, pc = 0, 0
    while True:
        op, jt, jf, k = code[pc]
        if op == 0x20:  # ld [k]
            acc = struct.unpack_from("<I", data, k)[0]
        elif op in (0x15, 0x35, 0x45):  # jeq, jge, jset
            hit = acc == k if op == 0x15 else (acc >= k if op == 0x35 else bool(acc & k))
            pc += jt if hit else jf
        elif op == 0x06:  # ret
            return ALLOW if k == 0x7FFF0000 else k & 0xFFFF
        else:
            raise AssertionError(f"unexpected opcode {op:#x}")
        pc += 1


X86 = ARCHES["x86_64"]
CASES = [
    ("read", 0, 0, ALLOW),
    ("ptrace", 101, 16, errno.EPERM),
    ("process_vm_readv", 310, 1, errno.EPERM),
    ("socket AF_VSOCK", 41, 40, errno.EAFNOSUPPORT),
    ("socket AF_PACKET", 41, 17, errno.EAFNOSUPPORT),
    ("socket AF_INET", 41, 2, ALLOW),
    ("socket AF_UNIX", 41, 1, ALLOW),
    ("socketpair AF_UNIX", 53, 1, ALLOW),
    ("clone for fork (SIGCHLD)", 56, 17, ALLOW),
    ("clone for a thread", 56, 0x3D0F00, ALLOW),
    ("clone CLONE_NEWUSER", 56, 0x10000000 | 17, errno.EPERM),
    ("clone3", 435, 0, errno.ENOSYS),
    ("unshare", 272, 0x10000000, errno.EPERM),
    ("keyctl", 250, 0, errno.EPERM),
    ("memfd_create (a cgroup accounts it)", 319, 0, ALLOW),
    ("x32 ABI read", 0x40000000, 0, errno.EPERM),
]


@pytest.mark.parametrize(("what", "nr", "arg0", "verdict"), CASES, ids=[c[0] for c in CASES])
def test_each_call_gets_its_verdict_on_x86_64(what: str, nr: int, arg0: int, verdict: str | int) -> None:
    prog = compile_filter(memfd=False, machine="x86_64")
    assert prog is not None
    assert run_filter(prog, nr=nr, arch=X86, arg0=arg0) == verdict


def test_memfd_is_refused_only_without_a_cgroup() -> None:
    prog = compile_filter(memfd=True, machine="x86_64")
    assert prog is not None
    assert run_filter(prog, nr=319, arch=X86) == errno.EPERM


def test_a_foreign_architecture_is_refused_outright() -> None:
    prog = compile_filter(memfd=False, machine="x86_64")
    assert prog is not None
    assert run_filter(prog, nr=0, arch=0x40000003) == errno.EPERM  # i386 compat calls: another table


def test_aarch64_has_its_own_numbers() -> None:
    prog = compile_filter(memfd=False, machine="aarch64")
    assert prog is not None
    arm = ARCHES["aarch64"]
    assert run_filter(prog, nr=117, arch=arm) == errno.EPERM  # ptrace
    assert run_filter(prog, nr=101, arch=arm) == ALLOW  # nanosleep there, not ptrace


def test_an_unknown_machine_gets_no_filter_and_every_rule_says_why() -> None:
    assert compile_filter(memfd=False, machine="riscv64") is None
    listed = describe(memfd=True)
    assert [r["syscall"] for r in listed] == [r.name for r in (*RULES, *MEMFD_RULES)]
    assert all(r["reason"] and r["returns"] in ("EPERM", "ENOSYS", "EAFNOSUPPORT") for r in listed)
    assert "AF_VSOCK" in next(r["reason"] for r in listed if r["syscall"] == "socket")


def test_the_memory_footprint_counts_the_inodes_of_every_tmpfs() -> None:
    limits = SandboxLimits(inodes=1000)
    assert limits.inode_bytes() == 3 * 1000 * INODE_BYTES
    assert limits.footprint_bytes() == (limits.memory_bytes + limits.disk_bytes + limits.tmp_bytes
                                        + limits.shm_bytes + 3 * 1000 * INODE_BYTES)
