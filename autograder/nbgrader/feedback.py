"""Last of generate_feedback's steps: a test cell shows the kit's feedback as readable HTML."""

import html

from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.engine.judge.diagnosis import LIKELY_MISTAKE
from autograder.engine.judge.hints import HINT
from autograder.nbgrader.cells import DISPLAY_DATA_PRIORITY, is_test_cell


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
        "div.output_subarea pre.kit-feedback .kit-hint { display: block; color: #0b5394; margin: 2px 0; }"
    )
    display_data_priority = DISPLAY_DATA_PRIORITY

    def preprocess(self, nb, resources):
        for cell in filter(is_test_cell, nb.cells):
            cell.outputs = [
                _as_html(output) if output.output_type == "stream" else output
                for output in cell.outputs
                if output.output_type != "execute_result"
            ]
        resources.setdefault("inlining", {}).setdefault("css", []).append(self.CSS)
        return nb, resources


def _as_html(output):
    """A test cell's feedback text as escaped HTML, its likely-mistake and hint lines marked; the text kept."""
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
    return new_output(
        "display_data", data={"text/html": f'<pre class="kit-feedback">{body}</pre>', "text/plain": output.text}
    )
