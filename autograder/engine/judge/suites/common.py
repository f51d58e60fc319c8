"""Running a fixture case on the student's code; the one place the suites talk to the child."""

from collections.abc import Callable, Mapping, Sequence
from functools import cache

import numpy as np

from autograder.engine.contract.errors import Fatal, StudentError
from autograder.engine.contract.messages import CONFIG, TENSOR
from autograder.engine.judge import checks
from autograder.engine.judge.diagnosis import Observation, trained
from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.hints import HINT, HINTS
from autograder.engine.judge.seams import Expectation, Student

Outputs = dict[str, object]  # a run's returned values, by output name (checks.outputs)
Hints = Mapping[str, str]  # a hint by output name, for an output that differs


def run(student: Student, case: Case, dtype: str | None, inputs: Mapping[str, np.ndarray] | None = None) -> Outputs:
    """Build the case's target (with its weights) if it is a class, call it, and name the outputs: {output name:
    returned value}."""
    return _run(student, case, dtype, inputs, return_inputs=False)[0]


def run_returning_inputs(student: Student, case: Case, dtype: str | None) -> tuple[Outputs, object]:
    """run(), and the inputs as they were after the call."""
    return _run(student, case, dtype, None, return_inputs=True)


def _run(
    student: Student, case: Case, dtype: str | None, inputs: Mapping[str, np.ndarray] | None, return_inputs: bool
) -> tuple[Outputs, object]:
    args, kwargs = case.call_args(dtype, inputs)
    target: str | dict[str, object] = case.target
    if case.init is not None:
        target = built(student, case, dtype)
    if case.kind == "generate":
        args[0] = built(student, case, dtype)
    value = _reply(
        student.call(target, *args, dtype=dtype, return_inputs=return_inputs, **kwargs),
        case.describe(dtype),
        ["result", *(["inputs"] if return_inputs else [])],
    )
    named = checks.outputs(value["result"], case.outputs, case.target, case.describe(dtype))
    return named, value.get("inputs")


def _reply(value: object, where: str, keys: list[str], dicts: tuple[str, ...] | list[str] = ()) -> dict[str, object]:
    """The child's answer, if it is a dict with these keys (those in dicts holding dicts): the child runs the
    student's code, which can write anything to its socket, and what is not an answer is the submission's
    doing, never the grader's failure."""
    if (
        not isinstance(value, dict)
        or any(key not in value for key in keys)
        or any(not isinstance(value.get(key), dict) for key in dicts)
    ):
        raise StudentError(f"{where}: the process running your code answered with something that is not a result")
    return value


def built(student: Student, case: Case, dtype: str | None) -> dict[str, object]:
    """The case's module (greedy_decode's model for a generate case), with its weights: built once per dtype,
    so that the eval-mode and the train-mode runs of a dtype share it. A module built for one dtype is never
    run in the other, so that what its constructor made in float64 is never rounded through float32."""
    key = (case.id, dtype)
    if key not in student.built:
        target, init = (
            (case.meta["model"]["target"], case.meta["model"]["init"])
            if case.kind == "generate"
            else (case.target, case.init)
        )
        assert init is not None, f"{case.id} calls a function: there is nothing to build"
        student.built[key] = build(student, target, init, case.params)
    return student.built[key]


def build(student: Student, target: str, init: Sequence[object], params: Mapping[str, np.ndarray]) -> dict[str, object]:
    obj = student.new(target, *init)
    if params:
        student.load(obj, params)
    return obj


def check_case(student: Student, case: Case, dtype: str | None, hints: Hints) -> Outputs:
    """The case's outputs against its expected values: exact for masks and tokens, within tolerance otherwise.

    A case whose every expected output is one value repeated (causal_mask(1), a batch without padding)
    is answered by a constant too: it counts only where a case of its kind that no constant answers
    passes as well.
    """
    if all(_constant(case.expected[name]) for name in case.outputs):
        assert case.source is not None, "a case whose every output is a constant comes from a case set"
        companion = next(
            c for c in case.source.of_kind(case.component, case.kind) if not all(map(_constant, c.expected.values()))
        )
        run_right(
            student,
            companion,
            dtype,
            hints=hints,
            why=f"{case.describe(dtype)} counts only with the other cases of its kind",
        )
    try:
        outputs = run(student, case, dtype)
    except Fatal:
        raise
    except StudentError as error:
        _observe(student, case, dtype, passed=False, failure=str(error))
        raise
    try:
        check_outputs(outputs, case, dtype, hints)
    except StudentError:
        _observe(student, case, dtype, passed=False, outputs=outputs)
        if _changes_between_calls(student, case, dtype, outputs):
            check_outputs(outputs, case, dtype, dict.fromkeys(case.outputs, HINTS["any"]["changing"]))
        raise
    _observe(student, case, dtype, passed=True, outputs=outputs)
    return outputs


