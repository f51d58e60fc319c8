"""A case in train mode: its outputs with dropout's stand-in and the gradients of one backward pass, checked."""

from collections.abc import Callable
from functools import cache

from autograder.engine.contract.errors import Fatal, StudentError
from autograder.engine.judge import checks
from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.seams import Student
from autograder.engine.judge.suites.checking import Hints, component_of, observe, right
from autograder.engine.judge.suites.running import Outputs, built, checked


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
    reply = checked(answer, where, ["result"], dicts=["inputs", "params"])
    named = checks.outputs(reply["result"], case.outputs, case.target, where)
    graph = reply.get("graph")
    flat = dict(zip(case.outputs, graph if isinstance(graph, list) else []))
    outputs = {name: named[name] for name in case.upstream}
    inputs, params = reply["inputs"], reply["params"]
    assert isinstance(inputs, dict) and isinstance(params, dict)  # checked()'s dicts
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
        observe(student, case, dtype, passed=False, failure=str(error), train=True)
        raise
    failures = _differences(outputs, case, dtype, where, _train_hints(student, case, dtype, hints))
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
    observe(student, case, dtype, passed=not failures, outputs=present, train=True, absent=absent)
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


def _differences(values: Outputs, case: Case, dtype: str | None, where: str, hint: Callable[[str], str]) -> list[str]:
    """The messages of the values (by name) that differ from the case's train-mode ones, each with hint(name)."""
    expected, component = case.trained, component_of(case)
    failures = []
    for name, value in values.items():
        try:
            checks.close(value, expected[name], name, where, dtype, hint(name), component=component)
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
    differ = _differences(present, case, dtype, where, lambda name: HINTS["any"]["gradient"])
    if differ:
        messages.append(differ[0] + (f"\n... and {len(differ) - 1} more gradients differ." if len(differ) > 1 else ""))
    return absent, messages, len(differ) + len(absent)
