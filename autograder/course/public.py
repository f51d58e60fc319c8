"""Public checks: what a student runs in the notebooks and with `python -m autograder grade` in the bundle.

They are the hidden suites themselves (engine/judge/suites), every comparison, hint and "Likely mistake" line
the same, run in the student's own process (course/local.py) on the public cases: the hidden cases' kinds
drawn from other seeds, a few of each (generated/public_cases, with each cataloged mistake's evidence on them;
built by `python -m autograder generate`). A local verdict and the grader's can differ only by their cases.
`check_<component>(names...)` takes the component's SPEC names in SPEC order, and by keyword the modules of other
parts its cases run them on, where there are some (built(): generation's MultiHeadAttention and Seq2SeqTransformer).
`check_step(name, function)` checks one of the notebooks' steps (a helper towards an exercise, never graded) with the
suites' own comparison on the step's public cases, against the reference's helper.
"""

import inspect
import warnings
import zlib
from types import SimpleNamespace

import torch
from torch import nn
from torch.nn.modules.lazy import LazyModuleMixin
from torch.nn.parameter import is_lazy

from autograder.course import PUBLIC_CASES, failed_check, ladder
from autograder.course.jupyter import codes
from autograder.course.local import LocalGrading, LocalStudent
from autograder.engine.child import runtime
from autograder.engine.contract import spec
from autograder.engine.contract.errors import KitFault, StudentError, StudentFault
from autograder.engine.judge import diagnosis, fixtures
from autograder.engine.judge import hints as sentences
from autograder.engine.judge.diagnosis import trained
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
# A script that runs a check fails with the check's own line, as a notebook cell does, never a traceback of the kit.
failed_check.quiet_faults()


class NotStarted(StudentFault, NotImplementedError):
    """A name the checks need still raises NotImplementedError."""


class Failed(StudentFault, AssertionError):
    """Some of a component's public checks failed; likely is the "Likely mistake: ..." line, if one is named; told is
    what the check prints, what to change first (failed_check.py), when it is more than the first failure; offered
    is the hint ladder's line for what failed, where the course gives hints."""

    def __init__(self, component_id, passed, failures, likely=None, told=None, offered=None):
        self.passed, self.total, self.failures, self.likely = passed, passed + len(failures), failures, likely
        self.offered = offered
        self.summary = f"{component_id}: {passed} of {self.total} public checks passed"
        self.printed = False  # whether told was printed above the error, as a notebook shows it
        super().__init__(told or f"{self.summary}; first failure: {failures[0]}" + (f"\n{likely}" if likely else ""))

    def _render_traceback_(self):
        """In a notebook, the one line under what the check printed: nothing repeated, no frame of the kit."""
        if not self.printed:
            return super()._render_traceback_()
        return [f"{type(self).__name__}: {self.summary}. What to change, then the first failing case: above."]


def config(**overrides):
    """A small config with BertConfig's attribute names (SimpleNamespace: no transformers import needed)."""
    return SimpleNamespace(**{**CONFIG, **overrides})