def _changes_between_calls(student: Student, case: Case, dtype: str | None, outputs: Outputs) -> bool:
    """Whether a second call on the same input gives other values (asked only of values that are wrong)."""
    try:
        again = run(student, case, dtype)
        return any(
            not np.array_equal(checks.tensor(outputs[n], n, "")[0], checks.tensor(again[n], n, "")[0], equal_nan=True)
            for n in case.outputs
        )
    except Fatal:
        raise
    except StudentError:
        return False


def _observe(
    student: Student,
    case: Case,
    dtype: str | None,
    passed: bool,
    outputs: Outputs | None = None,
    failure: str | None = None,
    train: bool = False,
    absent: dict[str, str] | None = None,
) -> None:
    """Keep what the case returned, for naming a cataloged mistake once the component is graded (diagnosis.py).

    A train-mode run is its own observation, under the key diagnosis.trained(case.id)."""
    arrays = None
    if outputs is not None:
        arrays = {name: value[TENSOR] for name, value in outputs.items() if isinstance(value, dict) and TENSOR in value}
    key, expected = (trained(case.id), case.trained) if train else (case.id, case.expected)
    student.observations.append(Observation(key, dtype, passed, arrays, expected, failure, absent or {}))


def _constant(array: np.ndarray) -> bool:
    return array.size > 0 and bool((array == array.flat[0]).all())


def check_outputs(outputs: Outputs, case: Expectation, dtype: str | None, hints: Hints) -> None:
    where = case.describe(dtype)
    failures = []
    # Every output is checked, weights first, so that the message starts where the mistake does
    # (weights that are wrong make the output wrong too, not the other way round).
    for name in sorted(case.outputs, key=lambda name: name != "weights"):
        expected = case.expected[name]
        try:
            if expected.dtype.kind in "biu":
                checks.equal(outputs[name], expected, name, where, hints.get(name, ""))
            else:
                checks.close(outputs[name], expected, name, where, dtype, hints.get(name, ""))
        except StudentError as error:
            failures.append(str(error))
    if failures:
        raise StudentError("\n".join(failures))


def run_training(student: Student, case: Case, dtype: str | None) -> tuple[Outputs, Outputs, list[str]]:
    """The case in train mode (engine/child/train_mode.py), one backward pass from its upstream gradients.

    Returns {output name: value} for the outputs graded in train mode, {"NAME.grad": value} for every float
    input and parameter (a gradient, None, or messages.FROZEN), and the outputs that carried no graph.
    """
    args, kwargs = case.call_args(dtype)
    target = built(student, case, dtype) if case.init is not None else case.target
    answer = student.train(
        target, *args, dtype=dtype, upstream=[case.upstream.get(name) for name in case.outputs], **kwargs
    )
    where = f"{case.describe(dtype)}, train mode"
    reply = _reply(answer, where, ["result"], dicts=["inputs", "params"])
    named = checks.outputs(reply["result"], case.outputs, case.target, where)
    graph = reply.get("graph")
    flat = dict(zip(case.outputs, graph if isinstance(graph, list) else []))
    outputs = {name: named[name] for name in case.upstream}
    inputs, params = reply["inputs"], reply["params"]
    assert isinstance(inputs, dict) and isinstance(params, dict)  # _reply's dicts
    sent = case.filled(inputs.get("args"), inputs.get("kwargs"))
    gradients = {f"{name}.grad": value for name, value in sent.items()}
    gradients.update({f"{name}.grad": value for name, value in params.items()})
    return outputs, gradients, [name for name in case.upstream if flat.get(name) is False]


