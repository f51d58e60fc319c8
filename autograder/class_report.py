"""One page an instructor reads after grading a class: `python -m autograder report RESULTS` (a folder of
results.json files, as `grade-all --json-dir` leaves them) or `grade-all ... --report class.html`.

The page is self-contained (plots drawn with matplotlib and embedded, no script, no network): the class's score
distribution; per component, its distribution and the share at full marks; a heat map of students by
components; the named mistakes ranked by how many students made them, each with its sentence and the students;
the submissions held for review, timed out or unreadable, with their reasons; and each student's own feedback
one click away. Everything a submission wrote (names, feedback, reasons) is escaped.
"""

import base64
import html
import io
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from autograder.engine.contract.noticed import KIT_REACH
from autograder.engine.contract.protocol import visible, visible_name
from autograder.engine.judge.results import BREAKOUT


@dataclass
class Student:
    name: str
    score: float
    max_score: float
    components: dict  # {component id: (score, max score, feedback)}, scored components only
    summary: str
    mistakes: list = field(default_factory=list)  # the "Likely mistake" sentences of its feedback
    problems: list = field(default_factory=list)  # (kind, reason): held, timed out, unreadable, to read
    breakout: tuple | None = None  # (score, max score, feedback) of the breakout sheets, when any were handed in

    @property
    def anchor(self) -> str:
        return "student-" + re.sub(r"[^A-Za-z0-9_-]", lambda m: f"_{ord(m.group()):x}", self.name)


def student(name: str, results: dict) -> Student:
    """A student as their Gradescope results.json says it (the kit writes it; a student chose the name, which is
    kept as visible_name shows it: every byte readable, none that a page, a plot or a file cannot hold)."""
    name = visible_name(name)
    tests = {
        str(t["name"]): (float(t["score"]), float(t["max_score"]), str(t.get("output", "")))
        for t in results.get("tests", [])
        if t.get("max_score")
    }
    breakout = tests.pop(BREAKOUT, None)
    summary = str(results.get("output", ""))
    # A hand-in of sheets alone is scored by them: its code scored nothing.
    score, max_score = (float(results.get("score", 0)), float(results.get("max_score", 0))) if tests else (0.0, 0.0)
    found = Student(name, score, max_score, tests, summary, breakout=breakout)
    # What it acts on are the fields the kit wrote (platforms.gradescope's extra_data), never sentences found in
    # feedback, where a student's own messages are quoted.
    for test in results.get("tests", []):
        if not test.get("max_score") or test.get("name") == BREAKOUT:
            continue
        facts = _fields(test)
        if facts.get("mistake"):
            found.mistakes.append((test["name"], str(facts["mistake"])))
        if facts.get("held"):
            found.problems.append(("held for review", f"{test['name']}: {facts['held']}"))
        if facts.get("timed_out"):
            found.problems.append(("timed out", f"{test['name']}: {facts['timed_out']}"))
    facts = _fields(results)
    if facts.get("problem"):
        found.problems.append(("unreadable", str(facts["problem"])))
    for note in facts.get("loading") or []:  # a syntax error, a cell that raised: the rest of the code may have loaded
        found.problems.append(("did not load", str(note)))
    for note in facts.get("to_read") or []:  # a reach for the kit, or code outside the policy that nothing needed
        kind = "reached for the kit: read it" if KIT_REACH in str(note) else "not run: read it"
        found.problems.append((kind, str(note)))
    return found


def _fields(entry: dict) -> dict:
    facts = entry.get("extra_data")
    return facts if isinstance(facts, dict) else {}


def student_names(entries: list[tuple[str, bool]]) -> list[str]:
    """The students' names of submissions given as (file or folder name, whether it is a file): a notebook's or .py
    file's name without its suffix, unless another submission has that name (bob/ and bob.py), where both keep their
    whole names."""
    stems = [Path(name).stem if is_file else name for name, is_file in entries]
    counts = Counter(stems)
    return [stem if is_file and counts[stem] == 1 else name for (name, is_file), stem in zip(entries, stems)]


