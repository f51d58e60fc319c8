"""The policy's data agrees with what it describes: the config's and the contract's attribute names, and the
seccomp filter's system call numbers."""

import ast
import re
from pathlib import Path

import pytest

from autograder.engine.contract import policy, spec
from autograder.engine.judge import jail, syscalls

X86_64 = Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h")
GENERIC = Path("/usr/include/asm-generic/unistd.h")  # aarch64's numbers


def test_the_config_attributes_are_what_a_bertconfig_carries_to_the_child():
    from autograder.engine.judge import hf  # it imports Hugging Face: not while the tests are collected

    carried = {key for key in hf.spec_config(hf.bert_config()) if not key.startswith("_")}
    assert carried == policy.CONFIG_ATTRIBUTES


def test_the_contract_attributes_are_what_the_references_set():
    stored = set()
    for component in spec.COMPONENTS:
        for node in ast.walk(ast.parse(component.reference.read_text())):
            if (
                isinstance(node, ast.Attribute)
                and not isinstance(node.ctx, ast.Load)
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
            ):
                stored.add(node.attr)
    assert stored == policy.CONTRACT_ATTRIBUTES


def numbers(header, pattern):
    return {m.group(1): int(m.group(2)) for m in re.finditer(pattern, header.read_text())}


@pytest.mark.skipif(not X86_64.exists() or not GENERIC.exists(), reason="no kernel headers here")
@pytest.mark.parametrize("table", ["ALLOWED", "CUDA"])
def test_the_allowed_system_calls_have_the_kernels_numbers(table):
    x86_64 = numbers(X86_64, r"#define __NR_(\w+) (\d+)")
    generic = numbers(GENERIC, r"#define __NR(?:3264)?_(\w+) (\d+)")
    generic["newfstatat"] = generic["fstatat"]  # the generic table's name for it
    listed = getattr(syscalls, table)
    assert {name: (x86_64.get(name), generic.get(name)) for name in listed} == listed


def verdict_of(program):
    """The filter's program, run by hand on seccomp_data (arch, nr, args[0])."""
    import struct

    instructions = [struct.unpack("=HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]

    def verdict(arch, number, family=0):
        pc, accumulator = 0, 0
        while True:
            code, jt, jf, k = instructions[pc]
            if code == 0x20:
                accumulator = {0: number, 4: arch, 16: family}[k]
            elif code in (0x15, 0x35):
                taken = accumulator == k if code == 0x15 else accumulator >= k
                pc += jt if taken else jf
            elif code == 0x06:
                return "allow" if k == 0x7FFF0000 else "refuse"
            pc += 1

    return verdict


def test_the_filter_refuses_what_it_does_not_list():
    """A listed call is allowed, any other refused."""
    verdict = verdict_of(jail.seccomp_filter("x86_64"))
    x86 = jail.ARCHES["x86_64"][0]
    assert verdict(x86, syscalls.ALLOWED["read"][0]) == verdict(x86, syscalls.ALLOWED["clone"][0]) == "allow"
    assert {verdict(x86, n) for n in (248, 250, 101, 310, 321, 323, 425, 272, 29)} == {"refuse"}  # key rings ... shmget
    assert verdict(x86, jail.X32_SYSCALL_BIT | 0) == "refuse" and verdict(0x40000003, 0) == "refuse"
    assert {verdict(x86, number, syscalls.AF_UNIX) for number, _ in syscalls.CUDA.values()} == {"refuse"}


@pytest.mark.parametrize("machine", list(jail.ARCHES))
def test_on_a_gpu_the_filter_lets_cuda_open_unix_sockets_and_no_others(machine):
    arch, column = jail.ARCHES[machine]
    verdict = verdict_of(jail.seccomp_filter(machine, device="cuda"))
    socket, bind, listen = (syscalls.CUDA[name][column] for name in ("socket", "bind", "listen"))
    assert verdict(arch, socket, syscalls.AF_UNIX) == verdict(arch, bind) == verdict(arch, listen) == "allow"
    assert {verdict(arch, socket, family) for family in (2, 10, 16, 17)} == {"refuse"}  # inet, inet6, netlink, packet
    assert verdict(arch, syscalls.ALLOWED["read"][column]) == "allow"
    assert verdict(arch, syscalls.ALLOWED["brk"][column] + 10_000) == "refuse"
