"""Public checks: what a student runs in the notebooks and with `python -m autograder grade` in the bundle.

They are the hidden suites themselves (engine/judge/suites), every comparison, hint and "Likely mistake" line
the same, run in the student's own process (course/local.py) on the public cases: the hidden cases' kinds
drawn from other seeds, a few of each (generated/public_cases, with each cataloged mistake's evidence on them;
built by `python -m autograder generate`). A local verdict and the grader's can differ only by their cases.
`check_<component>(names...)` takes the component's SPEC names in SPEC order. `check_step(name, function)` checks
one of the notebooks' steps (a helper towards an exercise, never graded) with the suites' own comparison on the
step's public cases, against the reference's helper.
"""

import warnings
import zlib
from types import SimpleNamespace

import torch
from torch import nn
from torch.nn.modules.lazy import LazyModuleMixin
from torch.nn.parameter import is_lazy

from autograder.course import PUBLIC_CASES, ladder
from autograder.course.jupyter import codes
from autograder.course.local import LocalGrading, LocalStudent
from autograder.engine.child import runtime
from autograder.engine.contract import spec
from autograder.engine.contract.errors import KitFault, StudentError, StudentFault
from autograder.engine.judge import diagnosis, fixtures
from autograder.engine.judge import hints as sentences
from autograder.engine.judge.results import ComponentResult
from autograder.engine.judge.run import run_suites
from autograder.engine.judge.suites.checking import check_case

# What the notebooks' worked examples build: small, round sizes.
CONFIG = dict(
    vocab_size=50,
    hidden_size=16,
    num_hidden_layers=2,
    num_attention_heads=4,
    intermediate_size=32,
    hidden_dropout_prob=0.1,
    attention_probs_dropout_prob=0.1,
    max_position_embeddings=20,
    type_vocab_size=2,
    layer_norm_eps=1e-12,
    num_labels=3,
    pad_token_id=0,
)
DTYPE = torch.float64


class NotStarted(StudentFault, NotImplementedError):
    """A name the checks need still raises NotImplementedError."""


class Failed(StudentFault, AssertionError):
    """Some of a component's public checks failed; likely is the "Likely mistake: ..." line, if one is named."""

    def __init__(self, component_id, passed, failures, likely=None):
        self.passed, self.total, self.failures, self.likely = passed, passed + len(failures), failures, likely
        super().__init__(
            f"{component_id}: {passed} of {self.total} public checks passed; first failure: {failures[0]}"
            + (f"\n{likely}" if likely else "")
        )


def config(**overrides):
    """A small config with BertConfig's attribute names (SimpleNamespace: no transformers import needed)."""
    return SimpleNamespace(**{**CONFIG, **overrides})