def read_folder(folder: str | Path) -> list[Student]:
    """Every results.json in a folder (NAME.json, as grade-all's --json-dir writes them, for the submission NAME),
    each student named as grade-all names them."""
    paths = sorted(Path(folder).glob("*.json"))
    submissions = [path.name.removesuffix(".json") for path in paths]
    names = student_names([(name, Path(name).suffix in (".py", ".ipynb")) for name in submissions])
    students = []
    for path, name in zip(paths, names):
        try:
            results = json.loads(path.read_text())
        except (OSError, ValueError) as error:
            reason = f"{visible_name(path.name)}: {visible(str(error))}"
            students.append(Student(visible_name(name), 0.0, 0.0, {}, "", problems=[("unreadable", reason)]))
            continue
        students.append(student(name, results if isinstance(results, dict) else {}))
    return students


def render(students: list[Student], title: str = "Class report") -> str:
    """The page, as HTML text."""
    ids = list(dict.fromkeys(c for s in students for c in s.components))
    parts = [
        f"<h1>{_e(title)}</h1>",
        f"<p>{len(students)} submissions; mean {_mean([s.score for s in students]):.1f} of "
        f"{max((s.max_score for s in students), default=0):g} points.{_breakout_summary(students)}</p>",
        "<h2>Scores</h2>",
        _image(_histogram([s.score for s in students], "total score", "submissions"), "the class's scores"),
        "<h2>Components</h2>",
        _component_table(students, ids),
        _image(_components_plot(students, ids), "each component's scores"),
        "<h2>Students by component</h2>",
        _image(_heatmap(students, ids), "a heat map of each student's share of each component's points"),
        _student_table(students, ids),
        "<h2>Likely mistakes, most common first</h2>",
        _mistakes(students),
        "<h2>Held for review, timed out, unreadable, did not load</h2>",
        _problems(students),
        "<h2>Each student's feedback</h2>",
        *(_feedback(s, ids) for s in students),
    ]
    return (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>"
        + _e(title)
        + f"</title><style>{CSS}</style></head><body>\n"
        + "\n".join(parts)
        + "\n</body></html>\n"
    )


CSS = (
    "body { font-family: sans-serif; margin: 2em; max-width: 72em; } table { border-collapse: collapse; }"
    " td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: right; } td.name, th.name { text-align: left; }"
    " pre { white-space: pre-wrap; word-break: normal; overflow-wrap: normal; background: #f6f6f6; padding: 6px; }"
    " img { max-width: 100%; } .likely { font-weight: bold; } .wide { overflow-x: auto; }"
)


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _mean(values):
    return sum(values) / len(values) if values else 0.0


def _component_table(students, ids):
    rows = []
    for c in ids:
        scores = [s.components[c] for s in students if c in s.components]
        full = sum(1 for score, points, _ in scores if score >= points)
        points = max((p for _, p, _ in scores), default=0)
        rows.append(
            f"<tr><td class='name'>{_e(c)}</td><td>{points:g}</td><td>{_mean([x for x, _, _ in scores]):.2f}</td>"
            f"<td>{full} of {len(scores)} ({100 * full / len(scores) if scores else 0:.0f}%)</td></tr>"
        )
    return (
        "<table><tr><th class='name'>component</th><th>points</th><th>mean</th><th>at full marks</th></tr>"
        + "".join(rows)
        + "</table>"
    )


def _breakout_summary(students):
    handed_in = [s.breakout for s in students if s.breakout]
    if not handed_in:
        return ""
    return (
        f" Breakout sheets, apart: {len(handed_in)} handed some in, mean {_mean([b[0] for b in handed_in]):.1f} of "
        f"{max(b[1] for b in handed_in):g} points."
    )


def _student_table(students, ids):
    breakout = any(s.breakout for s in students)
    head = "".join(f"<th>{_e(c)}</th>" for c in ids) + (f"<th>{BREAKOUT}</th>" if breakout else "")
    rows = []
    for s in students:
        cells = "".join(f"<td>{s.components[c][0]:g}</td>" if c in s.components else "<td></td>" for c in ids)
        if breakout:
            cells += f"<td>{s.breakout[0]:g} of {s.breakout[1]:g}</td>" if s.breakout else "<td></td>"
        rows.append(f"<tr><td class='name'><a href='#{s.anchor}'>{_e(s.name)}</a></td><td>{s.score:g}</td>{cells}</tr>")
    return (
        f"<div class='wide'><table><tr><th class='name'>student</th><th>total</th>{head}</tr>"
        + "".join(rows)
        + "</table></div>"
    )