def check_training(student: Student, case: Case, dtype: str | None, hints: Hints) -> None:
    """The case's outputs in train mode, with dropout's stand-in, and the gradients of one backward pass,
    against what the reference (or Hugging Face) gives; hints, by output, say where dropout goes."""
    where = f"{case.describe(dtype)}, train mode"
    try:
        outputs, gradients, no_graph = run_training(student, case, dtype)
    except Fatal:
        raise
    except StudentError as error:
        _observe(student, case, dtype, passed=False, failure=str(error), train=True)
        raise
    failures = _differences(outputs, case.trained, dtype, where, _train_hints(student, case, dtype, hints))
    failures += [checks.NO_GRAPH.format(where=where, name=name) for name in no_graph]
    absent, wrong, count = _gradient_failures(gradients, case, dtype, where)
    if wrong and failures:
        # Gradients follow from the outputs: while those are wrong, the gradients' own messages would mislead.
        failures.append(
            f"The gradients differ too ({count} of {sum(n.endswith('.grad') for n in case.trained)}), "
            "as they follow from these outputs: fix the outputs first."
        )
    else:
        failures += wrong
    present = {name: value for name, value in {**outputs, **gradients}.items() if checks.absent(value) is None}
    _observe(student, case, dtype, passed=not failures, outputs=present, train=True, absent=absent)
    if failures:
        raise StudentError("\n".join(failures))


def _train_hints(student: Student, case: Case, dtype: str | None, hints: Hints) -> Callable[[str], str]:
    """hint(name) for a train-mode output that differs: the hint on where dropout goes where the case's eval-mode
    outputs are right (dropout is what differs, so the hint is about it), the "eval-first" hint where they are
    wrong too. The eval-mode run is made once, and only for an output that differs."""

    @cache
    def eval_right() -> bool:
        return right(student, case, dtype)

    return lambda name: hints.get(name, "") if eval_right() else HINTS["any"]["eval-first"]


def _differences(
    values: Outputs, expected: Mapping[str, np.ndarray], dtype: str | None, where: str, hint: Callable[[str], str]
) -> list[str]:
    """The messages of the values (by name) that differ from expected, each with hint(name)."""
    failures = []
    for name, value in values.items():
        try:
            checks.close(value, expected[name], name, where, dtype, hint(name))
        except StudentError as error:
            failures.append(str(error))
    return failures


def _gradient_failures(
    gradients: Outputs, case: Case, dtype: str | None, where: str
) -> tuple[dict[str, str], list[str], int]:
    """({name: "none" or "frozen"} for gradients that never came, messages, how many gradients are wrong).

    Gradients that never came are grouped by why, and come first: they say more than one that differs.
    Of those that differ, the first is shown, with how many more there are."""
    expected = [name for name in case.trained if name.endswith(".grad")]
    absent = {
        name: why for name in expected if name in gradients and (why := checks.absent(gradients[name])) is not None
    }
    messages = [
        checks.no_gradients([n for n in absent if absent[n] == why], why, where, expected)
        for why in ("frozen", "none")
        if why in absent.values()
    ]
    messages += [
        f"{where}: there is no parameter {name.removesuffix('.grad')} to train: keep the names the SPEC gives "
        "every parameter (the constructor you were given)."
        for name in expected
        if name not in gradients
    ]
    present = {name: gradients[name] for name in expected if name in gradients and name not in absent}
    differ = _differences(present, case.trained, dtype, where, lambda name: HINTS["any"]["gradient"])
    if differ:
        messages.append(differ[0] + (f"\n... and {len(differ) - 1} more gradients differ." if len(differ) > 1 else ""))
    return absent, messages, len(differ) + len(absent)


def check_follows_config(student: Student, case: Case, dtype: str | None) -> None:
    """A case built from engine/authoring/builder.py's ODD_CONFIG, with the hint that names every size to read."""
    check_case_beside_the_usual(student, case, dtype, HINTS["any"]["config"])


# The kinds of case that differ from their target's usual ones in one respect (engine/authoring/cases/).
UNUSUAL = ("config", "large-eps", "fresh")