def check(component_id, names, quiet=False):
    """Run one component's public checks on {SPEC name: the student's object}, printing one line per check;
    returns how many passed, or raises NotStarted (a stub) or Failed (with the likely mistake, if named).

    A check is one test of the component's suite, over its public cases: it passes where every case passes."""
    grading = LocalGrading(names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's own modules warn about their fast paths
        results = run_suites([component_id], grading, PUBLIC_CASES)[component_id]
    student = grading.children.get(component_id)
    if student is not None and student.not_started is not None:
        error = student.not_started
        frame = runtime.student_frame(error)
        where = f"{frame.filename}, line {frame.lineno}" if frame else "your code"
        raise NotStarted(f"{component_id} is not written yet: {where} raises NotImplementedError") from error
    component = ComponentResult(component_id, spec.BY_ID[component_id].points, results)
    failures, checks_run = component.failing(), len(component.checks())
    if not quiet:
        for name in component.checks():
            failed = next((line for line in failures if line.startswith(f"{name}:")), None)
            print("✗ " + failed.replace("\n", "\n    ") if failed else f"✓ {name}")
    if failures:
        evidence = PUBLIC.evidence(component_id)
        likely = evidence.diagnose(component_id, student.observations) if student else None
        if likely and not quiet:
            print(likely)
        named = ladder.mistakes_named(likely or "")
        offered = ladder.offer(spec.BY_ID[component_id].names, _failed_targets(component_id, student), named)
        if offered and not quiet:
            print(offered)
        raise Failed(component_id, checks_run - len(failures), failures, likely)
    if not quiet:
        print(f"{component_id}: all {checks_run} public checks passed")
    return checks_run


PUBLIC = fixtures.case_set(PUBLIC_CASES)


def check_step(name, function, quiet=False):
    """Run the public check of the notebooks' step name on the student's function, printing a line per case: its
    outputs against the reference's helper on a few small inputs, in float32 and float64, by the suites' own
    comparison (suites/checking.check_case: the one tolerance table, the step's hint from hints.step). Returns
    nothing (a value would show as the cell's Out[]); raises NotStarted or Failed as check() does."""
    cases = [case for case in PUBLIC.cases("steps") if case.target == name]
    if not cases:
        raise KitFault(f"{name} is not one of the course's steps: is this notebook from this kit's course?")
    student = LocalStudent(cases[0].meta["component"], {name: function})
    hints = dict.fromkeys(cases[0].outputs, sentences.step(name) or "")
    failures = []
    for case in cases:
        failed = None
        for dtype in case.dtypes:
            try:
                check_case(student, case, dtype, hints)
            except StudentError as error:
                failed = failed or str(error)
            if student.not_started is not None:
                frame = runtime.student_frame(student.not_started)
                where = f"{frame.filename}, line {frame.lineno}" if frame else "your code"
                # A step that calls an earlier part (attend calls scaled_dot_product_attention) says which stub.
                own = raised_in_own_code(student.not_started, [function])
                said = "is not written yet" if own else "calls code that is not written yet"
                raise NotStarted(f"{name} {said}: {where} raises NotImplementedError") from student.not_started
        if not quiet:
            print("✗ " + failed.replace("\n", "\n    ") if failed else f"✓ {name}: {case.about}")
        failures += [failed] if failed else []
    if failures:
        offered = ladder.offer((name,))
        if offered and not quiet:
            print(offered)
        raise Failed(name, len(cases) - len(failures), failures)
    if not quiet:
        print(f"{name}: all {len(cases)} public checks passed")


def _failed_targets(component_id, student):
    """The names whose public cases failed, in the cases' order."""
    if student is None:
        return []
    failed = {o.key for o in student.observations if not o.passed}
    cases = PUBLIC.cases(component_id)
    return list(dict.fromkeys(c.target for c in cases if c.id in failed or diagnosis.trained(c.id) in failed))


def _checker(component):
    def check_component(*objects, quiet=False):
        check(component.id, dict(zip(component.names, objects)), quiet)  # returns nothing: no Out[] in a notebook

    check_component.__name__ = f"check_{component.id}"
    check_component.__doc__ = f"The public checks of {component.id}: {', '.join(component.names)}, in that order."
    return check_component


# check_attention, check_masking, ...: one per component of the spec, named by its id, so that a component added
# to the spec has its check without a line here (autograder.notebook offers them by the same names).
CHECKS = {f"check_{c.id}": _checker(c) for c in spec.COMPONENTS}
globals().update(CHECKS)


# --- the notebooks' worked examples: modules with seeded weights ------------------------------------------


def _generator(seed):
    return torch.Generator().manual_seed(seed)


def seeded(cls, *args, seed=0):
    """The student's module, in float64 and eval mode, every parameter given a seeded O(1) value.

    Layer norms start at weight 1 and bias 0; a missing bias or a swapped weight would hide behind that. A lazy
    layer (nn.LazyLinear, as d2l builds its projections) has no shape to seed until its first call: it is
    seeded then, before that call computes anything, so a check calls the student's module before it reads
    the module's weights.
    """
    module = cls(*args)
    if not isinstance(module, nn.Module):
        raise AssertionError(f"{cls.__name__}(...) should be an nn.Module, but is {type(module).__name__}")
    module = module.to(DTYPE).eval()
    _seed(module, seed)
    for prefix, layer in module.named_modules():
        if isinstance(layer, LazyModuleMixin):
            _seed_when_shaped(layer, prefix, seed)
    return module


def _seed_when_shaped(layer, prefix, seed):
    """Seed a lazy layer's parameters on its first call: after torch's own first-call hook has given them
    their shapes, before the call computes anything."""

    def hook(layer, args):
        handle.remove()
        _seed(layer, seed, prefix)

    handle = layer.register_forward_pre_hook(hook)


def _seed(module, seed, prefix=""):
    """Every materialised parameter of module, named as the whole module's parameter prefix.name."""
    with torch.no_grad():
        for name, param in module.named_parameters(prefix):
            if is_lazy(param):
                continue
            # Seeded by name: a module that defines its layers in another order gets the same weights.
            noise = torch.randn(param.shape, generator=_generator(zlib.crc32(f"{seed}/{name}".encode())), dtype=DTYPE)
            if param.dim() == 1:
                param.copy_((1 if name.endswith("weight") else 0) + 0.2 * noise)
            elif param.dim() == 2 and "embeddings" not in name:
                param.copy_(noise / param.shape[1] ** 0.5)
            else:
                param.copy_(noise)


def raised_in_own_code(error, objects):
    """Whether the NotImplementedError error was raised by these objects' own code (a stub of the component or
    step itself), rather than by an earlier part it calls."""
    trace = error.__traceback__ if error else None
    while trace and trace.tb_next:
        trace = trace.tb_next
    return trace is not None and trace.tb_frame.f_code in {code for obj in objects for code in codes(obj)}
