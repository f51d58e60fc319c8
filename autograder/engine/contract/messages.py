"""The wire's vocabulary: what the judge asks of a child, what a child answers, and how values that are not plain
data are marked. protocol.py frames the bytes; this names what they say, for both sides.

A request is {"op": one of OPS, ...} (Requests builds them). The child answers {"ok": True, "value": ...} or
{"ok": False, "kind": FORBIDDEN, UNWATCHED or EXCEPTION, "message": ...}, and says in "spread" whether code ran
in other threads or processes. In values, a dict with one of the keys below stands for what JSON cannot carry.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the jail imports nothing more than it runs
    from typing import TypeGuard

NEW, LOAD, CALL, TRAIN = "new", "load", "call", "train"
OPS = (NEW, LOAD, CALL, TRAIN)

TENSOR = "$tensor"  # {TENSOR: array, "dtype": "float32", "device": "cpu"}: a tensor's value, read out as data
OBJECT = "$object"  # {OBJECT: name}: an object the child built (new) and keeps under that name
CONFIG = "$config"  # {CONFIG: {field: value}}: a BertConfig's attributes, a namespace in the child
INPUT = "$input"  # {INPUT: name}: a case's input of that name (fixtures.Case)
OTHER = "$other"  # {OTHER: type name}: a value that is not plain data, by its type's name
DEVICE = "$device"  # {DEVICE: "cpu"}: a torch.device argument
STATUS = "$status"  # {STATUS: "frozen"} (FROZEN): in place of a gradient, a parameter that does not require one
FROZEN = {STATUS: "frozen"}

FORBIDDEN = "forbidden"  # the code delegated its component's subject to a library: it scores 0
UNWATCHED = "unwatched"  # the code would have run where the tripwire cannot watch: it scores 0
EXCEPTION = "exception"  # the code raised: this test fails, with the message
REFUSALS = (FORBIDDEN, UNWATCHED)


def ok(value: object, spread: bool) -> dict[str, object]:
    return {"ok": True, "value": value, "spread": spread}


def failed(kind: str, message: str, spread: bool) -> dict[str, object]:
    return {"ok": False, "kind": kind, "message": message, "spread": spread}


def well_formed(reply: object) -> TypeGuard[dict[str, object]]:
    """A reply the judge can read: ok is a bool, with the value or the message it promises."""
    return (
        isinstance(reply, dict)
        and isinstance(reply.get("ok"), bool)
        and ("value" if reply["ok"] else "message") in reply
    )


class Requests:
    """What the suites ask of a student's code, as messages to request(): a child's (over its socket), or the
    public checks' stand-in's (course/local.py, in the student's own process)."""

    def new(self, target: str, *args: object, **kwargs: object) -> dict[str, object]:
        return {OBJECT: self.request({"op": NEW, "target": target, "args": list(args), "kwargs": kwargs})}

    def load(self, obj: dict[str, object], params: Mapping[str, object]) -> None:
        self.request({"op": LOAD, "object": obj[OBJECT], "params": params})

    def call(
        self,
        target: str | dict[str, object],
        *args: object,
        dtype: str | None = None,
        return_inputs: bool = False,
        **kwargs: object,
    ) -> object:
        return self.request(
            {
                "op": CALL,
                "target": target,
                "args": list(args),
                "kwargs": kwargs,
                "dtype": dtype,
                "return_inputs": return_inputs,
            }
        )

    def train(
        self,
        target: str | dict[str, object],
        *args: object,
        dtype: str | None = None,
        upstream: Iterable[object] = (),
        **kwargs: object,
    ) -> object:
        """The call in train mode, then one backward pass from upstream (a gradient per output, or None)."""
        return self.request(
            {
                "op": TRAIN,
                "target": target,
                "args": list(args),
                "kwargs": kwargs,
                "dtype": dtype,
                "upstream": list(upstream),
            }
        )

    def request(self, message: dict[str, object]) -> object:
        raise NotImplementedError


def describe(message: dict[str, object]) -> str:
    """What a request has the student's code do, as a message about it says it ("while running Encoder")."""
    target = message.get("target")
    name = "a method of an object it built" if isinstance(target, dict) else target
    return {
        NEW: f"building {name}",
        LOAD: "loading weights",
        CALL: f"running {name}",
        TRAIN: f"running {name} in train mode",
    }[str(message["op"])]
