"""Hidden suite for `generation` (a course extension): sampling_probabilities against the reference and Hugging Face's
processors, sample_next by its seeded draws, attend_with_cache call after call on the reference's MultiHeadAttention
(child/stateful.py), and beam_search against Hugging Face's generate(num_beams=...). The modules it runs on are the
reference's: a student's own attention or model never costs generation. No train mode: generation runs without
gradients."""

from collections.abc import Callable

from autograder.engine.contract.errors import StudentError
from autograder.engine.contract.messages import CALL
from autograder.engine.judge import checks
from autograder.engine.judge.fixtures import Case
from autograder.engine.judge.hints import HINTS
from autograder.engine.judge.seams import Student
from autograder.engine.judge.suites.checking import check_call, check_case
from autograder.engine.judge.suites.running import Outputs, build, checked
from autograder.engine.judge.suites.selection import cases

COMPONENT = "generation"
HINT = HINTS[COMPONENT]


@cases("probabilities")
def test_sampling_probabilities_match_hugging_faces_processors(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"probabilities": HINT["probabilities"]})


@cases("draw")
def test_sample_next_draws_as_the_reference_with_a_seeded_generator(
    student: Student, case: Case, dtype: str | None
) -> None:
    args, kwargs = case.call_args(dtype)
    message: dict[str, object] = {"op": CALL, "effect": "draw", "target": case.target, "args": args, "kwargs": kwargs}
    tokens = _graded(student, case, dtype, {**message, "dtype": dtype}, lambda result: [result], HINT["draw"])
    _long(tokens, case, dtype)


@cases("arg-max")
def test_sample_next_with_top_k_1_draws_the_arg_max(student: Student, case: Case, dtype: str | None) -> None:
    _long(check_case(student, case, dtype, {"tokens": HINT["draw"]}), case, dtype)


def _long(outputs: Outputs, case: Case, dtype: str | None) -> None:
    _, tokens_dtype = checks.tensor(outputs["tokens"], "tokens", case.describe(dtype))
    if tokens_dtype != "int64":
        raise StudentError(f"{case.describe(dtype)}: tokens has dtype {tokens_dtype}, expected torch.long (int64).")


@cases("cache")
def test_attend_with_cache_matches_the_reference_call_after_call(
    student: Student, case: Case, dtype: str | None
) -> None:
    attention = build(student, case.meta["model"]["target"], case.meta["model"]["init"], case.params)
    hidden = case.inputs["hidden_states"]
    message: dict[str, object] = {
        "op": CALL,
        "effect": "cache",
        "target": case.target,
        "args": [attention, hidden.astype(dtype) if dtype else hidden, case.meta["spans"]],
        "kwargs": {},
        "dtype": dtype,
    }
    where = case.describe(dtype)

    def named(result: object) -> list[object]:
        if not isinstance(result, list) or len(result) != len(case.meta["spans"]):
            raise StudentError(f"{where}: the process running your code answered with something that is not a result")
        values = []
        for i, call in enumerate(result):
            call = checked(call, where, ["output", "key", "value"])
            for name in ("key", "value"):
                if call[name] is None:
                    raise StudentError(f"{where}: after call {i + 1} the cache holds no {name!r}: store it there")
            values += [call["output"], call["key"], call["value"]]
        return values

    _graded(student, case, dtype, message, named, HINT["cache"])


@cases("generate")
def test_beam_search_matches_hf_generate_with_beams(student: Student, case: Case, dtype: str | None) -> None:
    check_case(student, case, dtype, {"tokens": HINT["beam"]})


def _graded(
    student: Student,
    case: Case,
    dtype: str | None,
    message: dict[str, object],
    values: Callable[[object], list[object]],
    hint: str,
) -> Outputs:
    """A stateful call's outputs (values(result): in the order of case.outputs) against the expected ones, kept for
    the diagnosis as check_case keeps a plain call's."""

    def call() -> Outputs:
        reply = checked(student.request(message), case.describe(dtype), ["result"])
        return dict(zip(case.outputs, values(reply["result"]), strict=True))

    return check_call(student, case, dtype, dict.fromkeys(case.outputs, hint), call)
