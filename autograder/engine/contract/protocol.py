"""The wire format between the judge and the child that runs student code.

A message is a JSON header followed by raw array bytes. Only plain data crosses: numbers, strings,
lists, dicts and numeric arrays of a fixed set of dtypes. Nothing is ever unpickled.
"""

import json
import math
import re
import socket
import struct
import time

import numpy as np

from autograder.engine.contract.errors import StudentFault

ARRAY_DTYPES = frozenset(
    np.dtype(name).str for name in ("bool", "int8", "uint8", "int16", "int32", "int64", "float16", "float32", "float64")
)
FRAME = struct.Struct("!QQ")  # header bytes, array bytes
PID = struct.Struct("!Q")  # how the zygote tells the judge a process id
MAX_MESSAGE_BYTES = 1 << 30  # what a child accepts from the judge (the submission's text, weights)
MAX_REPLY_BYTES = 64 << 20  # what the judge accepts from a child: far above any right answer
# The label prefix of the kit's own code that the judge sends a child: tracebacks never quote it.
REFERENCE_LABEL = "<kit> "
MAX_HEADER_BYTES = 16 << 20


# Characters a terminal, a spreadsheet or a reader acts on rather than shows: C0 and C1 controls (escape
# sequences, carriage returns, newlines), and Unicode's line separators and direction overrides; and the lone
# surrogates no file can hold in UTF-8, which stopped a class's CSV: a student's str can carry them (an error's
# message, JSON's \ud800), and so can a name read from disk, whose bytes that are not UTF-8 Python keeps as
# U+DC80..U+DCFF (os.fsdecode's surrogateescape).
INVISIBLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]"
)


def visible(text: str, newlines: bool = False) -> str:
    """text with each character of INVISIBLE written as its Python escape (ESC as \\x1b), newlines kept only
    where asked: whatever a student wrote is shown, and can neither move the cursor nor start a line."""
    return INVISIBLE.sub(lambda m: m.group() if newlines and m.group() == "\n" else _escape(m.group()), text)


def _escape(character: str) -> str:
    """A character as its Python escape; a byte that was not UTF-8 in a name read from disk as the byte itself."""
    if "\udc80" <= character <= "\udcff":
        return f"\\x{ord(character) - 0xDC00:02x}"
    return repr(character)[1:-1]


def visible_name(name: str) -> str:
    """A file or folder name as shown and stored: visible(), with backslashes doubled so that it reads back
    to one name only."""
    return visible(name.replace("\\", "\\\\"))


class ProtocolError(StudentFault):
    """The other side sent something that is not a well-formed message."""


class Timeout(StudentFault):
    """No complete message arrived before the deadline."""


class Closed(StudentFault):
    """The other side closed the connection (in the child's case: it exited or crashed)."""


def encode(value: object, arrays: list[np.ndarray]) -> object:
    """Replace every array in a nested value by a {"$array": index} reference appended to arrays."""
    if isinstance(value, np.ndarray):
        if value.dtype.str not in ARRAY_DTYPES:
            raise ProtocolError(f"arrays of dtype {value.dtype} cannot be sent")
        arrays.append(np.ascontiguousarray(value).reshape(value.shape))  # ascontiguousarray makes a 0-d array 1-d
        return {"$array": len(arrays) - 1}
    if isinstance(value, (list, tuple)):
        return [encode(v, arrays) for v in value]
    if isinstance(value, dict):
        return {k: encode(v, arrays) for k, v in value.items()}
    return value


def decode(value: object, arrays: list[np.ndarray]) -> object:
    if isinstance(value, list):
        return [decode(v, arrays) for v in value]
    if isinstance(value, dict):
        if set(value) == {"$array"}:
            return arrays[value["$array"]]
        return {k: decode(v, arrays) for k, v in value.items()}
    return value


def send(sock: socket.socket, message: object) -> None:
    arrays: list[np.ndarray] = []
    header = encode(message, arrays)
    body = json.dumps({"message": header, "arrays": [[a.dtype.str, a.shape] for a in arrays]}).encode()
    payload = [a.tobytes() for a in arrays]
    sock.sendall(FRAME.pack(len(body), sum(map(len, payload))) + body + b"".join(payload))


def receive(sock: socket.socket, deadline: float | None = None, limit: int = MAX_MESSAGE_BYTES) -> object:
    """The next message; deadline is a time.monotonic() value, or None to wait for ever.

    Whatever the other side sends, this returns plain data or raises one of this module's errors: sizes
    are checked before anything is read, and nesting too deep for Python is refused.
    """
    header_size, array_size = FRAME.unpack(read(sock, FRAME.size, deadline))
    if header_size + array_size > limit or header_size > MAX_HEADER_BYTES:
        raise ProtocolError(f"a message of {header_size + array_size} bytes is larger than allowed")
    try:
        body = json.loads(read(sock, header_size, deadline))
        data = memoryview(read(sock, array_size, deadline))
        arrays, offset = [], 0
        for dtype, shape in body["arrays"]:
            if dtype not in ARRAY_DTYPES:
                raise ProtocolError(f"unexpected array dtype {dtype!r}")
            if not isinstance(shape, list) or not all(type(n) is int and n >= 0 for n in shape):
                raise ProtocolError("an array's shape is not a list of sizes")
            dtype = np.dtype(dtype)
            size = dtype.itemsize * math.prod(shape)  # Python's integers: a forged [2**70] cannot overflow
            if offset + size > array_size:
                raise ProtocolError("array sizes do not add up")
            arrays.append(np.frombuffer(data[offset : offset + size], dtype=dtype).reshape(shape))
            offset += size
        if offset != array_size:
            raise ProtocolError("array sizes do not add up")
        return decode(body["message"], arrays)
    except (ValueError, TypeError, KeyError, IndexError, RecursionError) as error:
        raise ProtocolError(f"a malformed message ({type(error).__name__})") from None


def read(sock: socket.socket, size: int, deadline: float | None) -> bytes:
    """Exactly size bytes, or Timeout at the deadline, or Closed when the other side has gone."""
    chunks, remaining = [], size
    while remaining:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Timeout
            sock.settimeout(left)
        try:
            chunk = sock.recv(min(remaining, 1 << 20))
        except TimeoutError:
            raise Timeout from None
        except (ConnectionResetError, BrokenPipeError, OSError):
            raise Closed from None
        if not chunk:
            raise Closed
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
