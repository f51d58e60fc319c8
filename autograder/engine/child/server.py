"""The process that runs student code for one component, and answers the judge's requests.

Forked by the zygote, in the jail, with torch already imported. It receives everything it needs as
plain data: the student's source, and the reference source of the other components it may use (never
the one it grades). It sends back only arrays and text. The first child of a submission only parses
it (parse): the judge never does. What it runs of the student's, it runs under the tripwire (tripwire.py).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import itertools
import os
import signal
import types
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import torch
from torch.nn.parameter import is_lazy

from autograder.engine.child import allowed, binding, confinement, effects, runtime, scrutiny, stateful, train_mode
from autograder.engine.child.plain import answer, gradient, plain
from autograder.engine.child.tripwire import Forbidden, Tripwire, Unwatched
from autograder.engine.contract import loader, messages, protocol, spec
from autograder.engine.contract.errors import SubmissionError
from autograder.engine.contract.reasons import DELEGATION

if TYPE_CHECKING:  # annotations only: the child imports nothing more than it runs
    import socket
    from collections.abc import Callable, Iterable
    from typing import TypeVar

    Result = TypeVar("Result")

    # A message from the judge, as protocol.receive decodes it: the judge's own, so read without doubt.
    Message = dict[str, Any]

FLOAT_DTYPES = {"float32": torch.float32, "float64": torch.float64}
# The module a quiz sheet's cells run in, as the statements of one notebook's kernel.
ANSWERS = "answers"


class Server:
    def __init__(self, sock: socket.socket | None, setup: Message) -> None:
        self.sock = sock
        self.device = torch.device(setup["device"])
        self.forbidden = tuple(setup["forbidden"])
        self.forbidden_in_python = tuple(setup.get("forbidden_in_python", ()))
        self.verdicts: dict[Callable[..., object], str | None] = {}
        self.reason: str = setup["reason"]
        self.memory_limit: int | None = setup["memory_limit"]
        self.objects: dict[int, Any] = {}  # what do_new built, by the number the judge names it by
        self.names: dict[str, object] = {}
        # names that statements the static check held or skipped would have defined: why
        self.missing: dict[str, str] = {}
        # Whether student code ran anywhere the tripwire does not watch: another thread, a forked process.
        self.spread = False

    def forking(self) -> None:
        self.spread = True

    def load(self, setup: Message) -> dict[str, object]:
        references = (
            runtime.load_reference(setup["references"], setup["reference_names"]) if setup["reference_names"] else {}
        )
        if self.device.type == "cuda":
            torch.cuda.init()
            torch.backends.cuda.matmul.allow_tf32 = False  # float32 means float32, as on the CPU
            torch.backends.cudnn.allow_tf32 = False
        confinement.confine(setup["memory_limit"], self.device, setup.get("processes"))
        owners = setup["submission"]["owners"]
        # A notebook's quick test of a part from another notebook runs with what grading binds there.
        own = {unit["module"] for unit in setup["submission"]["units"]} | set(spec.BY_ID)
        modules, problems = runtime.load_modules(
            setup["submission"]["units"],
            keep=True,
            shared_names=spec.ALL_NAMES,
            given=references,
            builtins=None if setup.get("accepted") else allowed.students_builtins(own),
        )
        self.missing = setup.get("missing", {})
        student = runtime.collect(modules, owners, setup["graded_names"])
        theirs = runtime.collect(modules, owners, references)
        others = {
            name: binding.extend(obj, theirs[name]) if name in theirs else obj for name, obj in references.items()
        }
        # Notebooks do not import each other: a class in one finds the others' names only if they are bound
        # there. The graded names are the student's own; every other name is the reference's, with the
        # student's own additions to it (binding.py).
        runtime.patch_names(modules, {**others, **student})
        self.names = {**others, **student}
        return {"pid": os.getpid(), "problems": problems, "defined": sorted(student)}

    def serve(self) -> None:
        assert self.sock is not None, "a server with no judge (course/local.py) is asked in its own process"
        while True:
            try:
                request = cast("Message", protocol.receive(self.sock))
            except protocol.Closed:
                return
            try:
                reply = messages.ok(getattr(self, "do_" + request["op"])(request), self.spread)
            except Forbidden as error:
                reply = messages.failed(messages.FORBIDDEN, str(error), self.spread)
            except Unwatched as error:
                reply = messages.failed(messages.UNWATCHED, str(error), self.spread)
            except BaseException as error:  # noqa: BLE001 - whatever the student's code raises is reported
                reply = messages.failed(messages.EXCEPTION, self._explain(error), self.spread)
            protocol.send(self.sock, reply)

    def _explain(self, error: BaseException) -> str:
        message = runtime.describe(error)
        if isinstance(error, NameError) and error.name in self.missing:
            message += f" — {error.name} is not defined because {self.missing[error.name]}, so it was not run"
        if self.memory_limit and (isinstance(error, MemoryError) or "can't allocate memory" in str(error)):
            message += (
                f" — out of memory: the limit is {self.memory_limit / 2**30:g} GiB beyond what torch itself takes"
            )
        return message

    def do_new(self, request: Message) -> int:
        target = self._name(request["target"])
        args, kwargs = self._values(request["args"], None), self._values(request["kwargs"], None)

        def build() -> object:
            obj = target(*args, **kwargs)
            if isinstance(obj, torch.nn.Module):
                for module in torch.nn.Module.modules(obj):
                    if type(module).__module__.split(".")[0] == "transformers":
                        raise Forbidden(DELEGATION["any"]["transformers"])
                if self.device.type != "cpu":  # what a constructor builds is on the CPU already
                    obj.to(self.device)
            return obj

        self.objects[len(self.objects)] = self._guarded(None, build)
        return len(self.objects) - 1

    def do_load(self, request: Message) -> None:
        """Copy parameters by SPEC name, strictly: every name must exist, with its shape, and no other."""
        self._guarded(None, lambda: runtime.load_parameters(self.objects[request["object"]], request["params"]))

    def do_call(self, request: Message) -> dict[str, object]:
        if request.get("effect"):
            return self._effect(request)
        target, args, kwargs, dtype = self._arguments(request)

        def call() -> dict[str, object]:
            # Every module in the call, the target or an argument (greedy_decode's model), runs in the
            # call's dtype, in eval mode: dropout has no place in an eval-mode parity check.
            for module in _modules(target, args, kwargs, dtype):
                module.eval()
            reply = {"result": plain(target(*args, **kwargs))}
            if request.get("return_inputs"):
                reply["inputs"] = plain(args)
            return reply

        with torch.no_grad():
            return self._guarded(dtype, call)

    def do_train(self, request: Message) -> dict[str, object]:
        """The call in train mode, dropout replaced by its stand-in, then one backward pass from the given
        upstream gradients: the outputs, and the gradients of the float inputs and of every parameter."""
        target, args, kwargs, dtype = self._arguments(request)
        upstream = [None if u is None else self._values(u, dtype) for u in request["upstream"]]

        def train() -> dict[str, object]:
            # Everything is read, and copied out as plain data, before the guard ends: once it has, nothing of
            # the student's (a method of their result, a hook on a gradient) runs again.
            _modules(target, args, kwargs, dtype)
            result, leaves, named, graph = train_mode.run(target, args, kwargs, upstream)
            params = train_mode.parameter_gradients(target) if isinstance(target, torch.nn.Module) else {}
            return {
                "result": plain(result),
                "graph": graph,
                "inputs": {
                    "args": [gradient(a) for a in leaves],
                    "kwargs": {k: gradient(v) for k, v in named.items()},
                },
                "params": {name: grad if grad is messages.FROZEN else plain(grad) for name, grad in params.items()},
            }

        return self._guarded(dtype, train)

    def _effect(self, request: Message) -> dict[str, object]:
        """A call graded by its effect (effects.py): "clip" reads the gradients after it, "step" the weights; or with
        state the wire cannot carry (stateful.py): "draw" from a seeded generator, "cache" over calls in turn."""
        target, args, kwargs, dtype = self._arguments(request)

        def run() -> dict[str, object]:
            if request["effect"] == "draw":
                (logits,) = args
                return {"result": plain(stateful.draw(target, logits, kwargs))}
            if request["effect"] == "cache":
                _modules(target, args, kwargs, dtype)
                calls = stateful.cached(target, *args)
                return {"result": [{key: plain(value) for key, value in call.items()} for call in calls]}
            if request["effect"] == "clip":
                result, grads = effects.clip(target, *args)
                return {"result": plain(result), "grads": [plain(grad) for grad in grads]}
            _modules(target, args, kwargs, dtype)
            model, batch, learning_rate = args
            result, params, training = effects.step(target, model, batch, learning_rate, kwargs)
            return {"result": plain(result), "params": {k: plain(v) for k, v in params.items()}, "training": training}

        return self._guarded(dtype, run)

    def _arguments(self, request: Message) -> tuple[Any, list[Any], dict[str, Any], torch.dtype | None]:
        """The request's target, arguments and dtype, as objects; nothing of the student's runs here."""
        dtype = FLOAT_DTYPES.get(request.get("dtype") or "")
        target = request["target"]
        target = self._values(target, dtype) if isinstance(target, dict) else self._name(target)
        return target, self._values(request["args"], dtype), self._values(request["kwargs"], dtype), dtype

    def _guarded(self, dtype: torch.dtype | None, call: Callable[[], Result]) -> Result:
        """call() under the tripwire, with new tensors in the run's dtype and on its device (as they would be
        in a program written for that dtype and device alone); Forbidden if it delegated its subject."""
        tripwire = Tripwire(self.forbidden, self.verdicts, self.forbidden_in_python)
        previous = torch.get_default_dtype()
        device = torch.device(self.device) if self.device.type != "cpu" else contextlib.nullcontext()
        try:
            torch.set_default_dtype(dtype or previous)
            with device, tripwire:
                return call()
        finally:
            torch.set_default_dtype(previous)
            self.spread = self.spread or len(os.listdir("/proc/self/task")) > 1
            # Also when the call raised: a kernel that ran and failed (or whose error the code caught) was delegated to.
            if tripwire.transformers:
                raise Forbidden(DELEGATION["any"]["transformers"])
            if tripwire.kernels:
                raise Forbidden(self.reason.format(call=", ".join(sorted(set(tripwire.kernels)))))
            if tripwire.refused:
                raise Unwatched(tripwire.refused)

    def _name(self, name: str) -> Any:
        if name not in self.names:
            raise NameError(f"{name} is not defined in the submission")
        return self.names[name]

    def _values(self, value: object, dtype: torch.dtype | None) -> Any:
        """Request values -> Python objects: arrays become tensors on the device, configs namespaces."""
        if isinstance(value, np.ndarray):
            tensor = torch.from_numpy(np.array(value)).to(self.device)
            return tensor.to(dtype) if dtype is not None and tensor.is_floating_point() else tensor
        if isinstance(value, list):
            return [self._values(v, dtype) for v in value]
        if isinstance(value, dict):
            if messages.CONFIG in value:
                return types.SimpleNamespace(**value[messages.CONFIG])  # a BertConfig's attributes (hf.spec_config)
            if messages.OBJECT in value:
                return self.objects[value[messages.OBJECT]]
            if messages.DEVICE in value:
                device = torch.device(value[messages.DEVICE])
                if device.type == "lazy":
                    _start_lazy_tensors()
                return device
            return {k: self._values(v, dtype) for k, v in value.items()}
        return value


@functools.cache
def _start_lazy_tensors() -> None:
    """torch's lazy tensors, once a process (a second start raises): masking's device case asks for a mask there. They
    record what is made on them and compute it on the CPU when read; unlike the meta device, whose first operation
    imports torch's compiler (more than a second), they cost no more than a call."""
    from torch._lazy import ts_backend

    ts_backend.init()