def check_case_beside_the_usual(student: Student, case: Case, dtype: str | None, hint: str) -> None:
    """check_case on a case unlike its target's usual ones (another config, a large eps, fresh weights), whose
    hint says what only it tells: given where every usual case of its target is right, and nowhere else. Where
    one fails too (a mask that the odd case also holds, say), this one's failure says nothing of its own, and
    the usual cases' test says what is wrong."""
    try:
        check_case(student, case, dtype, {})
    except StudentError as error:
        usual = [
            c
            for c in (case.source.cases(case.component) if case.source else [])
            if c.target == case.target and c.kind not in UNUSUAL and dtype in c.dtypes
        ]
        if not usual or HINTS["any"]["float32-only"] in str(error) or not all(right(student, c, dtype) for c in usual):
            raise
        raise StudentError(f"{error}\n{HINT}{hint}") from None


def right(student: Student, case: Case, dtype: str | None) -> bool:
    """Whether the case's eval-mode outputs are right: the evidence a hint about another run needs. Not graded,
    and not kept as an observation."""
    try:
        check_outputs(run(student, case, dtype), case, dtype, {})
    except StudentError:
        return False
    return True


# Why run_right's values must be right, by default: a property (determinism, inputs left alone, causality,
# padding invariance) earns its points only there, since a constant, a copy of the input or a replay of
# the last result has every property.
PROPERTY = "this property is scored only where the values are right, and on this case they are not"


def run_right(
    student: Student, case: Case, dtype: str | None = "float32", hints: Hints | None = None, why: str = PROPERTY
) -> Outputs:
    """run() on the case's own inputs, whose outputs must have the expected values, or fail saying why."""
    outputs = run(student, case, dtype)
    _right_or_fail(outputs, case, dtype, hints, why)
    return outputs


def _right_or_fail(outputs: Outputs, case: Case, dtype: str | None, hints: Hints | None, why: str) -> None:
    try:
        check_outputs(outputs, case, dtype, hints or {})
    except StudentError as error:
        raise StudentError(f"{why}: {error}") from None


def check_inputs_unchanged(student: Student, case: Case, dtype: str = "float32") -> None:
    outputs, after = run_returning_inputs(student, case, dtype)
    _right_or_fail(outputs, case, dtype, None, PROPERTY)
    sent, _ = case.call_args(dtype)
    for position, (before, value) in enumerate(zip(sent, after if isinstance(after, list) else [])):
        if isinstance(before, np.ndarray):
            array, _ = checks.tensor(value, f"argument {position + 1}", case.describe(dtype))
            if not np.array_equal(array, before):
                raise StudentError(
                    f"{case.describe(dtype)}: argument {position + 1} of {case.target} was changed in place. "
                    "Use out-of-place operations (x = x + y, masked_fill, not +=, masked_fill_) on your inputs."
                )


def check_deterministic(student: Student, case: Case, dtype: str = "float32") -> None:
    first = run_right(student, case, dtype)
    second = run(student, case, dtype)
    for name in case.outputs:
        checks.same(
            second[name],
            first[name],
            name,
            f"{case.describe(dtype)}, called twice in eval mode",
            dtype,
            HINTS["any"]["deterministic"],
        )


def check_unchanged(
    student: Student,
    case: Case,
    inputs: Mapping[str, np.ndarray],
    name: str,
    select: tuple[slice, ...] | np.ndarray,
    what: str,
    hint: str,
) -> None:
    """The output `name` at `select` is the same for the case's own inputs and for `inputs`.

    what says how the inputs were changed and where the output is compared, for the message.
    """
    first = run_right(student, case)[name]
    second = run(student, case, "float32", inputs=inputs)[name]
    checks.same(second, first, name, f"{case.describe('float32')}, {what}", "float32", hint, select)


def changed_tokens(case: Case, name: str, where: tuple[slice, ...] | np.ndarray) -> np.ndarray:
    """The case's token ids `name` with those at `where` replaced by other valid ids.

    The vocabulary is the last config's: the decoder's, where a model has two.
    """
    assert case.init is not None, f"{case.id} has no config to read the vocabulary from"
    changed = case.inputs[name].copy()
    changed[where] = (changed[where] + 7) % case.init[-1][CONFIG]["vocab_size"]
    return changed
