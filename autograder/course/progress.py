"""The student's progress report, `python -m autograder grade` in the bundle: every component's public checks
(course/public.py) on a submission loaded in the student's own process, a line each, with where a failure may come
from when it runs an earlier part that does not pass yet."""

from autograder.course import jupyter
from autograder.course.public import Failed, NotStarted, built, check, names_read, raised_in_own_code
from autograder.engine.contract import spec


def _through(component, names, passing):
    """ " (it runs your X, which does not pass its own checks yet: ...)" for the SPEC names of earlier parts
    that this component's own code calls and whose checks do not pass; "" when there are none.

    Read from the student's code (the bundle holds no reference to read the course's graph from), and
    from what it calls itself: a part that fails through another names that one, which names the next."""
    used = set()
    for name in component.names:
        used |= names_read(names[name])
    earlier = [c.id for c in spec.COMPONENTS if c.id != component.id and c.id not in passing and used & set(c.names)]
    if not earlier:
        return ""
    one = len(earlier) == 1
    return (
        f"  (it runs your {', '.join(earlier)}, which {'does not pass its' if one else 'do not pass their'} "
        f"own checks yet: fix {'it' if one else 'them'} first)"
    )


def progress(path):
    """Run every component's public checks on a submission (loaded in this process); returns the report text."""
    names, problems = jupyter.load_names(path)
    lines = [f"Public checks of {path}", "", f"{'component':<13} public checks"]
    details: list[str] = []
    passing: set[str] = set()
    # The core's, and each extension's whose names the submission defines (notebook 10 defines generation's).
    extensions = [c for c in spec.EXTENSIONS if set(c.names) <= names.keys() and spec.has_suite(c)]
    components = [*spec.COMPONENTS, *extensions]
    for component in components:
        # These checks run the student's own earlier parts (there is no reference here to isolate them with,
        # as the hidden grading does): a part that fails only through one of them is told which.
        # An extension's cases run its functions on the student's own modules of other parts too (public.built).
        missing = [name for name in (*component.names, *built(component.id)) if name not in names]
        if missing:
            lines.append(f"{component.id:<13} not found: {', '.join(missing)}")
            continue
        through = _through(component, names, passing)
        try:
            passed = check(component.id, {n: names[n] for n in (*component.names, *built(component.id))}, quiet=True)
        except NotStarted as error:
            # Where the student must write: the component's own stubs, in their notebook, before an earlier part's.
            places: dict[str, list[str]] = {}
            for name in component.names:
                if at := jupyter.unwritten_at(names[name]):
                    places.setdefault(at, []).append(name)
            stubs = [f"{', '.join(stubbed)} in {at}" for at, stubbed in places.items()]
            own = raised_in_own_code(error.__cause__, [names[n] for n in component.names])
            said = f"write {'; '.join(stubs)}" if stubs else str(error).split(": ", 1)[-1] + ("" if own else through)
            lines.append(f"{component.id:<13} not started: {said}")
        except Failed as failure:
            lines.append(f"{component.id:<13} {failure.passed}/{failure.total}   FAILED{through}")
            details.append(
                f"[{component.id}] "
                + "\n  ".join(
                    line.replace("\n", "\n    ")
                    for line in [failure.likely, failure.offered, *failure.failures]
                    if line
                )
            )
        else:
            passing.add(component.id)
            lines.append(f"{component.id:<13} {passed}/{passed}   ok")
    lines.append(f"\n{len(passing)} of {len(components)} components pass every public check.")
    lines += [f"note: {problem}" for problem in problems]
    if details:
        lines += ["", *details]
    lines.append("\nThe hidden tests that decide your grade check much more; passing these is a first signal.")
    return "\n".join(lines)
