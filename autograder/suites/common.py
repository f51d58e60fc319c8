"""Running a fixture case on the student's code; the one place the suites talk to the child."""
import numpy as np

from autograder import checks


def run(student, case, dtype, inputs=None, return_inputs=False):
    """Build the case's target (with its weights) if it is a class, call it, and name the outputs.

    Returns {output name: returned value}, and the inputs as they were after the call when asked.
    """
    args, kwargs = case.call_args(dtype, inputs)
    target = case.target
    if case.init is not None:
        target = build(student, case.target, case.init, case.params)
    if case.kind == "generate":
        model = case.meta["model"]
        args[0] = build(student, model["target"], model["init"], case.params)
    value = student.call(target, *args, dtype=dtype, return_inputs=return_inputs, **kwargs)
    named = checks.outputs(value["result"], case.outputs, case.target, case.describe(dtype))
    return (named, value["inputs"]) if return_inputs else named


def build(student, target, init, params):
    obj = student.new(target, *init)
    if params:
        student.load(obj, params)
    return obj


def check_case(student, case, dtype, hints):
    """The case's outputs against its expected values: exact for masks and tokens, within tolerance otherwise."""
    outputs = run(student, case, dtype)
    where = case.describe(dtype)
    for name in case.outputs:
        expected = case.expected[name]
        if expected.dtype.kind in "biu":
            checks.equal(outputs[name], expected, name, where, hints.get(name, ""))
        else:
            checks.close(outputs[name], expected, name, where, dtype, hints.get(name, ""))
    return outputs


def check_inputs_unchanged(student, case, dtype="float32"):
    _, after = run(student, case, dtype, return_inputs=True)
    sent, _ = case.call_args(dtype)
    for position, (before, value) in enumerate(zip(sent, after)):
        if isinstance(before, np.ndarray):
            array, _ = checks.tensor(value, f"argument {position + 1}", case.describe(dtype))
            if not np.array_equal(array, before):
                raise checks.StudentError(
                    f"{case.describe(dtype)}: argument {position + 1} of {case.target} was changed in place. "
                    "Use out-of-place operations (x = x + y, masked_fill, not +=, masked_fill_) on your inputs."
                )


def check_deterministic(student, case, dtype="float32"):
    first = run(student, case, dtype)
    second = run(student, case, dtype)
    for name in case.outputs:
        checks.same(
            second[name], first[name], name, f"{case.describe(dtype)}, called twice in eval mode", dtype,
            "in eval() mode the output must not change between calls: use nn.Dropout modules (which "
            "follow train/eval) rather than F.dropout(x, p), which drops out even in eval mode.",
        )


def changed_after(ids, start, vocab_size):
    """ids with every token from position start on replaced by another valid token."""
    changed = ids.copy()
    changed[:, start:] = (changed[:, start:] + 7) % vocab_size
    return changed


def changed_where(ids, where, vocab_size):
    changed = ids.copy()
    changed[where] = (changed[where] + 11) % vocab_size
    return changed
