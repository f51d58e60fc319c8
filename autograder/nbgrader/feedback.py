"""Last of generate_feedback's steps: a test cell shows the kit's feedback as readable HTML."""

import html
import re

from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.course import ladder
from autograder.engine.contract import spec
from autograder.engine.judge.diagnosis import LIKELY_MISTAKE
from autograder.engine.judge.hints import HINT
from autograder.nbgrader.cells import DISPLAY_DATA_PRIORITY, grade_id, is_test_cell

# The first line of a component's grade cell (course/jupyter.py's cell_text): "attention: 3 of 5 points."
SCORE = re.compile(r"^(\S+): ([\d.]+) of ([\d.]+) points\.")


class KitFeedback(NbGraderPreprocessor):
    """Last of generate_feedback's steps: a test cell shows the kit's feedback and nbgrader's score header,
    not the bare number that gave nbgrader its partial credit (an `Out[ ]: 5` under the text). The feedback
    is set as HTML: long lines wrap at spaces, never inside a number or a word (5e-05 once broke as 5e-0 / 5),
    and the "Likely mistake" line and the hints stand apart from the monospace text around them."""

    # Above the page's own rules for output text (div.output_subarea pre, word-break: break-all): more specific.
    CSS = (
        "div.output_subarea pre.kit-feedback { white-space: pre-wrap; word-break: normal; overflow-wrap: normal; }\n"
        "div.output_subarea pre.kit-feedback .kit-likely { display: block; font-weight: bold; background: #fff3cd;"
        " border-left: 4px solid #d39e00; padding: 2px 6px; margin: 4px 0; }\n"
        "div.output_subarea pre.kit-feedback .kit-hint { display: block; color: #0b5394; margin: 2px 0; }\n"
        "details.kit-ladder { margin: 4px 0 4px 12px; } details.kit-ladder summary { cursor: pointer; color: #0b5394; }"
    )
    display_data_priority = DISPLAY_DATA_PRIORITY

    def preprocess(self, nb, resources):
        for cell in filter(is_test_cell, nb.cells):
            cell.outputs = [
                _as_html(output, grade_id(cell)) if output.output_type == "stream" else output
                for output in cell.outputs
                if output.output_type != "execute_result"
            ]
        resources.setdefault("inlining", {}).setdefault("css", []).append(self.CSS)
        return nb, resources


def _as_html(output, cell_id=None):
    """A test cell's feedback text as escaped HTML, its likely-mistake and hint lines marked, and below a component
    that lost points its hint ladder (_ladder); the text kept."""
    lines = []
    for line in output.text.rstrip("\n").split("\n"):
        escaped = html.escape(line, quote=False)
        kind = (
            "kit-likely"
            if line.startswith(LIKELY_MISTAKE)
            else "kit-hint"
            if line.lstrip("- ").startswith(HINT)
            else None
        )
        lines.append(f'<span class="{kind}">{escaped}</span>' if kind else escaped)
    body = "\n".join(lines)
    page = f'<pre class="kit-feedback">{body}</pre>{_ladder(output.text, cell_id)}'
    return new_output("display_data", data={"text/html": page, "text/plain": output.text})


def _ladder(text, cell_id):
    """The hint ladder of the exercise a component's lost points are about (ladder.choose: the likely mistake's
    exercise first), as nested <details>: each level opens with a click, on the offline page as in a browser.
    Nothing where the component has all its points, or the course gives no hints."""
    score = SCORE.match(text)
    component = (cell_id or "").removeprefix("grade-")
    if not score or component not in spec.BY_ID or float(score.group(2)) >= float(score.group(3)):
        return ""
    chosen = ladder.choose(spec.BY_ID[component].names, (), ladder.mistakes_named(text))
    if chosen is None:
        return ""
    name, levels = chosen
    page = ""
    for level in reversed(range(1, len(levels) + 1)):
        summary = html.escape(f"Hint {level} of {len(levels)} for {name}", quote=False)
        page = (
            f'<details class="kit-ladder"><summary>{summary}</summary>{html.escape(levels[level - 1])}{page}</details>'
        )
    return page
