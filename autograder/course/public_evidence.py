"""Each cataloged mistake's evidence on the public checks' own cases: course/public_mistakes.{json,npz}.

Built as the hidden cases' evidence is (engine/build/evidence.py), with the public checks as the
cases: each mistake's names run through the component's check twice, and a comparison the check made
is one case. The file ships with the student bundle, so it holds nothing of a hidden case (test_bundle).
"""
from autograder.course import PUBLIC_EVIDENCE, public
from autograder.engine.contract import spec
from autograder.engine.build.evidence import Entries, Outcome, collect


def build(stem=PUBLIC_EVIDENCE):
    """Write stem.json and stem.npz: every component's mistakes on the public checks' own cases."""
    entries = Entries()
    for component in spec.COMPONENTS:
        collect(component.id, lambda names, c=component: _outcomes(names, c), entries)
    entries.write(stem)


def _outcomes(names, component):
    first, second = _run(names, component), _run(names, component)
    return {key: Outcome(o.outputs, second[key].outputs if key in second else None, o.outputs, o.expected, ["float64"], o.passed)
            for key, o in first.items()}


def _run(names, component):
    check = getattr(public, f"check_{component.id}")
    try:
        check(*(names[name] for name in component.names), quiet=True)
    except (AssertionError, NotImplementedError):
        pass
    return {o.key: o for o in public.last_observations() if o.outputs is not None}