def _modules(
    target: object, args: Iterable[object], kwargs: dict[str, object], dtype: torch.dtype | None
) -> list[torch.nn.Module]:
    """The modules among a call's target and arguments, each put in the call's dtype (inside the guard: a
    module's own `to` may be the student's)."""
    modules = [m for m in [target, *args, *kwargs.values()] if isinstance(m, torch.nn.Module)]
    dtype = dtype or torch.get_default_dtype()
    for module in modules:
        if not _in_dtype(module, dtype):
            module.to(dtype)
    return modules


def _in_dtype(module: torch.nn.Module, dtype: torch.dtype) -> bool:
    """Whether `module.to(dtype)` would change nothing: every floating parameter and buffer is in dtype already, and
    none is a lazy module's, which `to` would give the dtype it is made in. `to` walks the whole module through the
    tripwire, and a case calls a module many times: most calls need not. torch's own parameters() and buffers(),
    not overrides of the student's, which could hide a tensor that `to` would still convert."""
    for tensor in itertools.chain(torch.nn.Module.parameters(module), torch.nn.Module.buffers(module)):
        if is_lazy(tensor) or (tensor.is_floating_point() and tensor.dtype != dtype):
            return False
    return True


def parse(files: Message, memory_limit: int | None) -> dict[str, object]:
    """The submission's units and the static check's flags, from its files' text: no student code runs."""
    confinement.confine(memory_limit, torch.device("cpu"))
    try:
        submission = loader.load_files(files["name"], files["files"], files["notes"])
    except SubmissionError as error:
        return {"error": str(error)}
    except (RecursionError, MemoryError) as error:
        return {"error": f"it is too large or too deeply nested to read ({type(error).__name__})"}
    verdict = scrutiny.check(submission)
    submission.notes += verdict.notes
    skipped = [verdict.skipped.get(index, []) for index in range(len(submission.units))]
    unreadable = {id(unit) for unit, _ in verdict.unreadable}
    for unit, reason in verdict.unreadable:
        submission.notes.append(f"{unit.label} was not run: the grader's check cannot read it ({reason})")
    for unit, skip in zip(submission.units, skipped):
        unit.skip = skip
    submission.units = [unit for unit in submission.units if id(unit) not in unreadable]
    return {
        "submission": submission.as_message(),
        "notes": submission.notes,
        "held": verdict.held,
        "kernels": verdict.kernels,
        "missing": verdict.missing,
    }


