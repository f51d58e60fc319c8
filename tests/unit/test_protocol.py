"""The judge-child wire format: plain data and numeric arrays only."""

import json
import socket

import numpy as np
import pytest

from autograder.engine.contract import protocol


def roundtrip(message):
    a, b = socket.socketpair()
    with a, b:
        protocol.send(a, message)
        return protocol.receive(b)


def test_nested_values_and_arrays_survive():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    back = roundtrip({"op": "call", "args": [x, {"$config": {"hidden_size": 8}}, None, 2.5], "flags": [True]})
    assert np.array_equal(back["args"][0], x) and back["args"][0].dtype == np.float32
    assert back["args"][1:] == [{"$config": {"hidden_size": 8}}, None, 2.5] and back["flags"] == [True]


def test_object_arrays_are_refused():
    with pytest.raises(protocol.ProtocolError):
        roundtrip({"x": np.array([object()])})


def test_received_dtypes_are_checked():
    a, b = socket.socketpair()
    with a, b:
        body = b'{"message": {"$array": 0}, "arrays": [["|O", [1]]]}'
        a.sendall(protocol.FRAME.pack(len(body), 8) + body + bytes(8))
        with pytest.raises(protocol.ProtocolError):
            protocol.receive(b)


@pytest.mark.parametrize("shape", [[2**70], [2**40, 2**40], [-1], [1.5], "12", [True]])
def test_forged_array_shapes_are_refused(shape):
    """Issue 34: a shape of [2**70] overflowed numpy's product, an OverflowError the judge did not expect."""
    a, b = socket.socketpair()
    with a, b:
        body = json.dumps({"message": {"$array": 0}, "arrays": [["<f8", shape]]}).encode()
        a.sendall(protocol.FRAME.pack(len(body), 8) + body + bytes(8))
        with pytest.raises(protocol.ProtocolError):
            protocol.receive(b)


def test_closed_and_slow_peers_are_told_apart():
    a, b = socket.socketpair()
    with b:
        with pytest.raises(protocol.Timeout):
            protocol.receive(b, deadline=0)
        a.close()
        with pytest.raises(protocol.Closed):
            protocol.receive(b)


@pytest.mark.parametrize(
    "reply",
    [[1, 2], "result", None, {"nothing": 1}, {"result": 1, "inputs": [], "params": {}}],
    ids=["a list", "a string", "nothing", "no result", "inputs not a dict"],
)
def test_a_reply_that_is_not_an_answer_is_the_submissions_doing(reply):
    """The child runs the student's code, which can write any message to its socket."""
    from types import SimpleNamespace

    from autograder.engine.contract.errors import StudentError
    from autograder.engine.judge import fixtures
    from autograder.engine.judge.suites.running import run
    from autograder.engine.judge.suites.train_checks import run_training

    case = next(c for c in fixtures.cases("attention") if c.trained)
    student = SimpleNamespace(call=lambda *a, **k: reply, train=lambda *a, **k: reply, built={})
    with pytest.raises(StudentError, match="answered with something that is not a result"):
        run_training(student, case, "float64")
    if not (isinstance(reply, dict) and "result" in reply):
        with pytest.raises(StudentError, match="answered with something that is not a result"):
            run(student, case, "float64")


@pytest.mark.parametrize("forged", [{"$tensor": 1}, {"$tensor": np.zeros(2)}, {"$tensor": np.zeros(2), "dtype": 3}])
def test_a_forged_tensor_is_the_submissions_doing(forged):
    """A red team's: a child that answered {'$tensor': 1} made a test read 'the grader failed here (KeyError)'."""
    from autograder.engine.contract.errors import StudentError
    from autograder.engine.judge import checks, replies

    with pytest.raises(StudentError, match="should be a tensor, but is something that claims to be a tensor"):
        checks.tensor(replies.texts(forged), "output", "case 1")


def test_a_second_answer_of_another_shape_is_the_students_fault():
    """A second red team's: a causality probe answered with a 1-D tensor, and indexing it first read 'the grader
    failed here (IndexError)'."""
    from autograder.engine.contract.errors import StudentError
    from autograder.engine.judge import checks

    first = {"$tensor": np.zeros((2, 3, 4)), "dtype": "float64"}
    second = {"$tensor": np.zeros(4), "dtype": "float64"}
    with pytest.raises(StudentError, match="has shape"):
        checks.same(
            second, first, "output", "case 1", "float64", select=(slice(None), slice(0, 2)), component="attention"
        )