def _mistakes(students):
    named: dict[tuple[str, str], list] = {}
    for s in students:
        for component, sentence in dict.fromkeys(s.mistakes):
            named.setdefault((component, sentence), []).append(s)
    if not named:
        return "<p>No named mistake.</p>"
    items = []
    for (component, sentence), who in sorted(named.items(), key=lambda item: (-len(item[1]), item[0])):
        links = ", ".join(f"<a href='#{s.anchor}'>{_e(s.name)}</a>" for s in who)
        items.append(
            f"<li><span class='count'>{len(who)}</span> student{'s' if len(who) > 1 else ''}, "
            f"{_e(component)}: <span class='likely'>{_e(sentence)}</span> ({links})</li>"
        )
    return "<ol class='mistakes'>" + "".join(items) + "</ol>"


def _problems(students):
    rows = [
        f"<tr><td class='name'><a href='#{s.anchor}'>{_e(s.name)}</a></td><td class='name'>{_e(kind)}</td>"
        f"<td class='name'>{_e(reason)}</td></tr>"
        for s in students
        for kind, reason in s.problems
    ]
    if not rows:
        return "<p>None.</p>"
    return (
        "<table class='problems'><tr><th class='name'>student</th><th class='name'>what</th><th class='name'>why</th></tr>"
        + "".join(rows)
        + "</table>"
    )


def _feedback(s, ids):
    body = "".join(
        f"<h4>{_e(c)}: {s.components[c][0]:g} of {s.components[c][1]:g}</h4><pre>{_e(s.components[c][2])}</pre>"
        for c in ids
        if c in s.components
    )
    if s.breakout:
        score, points, text = s.breakout
        body += f"<h4>{BREAKOUT}: {score:g} of {points:g}</h4><pre>{_e(text)}</pre>"
    notes = f"<pre>{_e(s.summary)}</pre>" if s.summary else ""
    return (
        f"<details id='{s.anchor}'><summary>{_e(s.name)}: {s.score:g} of {s.max_score:g}</summary>"
        f"{notes}{body}</details>"
    )


def _figure(width, height):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    return pyplot, pyplot.subplots(figsize=(width, height))


def _png(pyplot, figure):
    buffer = io.BytesIO()
    figure.tight_layout()
    figure.savefig(buffer, format="png", dpi=90)
    pyplot.close(figure)
    return buffer.getvalue()


def _image(png, alt):
    return f"<p><img alt='{_e(alt)}' src='data:image/png;base64,{base64.b64encode(png).decode()}'></p>"


def _histogram(values, xlabel, ylabel):
    pyplot, (figure, axes) = _figure(7, 3)
    axes.hist(values, bins=min(20, max(1, len(set(values)))), color="#4c72b0")
    axes.set(xlabel=xlabel, ylabel=ylabel)
    return _png(pyplot, figure)


def _components_plot(students, ids):
    pyplot, (figure, axes) = _figure(8, 3.2)
    shares = [[s.components[c][0] / s.components[c][1] for s in students if c in s.components] for c in ids]
    axes.boxplot(shares, tick_labels=ids, showmeans=True)
    axes.set(ylabel="share of the component's points", ylim=(-0.05, 1.05))
    axes.tick_params(axis="x", rotation=30)
    return _png(pyplot, figure)


def _heatmap(students, ids):
    # A row per student up to 40 of them; a class beyond that fits one screen, its rows thinner.
    pyplot, (figure, axes) = _figure(8, min(max(2.5, 0.22 * len(students) + 1), 10))
    grid = [[s.components[c][0] / s.components[c][1] if c in s.components else 0.0 for c in ids] for s in students]
    image = axes.imshow(grid or [[0.0]], aspect="auto", cmap="RdYlGn", vmin=0, vmax=1, interpolation="nearest")
    axes.set_xticks(range(len(ids)), ids, rotation=30, ha="right")
    # A name is text, never matplotlib's mathtext ($...$ would be parsed, and could fail). Beyond 60 rows the names
    # no longer fit: the table below names each row.
    names = [s.name[:24].replace("$", r"\$") for s in students] if len(students) <= 60 else [""] * len(students)
    axes.set_yticks(range(len(students)), names)
    figure.colorbar(image, ax=axes, label="share of the points")
    return _png(pyplot, figure)
