"""Hostile submissions: none earns a point it did not compute, harms the grader or another student, or escapes.

Two layers are tested apart. The static check (scrutiny.py) must flag every way known to switch off the
delegation tripwire or reach the grader's internals (tests/unit/test_hostile.py). The jail must hold even when
the check misses: those probes are graded with accept_flagged=True, as if an instructor had waved them
through. A probe returns the right masks only when its attack works, so any point it earns is an escape.
Run as root and, in CI, again as nobody (.ci/run).
"""

import hashlib
import json
import os
import platform
import socket
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from support.attacks import FLAGGED, SHEET, needed_by
from support.helpers import TIME_LIMIT, submission
from support.hint_evidence import reasons_said

from autograder.engine.contract import spec
from autograder.engine.judge import jail
from autograder.engine.judge.grade import grade
from autograder.engine.judge.limits import DEFAULT_TIME_LIMIT, Limits
from autograder.engine.judge.platforms import gradescope
from autograder.engine.judge.sandbox import Sandbox

KIT = str(spec.KIT_ROOT)
SITE = next(p for p in sys.path if p.endswith("site-packages"))
PROBE = """
def _attack():
    try:
{body}
    except BaseException:
        return False


_honest_causal_mask = causal_mask


def causal_mask(*args, **kwargs):
    mask = _honest_causal_mask(*args, **kwargs)
    return mask if _attack() else ~mask
"""


def probe(folder, body, extra="", drop=()):
    """The reference, whose causal_mask is right only when body (an attack) returns True."""
    code = PROBE.format(body=textwrap.indent(textwrap.dedent(body).strip(), " " * 8))
    return submission(
        folder, files={"masking.py": spec.BY_ID["masking"].reference.read_text() + extra + code}, drop=drop
    )


def escaped(path, sandbox, accept=True, limits=None):
    """True when any of the probe's causal_mask cases passed: its attack worked (run as if an instructor had
    accepted it, unless accept is False), under the sandbox's limits unless others are given."""
    (result,) = grade(path, components=["masking"], sandbox=sandbox, accept_flagged=accept, limits=limits).components
    return any(t.passed for t in result.tests if "causal" in t.name)


def kit_digest():
    """Every kit file and the venv's site-packages listing: what a hostile submission must not change."""
    digest = hashlib.sha256()
    for folder in ("autograder", "solutions", "assignments"):
        for path in sorted((spec.KIT_ROOT / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path).encode() + path.read_bytes())
    digest.update("\n".join(sorted(os.listdir(SITE))).encode())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def kit_unchanged():
    before = kit_digest()
    yield
    assert kit_digest() == before, "a hostile submission changed the kit or the venv"


# Each probe's attack, as the jail must refuse it. Absolute paths are the judge's: the jail shows none of them.
JAIL_PROBES = {
    "import_the_kit_by_path": f"import sys; sys.path.insert(0, {KIT + '/autograder/engine'!r}); import tolerances; return True",
    "read_the_reference": f"return 'def' in open({KIT + '/solutions/masking.py'!r}).read()",
    "read_the_fixtures": f"import os; return bool(os.listdir({KIT + '/generated/fixtures'!r}))",
    "read_a_hidden_suite": f"return 'def test' in open({KIT + '/autograder/engine/judge/suites/test_masking.py'!r}).read()",
    "rewrite_the_tolerances": f"open({KIT + '/autograder/engine/judge/tolerances.py'!r}, 'a').write('ATOL = 1e9'); return True",
    "rewrite_the_reference": f"open({KIT + '/solutions/masking.py'!r}, 'a').write('#'); return True",
    "plant_a_pth_file": f"open({SITE + '/zz_hostile.pth'!r}, 'w').write('import os'); return True",
    "see_the_judge": f"import os; os.kill({os.getpid()}, 0); return True",
    "write_the_zygote_memory": "open('/proc/1/mem', 'r+b'); return True",
    "read_the_zygote_memory": "open('/proc/1/mem', 'rb'); return True",
    "trace_the_zygote": "import os; return os.path.exists('/proc/1/environ') and bool(open('/proc/1/environ','rb').read())",
    "open_the_zygotes_descriptors": "import os\nfor fd in os.listdir('/proc/1/fd'):\n    try:\n"
    "        os.open('/proc/1/fd/' + fd, os.O_RDONLY)\n        return True\n"
    "    except OSError:\n        pass\nreturn False",
    "be_root": "import os; return os.getuid() == 0 or os.geteuid() == 0",
    "open_the_terminal": "open('/dev/tty', 'w').write('fake grade: 100/100'); return True",
    "write_a_gigabyte_to_tmp": "open('/tmp/big', 'wb').write(bytes(300 << 20)); return True",
}


@pytest.mark.parametrize("name", sorted(JAIL_PROBES))
def test_the_jail_holds_where_the_static_check_is_waved_through(name, tmp_path, sandbox, kit_unchanged):
    assert not escaped(probe(tmp_path / name, JAIL_PROBES[name]), sandbox), f"{name}: the attack worked inside the jail"


