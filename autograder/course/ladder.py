"""The hint ladders, asked for: `hint("masked_scores")` in a notebook prints the next level of that exercise's or
step's hints, one more each call (the question to ask yourself, then the operation, then the line), and a failed
check prints the level that matches what failed (offer()).

A function rather than collapsed text in the notebook: it prints plain text, the same in Jupyter, JupyterLab and
a terminal; a failed check's line lands in the cell's output, which nbgrader's feedback page shows offline; and the
notebook holds no hint, so that the course's setting (course/settings.yaml) decides what a student can read: on
request, only after a failed check of that exercise, or none, where generated/hints.json holds no hint at all.
The ladders are written above the reference's solution regions, and course/stubs.py copies them here.
"""

import functools
import json

from autograder.course import HINTS

MODES = ("on-request", "after-failure", "none")

# What this kernel has seen: the levels shown, by exercise or step, and the names a failed check has opened.
_shown: dict[str, int] = {}
_opened: set[str] = set()


@functools.cache
def _table():
    return json.loads(HINTS.read_text()) if HINTS.exists() else {"mode": "none", "ladders": {}, "mistakes": {}}


def hint(name):
    """Print the next level of the hints of the exercise or step name (its function's or class's name, or the
    function or class itself)."""
    table = _table()
    if table["mode"] == "none":
        print("This course gives no hints: the docstring of each exercise says what it takes and what it returns.")
        return
    name = getattr(name, "__name__", name)
    ladder = table["ladders"].get(name)
    if ladder is None:
        print(f"No exercise or step is called {name!r}; those with hints: {', '.join(table['ladders'])}.")
        return
    if table["mode"] == "after-failure" and name not in _opened:
        print(f"The hints of {name} open once one of its checks fails: write it, then run its check.")
        return
    _shown[name] = min(_shown.get(name, 0) + 1, len(ladder))
    print(_line(name, ladder, _shown[name]))


def offer(component, failed=(), mistakes=()):
    """The hint line a failed check prints, or None: the exercise choose() finds, at the level this kernel has
    reached (the first, if none). Opens the hints of every name the failure is about (after-failure)."""
    chosen = choose(component, failed, mistakes)
    if chosen is None:
        return None
    name, ladder = chosen
    _opened.update(n for n in (*failed, *component) if n in _table()["ladders"])
    _opened.add(name)
    _shown[name] = max(_shown.get(name, 0), 1)
    return _line(name, ladder, _shown[name])


def choose(component, failed=(), mistakes=()):
    """(the exercise a failure is about, its ladder), or None where the course gives no hints: the first that the
    named mistakes' edits change (mistakes: their catalog ids), or else the first of the names whose cases
    failed (failed), or else the component's first that has hints (component: its SPEC names, or a step's)."""
    table = _table()
    if table["mode"] == "none":
        return None
    candidates = [name for mistake in mistakes for name in table["mistakes"].get(mistake, [])]
    name = next((n for n in (*candidates, *failed, *component) if n in table["ladders"]), None)
    return None if name is None else (name, table["ladders"][name])


def mistakes_named(text):
    """The catalog's ids of the mistakes that the "Likely mistake" lines of text name, one or two at once."""
    from autograder.engine.judge import hints
    from autograder.engine.judge.diagnosis import LIKELY_MISTAKE

    said = [line.removeprefix(LIKELY_MISTAKE) for line in text.splitlines() if line.startswith(LIKELY_MISTAKE)]
    return [i for i in _table()["mistakes"] if any(s == hints.likely(i) or f") {hints.likely(i)}" in s for s in said)]


def _line(name, ladder, level):
    more = f' hint("{name}") for the next.' if level < len(ladder) else " That is the last."
    return f"Hint {level} of {len(ladder)} for {name}: {ladder[level - 1]}{more}"