def check(component_id, names, quiet=False):
    """Run one component's public checks on {SPEC name: the student's object}, printing what failed_check.py says
    of them; returns how many passed, or raises NotStarted (a stub) or Failed (with the likely mistake, if named).

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
    failures, checks = component.failing(), component.checks()
    if not failures:
        if not quiet:
            print(
                "\n".join(f"✓ {name}" for name in checks) + f"\n{component_id}: all {len(checks)} public checks passed"
            )
        return len(checks)
    likely = PUBLIC.evidence(component_id).diagnose(component_id, student.observations) if student else None
    # An earlier part that fails is what to change first; asked in a notebook alone, as each costs a check, and the
    # progress report, which checks every part, says it on its own row.
    earlier = [] if likely or quiet else failing_earlier(component_id, names)
    # The ladder's level for what failed, offered in a notebook and in the progress report (asking for it opens the
    # exercise's hints).
    named = ladder.mistakes_named(likely or "")
    offered = ladder.offer(spec.BY_ID[component_id].names, _failed_targets(component_id, student), named)
    told = _told(checks, student, names, likely, earlier, offered)
    failure = Failed(component_id, len(checks) - len(failures), failures, likely, told, offered)
    if not quiet:
        print(failure)
        failure.printed = True
    raise failure


def _told(checks, student, names, likely, earlier, offered):
    """What a failed component check prints: what to change, its first failing case with its inputs, the rest as
    counts (failed_check.py)."""
    counted = [(name, [test for test in tests if not test.passed], len(tests)) for name, tests in checks.items()]
    first_check, failed, total = next(check for check in counted if check[1])
    first = failed[0].message
    crash, case, expected, kind = _crash(student, first)
    if case is not None and not first.startswith(case):
        first = f"{case}: {first}"
    lead = likely or failed_check.earlier_line(earlier)
    lead = lead or failed_check.crash_lead(
        crash, {code for obj in names.values() for code in codes(obj)}, case, expected, kind
    )
    if not lead:
        lead, first = failed_check.hint_first(first)
    others = [(name, len(fails), n) for name, fails, n in counted if name != first_check]
    return failed_check.block(_with(lead, offered), first_check, first, len(failed), total, others)


def _with(lead, offered):
    """The lead, then the hint the ladder offers for what failed."""
    return "\n".join(line for line in (lead, offered) if line) or None


def _crash(student, message):
    """(the error the student's code raised that the message tells, the case it was raised on described with its
    inputs, the case's expected outputs, its kind); Nones where the message tells no error the suites observed."""
    error = next((e for said, e in (student.errors.items() if student else ()) if said in message), None)
    if error is None:
        return None, None, {}, None
    said = next(said for said, e in student.errors.items() if e is error)
    seen = next((o for o in student.observations if o.failure == said), None)
    if seen is None:
        return error, None, {}, None
    case_id, train = seen.key.removesuffix(trained("")), seen.key.endswith(trained(""))
    case = next(c for c in PUBLIC.cases(student.component_id) if c.id == case_id)
    outputs = {name: case.expected[name] for name in case.outputs}
    return error, case.describe(seen.dtype) + (", train mode" if train else ""), outputs, case.kind


def failing_earlier(component_id, names):
    """The ids of the earlier parts this component's code calls that fail their own public checks (run quietly):
    a failure here may follow from theirs."""
    read = set().union(*(names_read(obj) for obj in names.values()))
    namespace = {}
    for obj in names.values():
        namespace.update(_globals(obj))
    failing = []
    for component in spec.COMPONENTS:
        if component.id == component_id or not read & set(component.names):
            continue
        if all(name in namespace for name in component.names):
            try:
                check(component.id, {name: namespace[name] for name in component.names}, quiet=True)
            except (Failed, NotStarted):
                failing.append(component.id)
    return failing


def names_read(obj, followed=None):
    """The global names a function, or a class's methods, read (nested functions and lambdas included), and those
    that the student's own helpers it calls read in turn (a step: attend calls scaled_dot_product_attention)."""
    followed = set() if followed is None else followed
    names = set().union(*(code.co_names for code in codes(obj)))
    namespace = _globals(obj)
    for name in sorted(names - followed - set(spec.OWNER)):
        if inspect.isfunction(helper := namespace.get(name)):
            followed.add(name)
            names |= names_read(helper, followed)
    return names


def _globals(obj):
    """The namespace a function, or a class's methods, read their global names from."""
    functions = [obj] if inspect.isfunction(obj) else []
    if isinstance(obj, type):
        functions = [f for f in vars(obj).values() if inspect.isfunction(f)]
    return functions[0].__globals__ if functions else {}


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
                failed = failed or (str(error), case.describe(dtype))
            if student.not_started is not None:
                frame = runtime.student_frame(student.not_started)
                where = f"{frame.filename}, line {frame.lineno}" if frame else "your code"
                # A step that calls an earlier part (attend calls scaled_dot_product_attention) says which stub.
                own = raised_in_own_code(student.not_started, [function])
                said = "is not written yet" if own else "calls code that is not written yet"
                raise NotStarted(f"{name} {said}: {where} raises NotImplementedError") from student.not_started
        failures += [(case, *failed)] if failed else []
    if not failures:
        if not quiet:
            print("\n".join(f"✓ {name}: {case.about}" for case in cases))
            print(f"{name}: all {len(cases)} public checks passed")
        return
    case, first, described = failures[0]
    crash = student.errors.get(first)
    first = first if first.startswith("case ") else f"{described}: {first}"
    earlier = [] if quiet else failing_earlier(cases[0].meta["component"], {name: function})
    lead = failed_check.earlier_line(earlier)
    lead = lead or failed_check.crash_lead(
        crash, set(codes(function)), described, {n: case.expected[n] for n in case.outputs}, case.kind
    )
    if not lead:
        lead, first = failed_check.hint_first(first)
    offered = None if quiet else ladder.offer((name,))
    told = failed_check.block(_with(lead, offered), name, first, len(failures), len(cases), [])
    failure = Failed(name, len(cases) - len(failures), [message for _, message, _ in failures], told=told)
    if not quiet:
        print(failure)
        failure.printed = True
    raise failure


def _failed_targets(component_id, student):
    """The names whose public cases failed, in the cases' order."""
    if student is None:
        return []
    failed = {o.key for o in student.observations if not o.passed}
    cases = PUBLIC.cases(component_id)
    return list(dict.fromkeys(c.target for c in cases if c.id in failed or diagnosis.trained(c.id) in failed))


def built(component_id):
    """The SPEC names of other components whose modules the component's cases run its own on (generation's: the
    attention its cache serves, the model its beam search decodes), sorted; the public checks take the student's."""
    own = spec.BY_ID[component_id].names
    targets = {case.meta["model"]["target"] for case in PUBLIC.cases(component_id) if "model" in case.meta}
    return sorted(targets - set(own))


def _checker(component):
    def check_component(*objects, quiet=False, **core):
        """core: for an extension, the student's core classes its checks build, by name (a training step steps a
        Seq2SeqTransformer, a beam search decodes with one, a cache serves a MultiHeadAttention), as the child that
        grades it holds the core's references."""
        # An extension builds on the core alone (spec.EXTENSIONS); solutions/ never ships, so no reference is read.
        unknown = sorted(set(core) - {name for c in spec.COMPONENTS for name in c.names})
        if not component.extension and core or unknown:
            raise TypeError(f"check_{component.id} takes no keyword {', '.join(unknown or sorted(core))}")
        missing = [name for name in built(component.id) if name not in core]
        if missing:
            given = ", ".join(f"{name}={name}" for name in missing)
            raise TypeError(f"check_{component.id} runs your functions on your own modules too: pass {given}")
        # Returns nothing: no Out[] in a notebook.
        check(component.id, dict(zip(component.names, objects)) | core, quiet)

    check_component.__name__ = f"check_{component.id}"
    check_component.__doc__ = (
        f"The public checks of {component.id}: {', '.join(component.names)}, in that order; by keyword, the modules "
        "of other parts its cases run them on, where there are some (built() names them)."
    )
    return check_component


# check_attention, check_masking, ...: one per graded component of the spec (an extension's once its suite exists),
# named by its id, so that a component added to the spec has its check without a line here (autograder.notebook
# offers them by the same names).
CHECKS = {f"check_{c.id}": _checker(c) for c in spec.ALL_COMPONENTS if spec.has_suite(c)}
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
