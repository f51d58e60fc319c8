"""Last of generate_feedback's steps: a test cell shows the kit's feedback as readable HTML, and the page reads
offline (its math drawn in, its tables ruled)."""

import base64
import html
import io
import re
from functools import cache

import jinja2.filters
from nbformat.v4 import new_output
from nbgrader.api import Gradebook
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
        # The page's own rules leave a Markdown table unruled and its cells touching.
        "div.text_cell_render table { border-collapse: collapse; margin: 0.6em 0; }\n"
        "div.text_cell_render th, div.text_cell_render td { border: 1px solid #bbb; padding: 3px 10px; }\n"
        "div.text_cell_render th { background: #f3f3f3; }\n"
        "div.text_cell_render .kit-math-display { text-align: center; margin: 0.6em 0; }\n"
        "details.kit-ladder { margin: 4px 0 4px 12px; } details.kit-ladder summary { cursor: pointer; color: #0b5394; }"
    )
    display_data_priority = DISPLAY_DATA_PRIORITY

    def preprocess(self, nb, resources):
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                cell.source = with_math_drawn(cell.source)
        _mark_pending(nb, resources["nbgrader"])
        for cell in filter(is_test_cell, nb.cells):
            quiz = cell.metadata["nbgrader"].get("grade_id", "").startswith(QUIZ_CELL)
            cell.outputs = [
                _as_html(output, grade_id(cell), unwrap=quiz) if output.output_type == "stream" else output
                for output in cell.outputs
                if output.output_type != "execute_result"
            ]
        resources.setdefault("inlining", {}).setdefault("css", []).append(self.CSS)
        return nb, resources


# What the page says of a score not yet given: nbgrader's template writes every score through Jinja's float and round
# filters, which course/nbgrader_config.py replaces with these two (HTMLExporter.filters).
PENDING = "to be graded"


def score_float(value, default=0.0):
    return value if value == PENDING else jinja2.filters.do_float(value, default)


def score_round(value, precision=0, method="common"):
    return value if value == PENDING else jinja2.filters.do_round(value, precision, method)


def _mark_pending(nb, ids):
    """An answer that waits for hand grading shows PENDING as its score: nbgrader's gradebook gives it 0 until then,
    and its page read "Score: 0.0 / 2.0"."""
    answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade") and not is_test_cell(c)]
    if not answers:
        return
    with Gradebook(ids["db_url"]) as gradebook:
        for cell in answers:
            meta = cell.metadata["nbgrader"]
            grade = gradebook.find_grade(meta["grade_id"], ids["notebook"], ids["assignment"], ids["student"])
            if grade.needs_manual_grade:
                meta["score"] = PENDING


# A breakout sheet's test cells (breakout/bank.py): their explanations keep the question file's line breaks,
# which the page's wrapping then broke again mid-line.
QUIZ_CELL = "check-"
# Math in a Markdown cell, outside code: $$display$$ or $inline$ (a \$ is a dollar sign).
CODE_OR_MATH = re.compile(r"(```.*?```|`[^`\n]*`)|\$\$(.+?)\$\$|(?<![\\$])\$([^$\n]+?)\$", re.S)


def with_math_drawn(text):
    """The Markdown with each formula drawn as an SVG image in the page: the page's MathJax comes from a CDN,
    and offline a student read raw TeX."""

    def drawn(match):
        code, display, inline = match.groups()
        if code is not None:
            return code
        image = _svg_image(" ".join((display or inline).split()))
        if image is None:  # TeX that matplotlib's mathtext cannot draw stays as it is written
            return match.group()
        return f'<div class="kit-math-display">{image}</div>' if display else image

    return CODE_OR_MATH.sub(drawn, text)


@cache
def _svg_image(tex):
    """An <img> of the formula drawn by matplotlib's mathtext (no TeX, no network), its baseline on the text's;
    None where mathtext cannot draw it. \\big and its kin, which mathtext lacks, are dropped."""
    import matplotlib
    from matplotlib.font_manager import FontProperties
    from matplotlib.mathtext import MathTextParser, math_to_image

    for attempt in (tex, re.sub(r"\\[Bb]ig{1,2}[lr]?(?![a-zA-Z])", "", tex)):
        svg = io.BytesIO()
        try:
            with matplotlib.rc_context({"mathtext.fontset": "cm", "svg.hashsalt": "kit", "svg.fonttype": "path"}):
                prop = FontProperties(size=12)
                depth = MathTextParser("path").parse(f"${attempt}$", dpi=72, prop=prop).depth
                math_to_image(f"${attempt}$", svg, prop=prop, format="svg")
        except ValueError:
            continue
        data = base64.b64encode(svg.getvalue()).decode("ascii")
        alt = html.escape(tex)
        return f'<img class="kit-math" alt="{alt}" style="vertical-align: -{depth:.2f}pt" src="data:image/svg+xml;base64,{data}">'
    return None


def _as_html(output, cell_id=None, unwrap=False):
    """A test cell's feedback text as escaped HTML, its likely-mistake and hint lines marked, and below a component
    that lost points its hint ladder (_ladder); the text kept. unwrap: the text's single line breaks are wrapping,
    joined so that the page alone wraps it."""
    text = output.text.rstrip("\n")
    if unwrap:
        text = re.sub(r"(?<=\S)\n(?=\S)", " ", text)
    lines = []
    for line in text.split("\n"):
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