# IPC objects a child could leave for the next child or student (they outlive a process, and /tmp's
# emptying): each body makes one, removes it, and says whether it could.
IPC_PROBES = {
    "system_v_shared_memory": "import ctypes; c = ctypes.CDLL(None); i = c.shmget(0, 4096, 0o1600)\nreturn i >= 0 and c.shmctl(i, 0, None) == 0",
    "system_v_message_queue": "import ctypes; c = ctypes.CDLL(None); i = c.msgget(0, 0o1600)\nreturn i >= 0 and c.msgctl(i, 0, None) == 0",
    "system_v_semaphores": "import ctypes; c = ctypes.CDLL(None); i = c.semget(0, 1, 0o1600)\nreturn i >= 0 and c.semctl(i, 0, 0) == 0",
    "posix_message_queue": "import ctypes, ctypes.util; c = ctypes.CDLL(ctypes.util.find_library('rt') or None)\n"
    "i = c.mq_open(b'/kit-probe', 0o102, 0o600, None)\nreturn i >= 0 and c.mq_unlink(b'/kit-probe') == 0",
}


# System calls that reach the kernel's shared state or another process (issue 34: key rings were a channel between
# children, and between students of one jail): each succeeds for an unprivileged process outside the jail.
SYSCALL_NUMBERS = {
    "x86_64": {"add_key": 248, "keyctl": 250, "ptrace": 101, "process_vm_readv": 310},
    "aarch64": {"add_key": 217, "keyctl": 219, "ptrace": 117, "process_vm_readv": 270},
}
SYSCALL_CALLS = {
    "add_key": "c.syscall({add_key}, b'user', b'kit-probe', b'x', 1, -2) >= 0",  # into the process keyring
    "keyctl": "c.syscall({keyctl}, 0, -2, 1) >= 0",  # KEYCTL_GET_KEYRING_ID of the process keyring, made if missing
    # PTRACE_ATTACH to no process: "no such process" where the call may be made, EPERM where it is refused.
    "ptrace": "c.syscall({ptrace}, 16, 2 ** 22 + 1, 0, 0)\nreturn ctypes.get_errno() == 3",
    "process_vm_readv": "c.syscall({process_vm_readv}, c.getpid(), None, 0, None, 0, 0) == 0",
}
IPC_PROBES |= {
    name: (
        "import ctypes; c = ctypes.CDLL(None, use_errno=True)\n" + ("" if "return" in call else "return ") + call
    ).format(**SYSCALL_NUMBERS[platform.machine()])
    for name, call in SYSCALL_CALLS.items()
    if platform.machine() in SYSCALL_NUMBERS
}


@pytest.mark.parametrize("name", sorted(IPC_PROBES))
def test_no_ipc_object_can_be_made_in_the_jail(name, tmp_path, sandbox):
    control = {}
    exec(f"def attack():\n{textwrap.indent(IPC_PROBES[name], '    ')}", control)
    assert control["attack"](), f"{name}: the probe cannot make one even outside the jail"
    assert not escaped(probe(tmp_path / name, IPC_PROBES[name]), sandbox), f"{name}: made inside the jail"


# The suites call causal_mask once per case and dtype: the memory is read on the first call only (reading it on
# every call made this the suite's slowest test, 20 s against 5).
MEMORY_SCAN = """
global _found
if '_found' in globals():
    return _found
_found = False
halves = {halves!r}
with open('/proc/self/maps') as maps, open('/proc/self/mem', 'rb', 0) as memory:
    for line in maps:
        fields = line.split()
        if 'r' not in fields[1] or (len(fields) > 5 and not fields[5].startswith('[')):
            continue  # a library's file, mapped: no text of the kit's is there
        start, end = (int(x, 16) for x in fields[0].split('-'))
        try:
            memory.seek(start)
            chunk = memory.read(end - start)
        except (OSError, ValueError, OverflowError):
            continue
        for first, second in halves:
            at = chunk.find(first)
            while at >= 0:
                if chunk[at + len(first): at + len(first) + len(second)] == second:
                    _found = True
                    return True
                at = chunk.find(first, at + 1)
return False
"""