def answers(request: Message, memory_limit: int | None) -> dict[str, object]:
    """A quiz sheet's answers: its code cells run in order in one namespace, as its kernel would run them, through
    the static check as any submission's code: a statement that uses what the policy does not lend, or needs one
    that does, stops its cell there, unrun.

    A cell that fails leaves the answers it did not set unanswered, and the next cells still run.
    """
    confinement.confine(memory_limit, torch.device("cpu"))
    units = [loader.Unit(ANSWERS, f"answer cell {number}", code) for number, code in enumerate(request["cells"], 1)]
    verdict = scrutiny.check(loader.Submission(units, {}))
    namespace: dict[str, object] = {"__name__": "__main__", "__builtins__": allowed.students_builtins()}
    for index, unit in enumerate(units):
        # The student's error is theirs; the bank's check says what is missing.
        with contextlib.suppress(BaseException):
            _run_cell(unit, {tuple(where) for where in verdict.skipped.get(index, ())}, namespace)
    return {"answers": {name: answer(namespace[name]) for name in request["names"] if name in namespace}}


def _run_cell(unit: loader.Unit, skipped: set[tuple[int, ...]], namespace: dict[str, object]) -> None:
    tree = ast.parse(unit.code)
    for statement in tree.body:
        if (statement.lineno, statement.col_offset) in skipped:
            return
        runtime.stub(statement, skipped)
        module = ast.Module([statement], type_ignores=[])
        exec(
            compile(module, unit.label, "exec", flags=runtime.FUTURE_FLAGS["annotations"], dont_inherit=True), namespace
        )


def main(sock: socket.socket) -> None:
    confinement.die_with_zygote()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # student prints must not reach the grader's output
    os.dup2(devnull, 2)
    torch.set_num_threads(1)
    setup = cast("Message", protocol.receive(sock))
    if "parse" in setup:
        protocol.send(sock, parse(setup["parse"], setup["memory_limit"]))
        return
    if "answers" in setup:
        protocol.send(sock, answers(setup["answers"], setup["memory_limit"]))
        return
    server = Server(sock, setup)
    os.register_at_fork(before=server.forking)
    confinement.mark_threads(server.forking)
    try:
        hello = server.load(setup)
    except BaseException as error:  # noqa: BLE001
        hello = {"pid": os.getpid(), "problems": [runtime.describe(error)], "defined": [], "failed": True}
    protocol.send(sock, hello)
    server.serve()