def halves(lines):
    """Each line as two halves, so that the probe's own text never holds the line it looks for."""
    return [(line[: len(line) // 2].encode(), line[len(line) // 2 :].encode()) for line in lines]


def test_no_line_of_the_reference_is_in_a_childs_memory(tmp_path, sandbox):
    """Issue 34: a reference function's globals led to the loader's units, the text of every reference the child
    held, and 48 statements raised it into the student's own report. The child now holds compiled code only: its
    whole memory, read as a hostile submission would (the check waved through), holds no line of it."""
    held = [c for c in spec.references_for("masking")]
    # Comments aside: a hint ladder's last level quotes a code line of the reference whole, so the probe's own halves
    # of that comment held the code line, and it found itself; the text a comment sits in has every code line too.
    lines = sorted(
        {
            line.strip()
            for c in held
            for line in c.reference.read_text().splitlines()
            if len(line.strip()) >= 30 and not line.strip().startswith("#")
        }
    )
    assert len(lines) > 50
    own = [line.strip() for line in spec.BY_ID["masking"].reference.read_text().splitlines() if len(line.strip()) >= 30]
    others = [c.id for c in spec.COMPONENTS if c.id != "masking"]  # the submission is masking.py alone
    # Reading a child's whole memory takes seconds: under the grader's own limit, not the tests' shorter one.
    limits = Limits(time=DEFAULT_TIME_LIMIT)
    control = probe(tmp_path / "control", MEMORY_SCAN.format(halves=halves(own[:3])), drop=others)
    assert escaped(control, sandbox, limits=limits), "the control: the scan finds the student's own lines"
    scan = probe(tmp_path / "scan", MEMORY_SCAN.format(halves=halves(lines)), drop=others)
    assert not escaped(scan, sandbox, limits=limits)


def test_what_the_jail_writes_to_its_pid_1_costs_the_judge_no_disk(tmp_path, sandbox):
    """The jail's pid 1 held the zygote's standard error: 64 MiB written there once went to a file of the judge's.
    Its pid 1 is now the zygote, which no student process can reach through /proc."""
    attack = "with open('/proc/1/fd/2', 'wb') as log:\n    log.write(bytes(64 << 20))\nreturn True"
    assert not escaped(probe(tmp_path / "s", attack), sandbox)
    grown = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            status = os.stat(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if stat.S_ISREG(status.st_mode) and status.st_size > 1 << 20:
            grown.append(os.readlink(f"/proc/self/fd/{fd}"))
    assert grown == []


def test_the_jails_tmp_is_its_own(tmp_path, sandbox):
    marker = f"/tmp/hostile-marker-{os.getpid()}"
    escaped(probe(tmp_path / "s", f"open({marker!r}, 'w').write('x'); return False"), sandbox)
    assert not os.path.exists(marker)


WALK = """
import os, sys
found = []
skip = ('/proc', '/sys', '/usr', os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix))
for folder, dirs, files in os.walk('/'):
    dirs[:] = [d for d in dirs if os.path.join(folder, d) not in skip]
    {action}
"""


def test_nothing_a_component_writes_reaches_the_next(tmp_path, sandbox):
    """Wherever it can write, a component leaves a file; the next component (or student) finds none."""
    plant = WALK.format(
        action="try: open(os.path.join(folder, '.left-behind'), 'w').write('x')\n    except OSError: pass"
    )
    find = WALK.format(action="found += [f for f in files if f == '.left-behind']")
    # The control: the same walk plants and finds within one component.
    assert escaped(probe(tmp_path / "control", plant + find + "return bool(found)"), sandbox)
    assert not escaped(probe(tmp_path / "plant", plant + "return False"), sandbox)
    assert not escaped(probe(tmp_path / "find", find + "return bool(found)"), sandbox)


def test_no_network_in_the_jail(tmp_path, sandbox):
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    try:
        attack = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2); return True"
        assert not escaped(probe(tmp_path / "s", attack), sandbox)
    finally:
        listener.close()


def test_a_probe_whose_attack_works_scores(tmp_path, sandbox):
    """The probes' own control: an attack that needs no escape (reading its own /tmp) earns the points."""
    assert escaped(
        probe(tmp_path / "s", "open('/tmp/mine', 'w').write('x'); return open('/tmp/mine').read() == 'x'"), sandbox
    )


@pytest.mark.parametrize("name", ["ctypes", "sys_through_torch"])
def test_held_code_scores_zero_until_an_instructor_accepts_it(name, tmp_path, sandbox):
    component, code = FLAGGED[name]
    path = submission(tmp_path / name, files={f"{component}.py": needed_by(component, code)})
    report = grade(path, components=[component], sandbox=sandbox)
    (result,) = report.components
    assert result.flags and result.score == 0, f"{name} was not held"
    assert "HELD" in report.table() and any(f.startswith(component) for f in report.flags)
    assert "HELD for review (it never ran" in json.dumps(gradescope(report))
    assert reasons_said(result.fatal) == {"zero.held"}
    accepted = grade(path, components=[component], sandbox=sandbox, accept_flagged=True).components[0]
    assert accepted.flags and accepted.score == accepted.points and "accepted by the instructor" in accepted.feedback()


def test_attributes_by_a_computed_name_are_checked_where_they_run(tmp_path, sandbox):
    """Issue 34: getattr(f, "__glo" + "bals__") led to __builtins__, __import__, sys.modules and the tripwire. A
    computed name is allowed (honest code reads config fields so), and refused where it runs if the policy would
    refuse it written out."""
    attack = "found = getattr(causal_mask, '__glo' + 'bals__')\nreturn '__builtins__' in found"
    assert escaped(probe(tmp_path / "accepted", attack), sandbox), "the control: unchecked, the attack works"
    assert not escaped(probe(tmp_path / "checked", attack), sandbox, accept=False)
    assert not escaped(
        probe(tmp_path / "module", "import torch\nreturn getattr(torch, '_' + 'C') is not None"), sandbox, accept=False
    )


# Every kind of object a child hands the student's code: a reference function and class of another part (bound for
# isolation), a method of one, a traceback (to the child's frames), a value of torch's.
FORMAT_ROUTES = """
import torch

try:
    raise ValueError
except ValueError as error:
    caught = error
routes = [scaled_dot_product_attention, LayerNorm, LayerNorm.forward, caught, torch.zeros(1)]
fields = ['{0._' + '_code__.co_code}', '{0.forward._' + '_code__.co_consts}', '{0._' + '_traceback__.tb_frame.f_code.co_code}']
leaked = []
for route in routes:
    for field in fields:
        try:
            leaked.append(FORMAT(field, route))
        except Exception:
            pass
return len(leaked) >= 4
"""


@pytest.mark.parametrize(
    "spelling", ["field.format", "field.format_map", "str.format", "getattr(field, 'for' + 'mat')"], ids=str
)
def test_a_format_string_built_at_run_time_reads_nothing(tmp_path, sandbox, spelling):
    """Issue 47: '{0._' + '_code__.co_code}' built at run time read the bytecode, names and constants of the reference
    code objects a child binds for isolation (11 of 7 parts), which a disassembler turns back into the reference. Each
    spelling of a format of a string built at run time is held, or refused where it runs, on every route."""
    call = {
        "field.format": "field.format(route)",
        "field.format_map": "field.replace('{0', '{r').format_map({'r': route})",
        "str.format": "str.format(field, route)",
        "getattr(field, 'for' + 'mat')": "getattr(field, 'for' + 'mat')(route)",
    }[spelling]
    attack = FORMAT_ROUTES.replace("FORMAT(field, route)", call)
    # Without their files, scaled_dot_product_attention and LayerNorm are the references the child binds.
    drop = ("attention", "layernorm")
    assert escaped(probe(tmp_path / "accepted", attack, drop=drop), sandbox), "the control: accepted, it reads code"
    assert not escaped(probe(tmp_path / "checked", attack, drop=drop), sandbox, accept=False)


CALLBACK = """
def _forward(self, x):
    found = []
    torch.zeros(1).apply_(lambda v: found.append(torch.nn.functional.layer_norm(x, x.shape[-1:], self.weight, self.bias,
                                                                                self.eps)) or v)
    return found[0]


LayerNorm.forward = _forward
"""


def test_a_callback_torch_runs_inside_its_own_call_is_refused(tmp_path, sandbox):
    """A red team's: Tensor.apply_ runs its function inside a torch call, where the tripwire (a function mode) has
    stepped aside, and F.layer_norm scored 5/5 there. Held by the check; accepted, the tripwire refuses it."""
    path = submission(tmp_path / "s", files={"layernorm.py": spec.BY_ID["layernorm"].reference.read_text() + CALLBACK})
    (result,) = grade(path, components=["layernorm"], sandbox=sandbox, accept_flagged=True).components
    assert result.flags and result.score == 0
    assert "runs Python code inside a torch call" in result.feedback()
    assert "zero.callback" in reasons_said(result.feedback())


INDEX_CALLBACK = """
class _Box:
    def __init__(self, run):
        self.run, self.out = run, None

    def __index__(self):
        self.out = self.run()
        return 0


def _forward(self, x):
    box = _Box(lambda: torch.nn.functional.layer_norm(x, x.shape[-1:], self.weight, self.bias, self.eps))
    torch.zeros(1)[box]
    return box.out


LayerNorm.forward = _forward
"""


def test_an_object_whose_methods_torch_would_run_is_refused(tmp_path, sandbox):
    """A second red team's: torch calls an argument's __index__ or __len__ while it reads it, inside the call, where
    the tripwire has stepped aside; F.layer_norm scored 5/5 there. Accepted by an instructor, the call is refused."""
    path = submission(
        tmp_path / "s", files={"layernorm.py": spec.BY_ID["layernorm"].reference.read_text() + INDEX_CALLBACK}
    )
    (result,) = grade(path, components=["layernorm"], sandbox=sandbox, accept_flagged=True).components
    assert result.score == 0 and "passes a _Box to torch's" in result.feedback()
    assert "zero.foreign argument" in reasons_said(result.feedback())


# Issue 47's fourth wave: torch's own Python code, which runs while the tripwire (a function mode) has stepped aside,
# calls back into the student's objects. Each runs the kernel it is given there, and returns its result.
COPIED_KEY = """
import copy


def _unseen(run):
    found = {}

    class _Key:
        def __hash__(self):
            if found:  # not when it is put in the dict, where the tripwire watches
                found["out"] = run()
            return 0

    carrier = torch.zeros(1)
    carrier.__dict__[_Key()] = None
    found["armed"] = True
    copy.deepcopy(carrier)  # Tensor.__deepcopy__ hashes the keys of the tensor's __dict__
    return found["out"]
"""
MEMO_KEY = """
def _unseen(run):
    found = {}
    carrier = torch.zeros(1)

    class _Key:
        def __hash__(self):
            return hash(id(carrier))

        def __eq__(self, other):
            found["out"] = run()
            return False

    carrier.__deepcopy__({_Key(): None})  # `id(self) in memo` compares the memo's key with the tensor's id
    return found["out"]
"""
REDUCED = """
import copy

import torch


class _Reduced:
    def __init__(self, run):
        self.run = run

    def __reduce_ex__(self, protocol):
        return (self.run, ())


def _unseen(run):
    carrier = torch.zeros(1)
    carrier.result = _Reduced(run)
    return copy.deepcopy(carrier).result  # copy rebuilds the attribute by calling run, inside Tensor.__deepcopy__
"""
# What each component's attack delegates: torch's own kernel, run through _unseen.
UNSEEN_KERNELS = {
    "layernorm": """
def _forward(self, x):
    return _unseen(lambda: torch.nn.functional.layer_norm(x, x.shape[-1:], self.weight, self.bias, self.eps))


LayerNorm.forward = _forward
""",
    "attention": """
_own = scaled_dot_product_attention


def scaled_dot_product_attention(query, key, value, mask=None):
    weights = _own(query, key, value, mask)[1]
    return _unseen(lambda: torch.nn.functional.scaled_dot_product_attention(query, key, value, mask)), weights
""",
    "multihead": """
def _forward(self, hidden_states, mask=None, key_value_states=None):
    source = hidden_states if key_value_states is None else key_value_states
    q, k, v = (split_heads(f(x), self.num_heads) for f, x in ((self.query, hidden_states), (self.key, source), (self.value, source)))
    weights = scaled_dot_product_attention(q, k, v, mask)[1]
    context = _unseen(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, mask))
    return self.output(merge_heads(context)), weights


MultiHeadAttention.forward = _forward
""",
}


@pytest.mark.parametrize(
    ("component", "attack"),
    [("layernorm", COPIED_KEY), ("attention", MEMO_KEY), ("multihead", REDUCED)],
    ids=["deepcopy-hashes-a-key", "memo-compares-a-key", "deepcopy-reduces-an-attribute"],
)
def test_code_torch_calls_back_while_the_tripwire_steps_aside_is_watched(tmp_path, sandbox, component, attack):
    """Issue 47: Tensor.__deepcopy__ ran a key's __hash__, a memo's __eq__ and an attribute's __reduce_ex__ while the
    tripwire had stepped aside, and torch's attention and layer norm scored points there unseen (8.1 of 15 on
    multi-head attention). Beneath it, the dispatch watch names the kernel, or refuses the student's code on its way to one
    (docs/THREATS.md): which comes first depends on the kernels torch runs first."""
    code = spec.BY_ID[component].reference.read_text() + attack + UNSEEN_KERNELS[component]
    path = submission(tmp_path / "s", files={f"{component}.py": code})
    (result,) = grade(path, components=[component], sandbox=sandbox, accept_flagged=True).components
    said = reasons_said(result.feedback())
    assert result.score == 0 and said & {"zero.callback", f"delegation.{component}.kernel"}, result.feedback()


DYNAMIC_SUBCLASS = """
import torch
import torch.nn.functional as F


def _hidden(cls, func, types, args=(), kwargs=None):
    x, weight, bias, eps = cls.arguments
    return F.layer_norm(x, x.shape[-1:], weight, bias, eps)


def _forward(self, x):
    Quiet = type(type(x))("Quiet", (type(x),), {"__torch_function__": classmethod(_hidden)})
    Quiet.arguments = (x, self.weight, self.bias, self.eps)
    return Quiet(1) + 0


LayerNorm.forward = _forward
"""


def test_a_tensor_subclass_made_at_run_time_is_refused(tmp_path, sandbox):
    """Issue 34: a Tensor subclass's __torch_function__, entered from torch.add, ran F.layer_norm where the tripwire
    (a function mode, which steps aside while a subclass handles a call) never saw it. type(type(x))(...) builds the
    class past the check of bases; the tripwire refuses every tensor type that is not torch's own."""
    path = submission(
        tmp_path / "s", files={"layernorm.py": spec.BY_ID["layernorm"].reference.read_text() + DYNAMIC_SUBCLASS}
    )
    # The class's namespace names __torch_function__ in a string, which the check holds; accepted, it runs.
    (result,) = grade(path, components=["layernorm"], sandbox=sandbox, accept_flagged=True).components
    assert result.score == 0 and "subclass of torch.Tensor" in result.feedback()
    assert "zero.tensor subclass" in reasons_said(result.feedback())


KERNEL_ON_A_THREAD = """
import threading


def _forward(self, x):
    found = {}
    work = lambda: found.update(y=torch.nn.functional.layer_norm(x, x.shape[-1:], self.weight, self.bias, self.eps))
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    return found["y"]


LayerNorm.forward = _forward
"""


def test_a_kernel_named_and_run_where_the_tripwire_does_not_watch_scores_zero(tmp_path, sandbox):
    """Issue 34: a kernel run in a DataLoader worker (a thread here), where the tripwire does not watch, was reported
    as 'never ran while this part was graded, so the score stands'. Accepted by an instructor, it still scores 0.
    After another student in the same sandbox, too: the thread, joined, once went unseen in a child forked then."""
    before = submission(
        tmp_path / "before", files={"layernorm.py": spec.BY_ID["layernorm"].reference.read_text() + DYNAMIC_SUBCLASS}
    )
    grade(before, components=["layernorm"], sandbox=sandbox, accept_flagged=True)
    path = submission(
        tmp_path / "s", files={"layernorm.py": spec.BY_ID["layernorm"].reference.read_text() + KERNEL_ON_A_THREAD}
    )
    (result,) = grade(path, components=["layernorm"], sandbox=sandbox, accept_flagged=True).components
    assert result.score == 0 and "other threads or processes" in result.feedback()
    assert "delegation.any.spread" in reasons_said(result.feedback())
    assert "never ran" not in result.feedback()


FORGED_RESULT = """
import torch


class Forged(torch.Tensor):
    def detach(self):
        return torch.Tensor.detach(self).logical_not()


_honest_causal_mask = causal_mask


def causal_mask(*args, **kwargs):
    return (~_honest_causal_mask(*args, **kwargs)).as_subclass(Forged)
"""


def test_a_result_is_read_by_its_exact_type(tmp_path, sandbox):
    """Issue 34: the child read a result through its own detach(), after the tripwire had ended: a Tensor
    subclass ran whatever it liked there (here, it turns its wrong mask into the right one)."""
    path = submission(tmp_path / "s", files={"masking.py": spec.BY_ID["masking"].reference.read_text() + FORGED_RESULT})
    (result,) = grade(path, components=["masking"], sandbox=sandbox, accept_flagged=True).components
    causal = [t for t in result.tests if "causal" in t.name]
    assert causal and not any(t.passed for t in causal)
    assert "a subclass of torch.Tensor" in result.feedback()


def honest(folder):
    return submission(folder)


def test_processes_left_behind_die_with_their_component(tmp_path, sandbox):
    """A daemon that kills every new process, and 100 busy ones: the next student is graded as if alone. The busy
    ones spend their component's whole time limit: a smaller one (the tests' 20 s cost 16 s of CPU), twice what the
    honest parts graded after them need."""
    daemon = """
        import os, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                end = time.time() + 80
                while time.time() < end:
                    for pid in os.listdir('/proc'):
                        if pid.isdigit() and int(pid) > 2 and int(pid) != os.getpid():
                            try: os.kill(int(pid), 9)
                            except OSError: pass
            os._exit(0)
        for _ in range(100):
            if os.fork() == 0:
                while True: pass
        return False
    """
    limits = Limits(time=2)
    escaped(probe(tmp_path / "hostile", daemon), sandbox, limits=limits)
    assert sandbox.students() == []
    after = grade(honest(tmp_path / "honest"), components=["masking", "attention"], sandbox=sandbox, limits=limits)
    assert after.score == 15
    assert sandbox.students() == []


def test_a_killed_or_stopped_zygote_costs_the_next_student_nothing(tmp_path, sandbox):
    for number, attack in enumerate(
        ["import os; os.kill(1, 9); return False", "import os; os.kill(1, 19); return False"]
    ):
        escaped(probe(tmp_path / f"hostile{number}", attack), sandbox)
        after = grade(honest(tmp_path / f"honest{number}"), components=["masking", "attention"], sandbox=sandbox)
        assert after.score == 15


def processes_with(marker):
    """Pids of the processes whose environment holds marker: a batch's own, and the jails it started
    (inside a jail the environment is cleared, but its processes die with the bwrap that holds them).
    Tests running beside this one, as with pytest-xdist, start processes of their own without it."""
    found = set()
    for entry in os.scandir("/proc"):
        try:
            if entry.name.isdigit() and marker.encode() in Path(entry.path, "environ").read_bytes().split(b"\0"):
                found.add(int(entry.name))
        except OSError:
            pass
    return found


def test_threads_are_bounded_for_root_too(tmp_path, sandbox):
    """Issue 26, class 3: as root, RLIMIT_NPROC does not bind, and one child ran 1000 threads."""
    attack = (
        "import threading, time\nstop = threading.Event()\nfor _ in range(150):\n"
        "    threading.Thread(target=stop.wait, daemon=True).start()\ntime.sleep(3)\nreturn True"
    )
    assert not escaped(probe(tmp_path / "s", attack), sandbox)


def test_memory_of_all_a_components_processes_is_bounded(tmp_path, sandbox):
    hog = """
        import os, time
        for _ in range(2):
            if os.fork() == 0:
                block = bytearray(700 << 20)
                for i in range(0, len(block), 4096): block[i] = 1
                time.sleep(60)
        time.sleep(30)
        return True
    """
    limits = Limits(time=TIME_LIMIT, memory=1 << 30)
    (result,) = grade(
        probe(tmp_path / "s", hog), components=["masking"], sandbox=sandbox, accept_flagged=True, limits=limits
    ).components
    assert not any(t.passed for t in result.tests if "causal" in t.name)
    assert "GiB together" in result.feedback()
    assert "zero.memory" in reasons_said(result.feedback())
    assert sandbox.students() == []


THREADS = """
    import threading, time
    for _ in range(12):
        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
    time.sleep(20)
    return True
"""
FORKS = """
    import os, time
    for _ in range(12):
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
    time.sleep(20)
    return True
"""


@pytest.mark.parametrize(
    "reason, limits, body",
    [
        ("zero.threads", Limits(time=TIME_LIMIT, tasks=8), THREADS),
        pytest.param(
            "zero.processes",
            Limits(time=TIME_LIMIT, processes=4),
            FORKS,
            # RLIMIT_NPROC binds an unprivileged user's forks before the watchdog counts them (limits.py).
            marks=pytest.mark.skipif(os.geteuid() != 0, reason="the watchdog counts processes where root grades"),
        ),
    ],
    ids=["threads", "processes"],
)
def test_threads_and_processes_beyond_their_bound_end_the_component(tmp_path, sandbox, reason, limits, body):
    (result,) = grade(
        probe(tmp_path / "s", body), components=["masking"], sandbox=sandbox, accept_flagged=True, limits=limits
    ).components
    assert result.score == 0 and reasons_said(result.feedback()) == {reason}, result.feedback()
    assert sandbox.students() == []


def test_memory_processes_share_counts_once_and_is_bounded(tmp_path, sandbox):
    """Issue 34: pairs of processes sharing MAP_SHARED memory held 1.4 GiB under a 0.5 GiB limit, since the watchdog
    counted each process's private pages alone. Three pairs share 160 MiB each here, under a limit of 256 MiB."""
    # One pair at a time: each block is its maker's alone (private) only until its partner has touched every page.
    hog = """
        import mmap, os, time
        for _ in range(3):
            if os.fork() == 0:
                block = mmap.mmap(-1, 160 << 20, flags=mmap.MAP_SHARED)
                for i in range(0, len(block), 4096): block[i] = 1
                if os.fork() == 0:
                    for i in range(0, len(block), 4096): block[i] = 2
                time.sleep(60)
            time.sleep(2)
        time.sleep(6)
        return True
    """
    limits = Limits(time=TIME_LIMIT, memory=256 << 20)
    (result,) = grade(
        probe(tmp_path / "s", hog), components=["masking"], sandbox=sandbox, accept_flagged=True, limits=limits
    ).components
    assert not any(t.passed for t in result.tests if "causal" in t.name)
    assert "GiB together" in result.feedback(), result.fatal
    assert sandbox.students() == []


def test_special_files_and_links_are_skipped(tmp_path, sandbox):
    folder = honest(tmp_path / "s")
    (folder / "attention.py").unlink()
    os.mkfifo(folder / "attention.py")
    (folder / "layernorm.py").unlink()
    (folder / "layernorm.py").symlink_to(spec.BY_ID["layernorm"].reference)
    (folder / "extra.py").symlink_to("/dev/zero")
    (folder / "multihead.py").unlink()
    (folder / "multihead.py").symlink_to(
        spec.KIT_ROOT / "autograder" / "engine" / "judge" / "suites" / "test_multihead.py"
    )
    started = time.monotonic()
    report = grade(folder, components=["attention", "layernorm", "multihead", "masking"], sandbox=sandbox)
    assert time.monotonic() - started < 60
    scores = {c.id: c.score for c in report.components}
    assert scores == {"attention": 0, "layernorm": 0, "multihead": 0, "masking": 5}
    notes = "\n".join(report.notes)
    assert "attention.py was skipped: it is not a regular file" in notes
    assert "layernorm.py was skipped: it is a link to a file outside the submission" in notes
    assert "def test_" not in json.dumps(gradescope(report))


def test_input_that_would_crash_a_parser_is_a_note(tmp_path, sandbox):
    folder = honest(tmp_path / "s")
    (folder / "deep.py").write_text("x = " + " + ".join(["1"] * 4000) + "\n")
    nested = "[" * 1500 + "]" * 1500
    (folder / "deep.ipynb").write_text('{"cells": [], "metadata": ' + nested + "}")
    # Fifty times the notes a report keeps: 60,000 statements gave the same notes, and took 10 s to grade.
    (folder / "noisy.py").write_text("".join(f"v{i} = undefined_{i}\n" for i in range(3_000)))
    report = grade(folder, components=["masking"], sandbox=sandbox)
    assert report.components[0].score == 5
    assert len(report.notes) <= 60 and report.notes[-1].startswith("and ")
    assert any("deep.ipynb" in note for note in report.notes)


def test_huge_answers_and_messages_are_bounded(tmp_path, sandbox):
    extra = """
import torch

def padding_mask(attention_mask):
    print("x" * (40 << 20))
    raise ValueError("y" * (10 << 20))
"""
    folder = submission(
        tmp_path / "s",
        files={
            "masking.py": spec.BY_ID["masking"].reference.read_text()
            + extra
            + """
def causal_mask(size, device=None):
    return torch.zeros(270_000_000)
"""
        },
    )
    report = grade(folder, components=["masking"], sandbox=sandbox)
    (result,) = report.components
    assert result.score == 0 and "larger than allowed" in result.feedback()
    assert len(json.dumps(gradescope(report))) < 100_000


def test_a_loop_at_import_costs_one_time_limit_not_eleven(tmp_path, sandbox, monkeypatch):
    folder = submission(tmp_path / "s", files={"zz_loop.py": "while True:\n    pass\n"})
    started, start = [], sandbox.start
    monkeypatch.setattr(
        sandbox, "start", lambda component_id, *args: started.append(component_id) or start(component_id, *args)
    )
    # The loop spends all of its limit, once; nothing honest is graded.
    report = grade(folder, sandbox=sandbox, limits=Limits(time=1))
    assert started == ["attention"], "every later component takes the first one's reason without running"
    assert report.score == 0
    assert all("time limit" in (c.fatal or "") for c in report.components)


def test_the_batch_finishes_and_writes_every_row(tmp_path):
    """grade-all: a daemon that outlives its grader and tries to rewrite the results; every row is right."""
    folder = tmp_path / "class"
    csv_path, json_dir = tmp_path / "grades.csv", tmp_path / "reports"
    honest(folder / "ada")
    rewrite = f"""
        import os, time
        if os.fork() == 0:
            os.setsid()
            time.sleep(8)
            open({str(csv_path)!r}, 'w').write('hacked')
            os._exit(0)
        return False
    """
    probe(folder / "bob", rewrite)
    honest(folder / "cy")
    (folder / "dan.py").symlink_to("/dev/zero")
    batch = f"{tmp_path.name}-{os.getpid()}"
    marker, env = f"KIT_TEST_BATCH={batch}", dict(os.environ, KIT_TEST_BATCH=batch)
    control = subprocess.Popen(["sleep", "60"], env=env)
    # The check below must see a process that carries the marker. Popen returns once the child's
    # close-on-exec pipe closes, which is before the kernel has set up the new environment, so a read
    # of /proc/<pid>/environ right away can still come back empty.
    deadline = time.monotonic() + 10
    while processes_with(marker) != {control.pid} and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_with(marker) == {control.pid}
    control.kill()
    control.wait()
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade-all",
            folder,
            "--csv",
            csv_path,
            "--json-dir",
            json_dir,
            "--accept-flagged",
            "bob",
        ],
        capture_output=True,
        text=True,
        cwd=KIT,
        timeout=600,
        env=env,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    written, reports = csv_path.read_text(), {p: p.read_text() for p in json_dir.iterdir()}
    time.sleep(10)
    assert csv_path.read_text() == written and {p: p.read_text() for p in json_dir.iterdir()} == reports
    assert processes_with(marker) == set(), "a process of the batch outlived it"
    rows = {line.split(",")[0]: line for line in written.splitlines()[1:]}
    assert set(rows) == {"ada", "bob", "cy", "dan.py"}
    assert rows["ada"].split(",")[1] == rows["cy"].split(",")[1] == "100.0"
    assert rows["bob"].split(",")[1] == "97.5"  # its causal masks are wrong: the attack failed
    assert "could not be read: dan.py was skipped: it is a link to a file outside the submission" in rows["dan.py"]


def test_without_a_jail_the_grader_refuses_unless_told(monkeypatch, tmp_path):
    monkeypatch.setattr(jail, "bwrap", lambda: None)
    jail.check.cache_clear()
    try:
        with pytest.raises(jail.JailUnavailable, match="install bubblewrap"):
            Sandbox()
        report = grade(honest(tmp_path / "s"), components=["masking"], limits=Limits(time=TIME_LIMIT, jail=False))
    finally:
        jail.check.cache_clear()
    assert report.score == 5
    assert "WITHOUT the jail" in report.table() and "WITHOUT the jail" in gradescope(report)["output"]


def test_the_folder_the_grader_runs_from_is_not_in_the_jail(tmp_path):
    """`python -m autograder grade-all submitted/` from a course folder puts that folder on the grader's
    sys.path: every student's work and the instructor's source notebooks are there."""
    course_folder = tmp_path / "course"
    (course_folder / "source").mkdir(parents=True)
    (course_folder / "source" / "answers.txt").write_text("the instructor's answers")
    attack = f"return 'answers' in open({str(course_folder / 'source' / 'answers.txt')!r}).read()"
    probe(course_folder / "submitted" / "mallory", attack)
    out = tmp_path / "results.json"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            "submitted/mallory",
            "--component",
            "masking",
            "--accept-flagged",
            "--json",
            out,
        ],
        cwd=course_folder,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(spec.KIT_ROOT)),
    )
    assert run.returncode == 0, run.stdout + run.stderr
    (masking,) = json.loads(out.read_text())["tests"]
    assert masking["status"] == "failed" and "causal" in masking["output"], "the course folder was readable in the jail"


def test_a_quiz_sheet_runs_through_the_same_check(sandbox):
    """Its held statements never run (os, sys, gc, ctypes, subprocess, open, eval, builtins): only the honest answers come."""
    names = [f"answer_{n}" for n in range(1, 8)]
    assert sandbox.answers(SHEET, names) == {"answer_6": "C", "answer_7": 42}
