"""nbgrader's feedback pages as the kit's last step leaves them (autograder/nbgrader/feedback.py): math drawn into
the page, a quiz explanation wrapped by the page alone. tests/system/test_nbgrader_pipeline.py shows a real page in
a browser."""

import base64
import re

from nbformat.v4 import new_output

from autograder.course import notebooks
from autograder.nbgrader import feedback


def test_every_formula_of_the_course_is_drawn_and_its_code_left_alone():
    for part in notebooks.parts():
        text = part.read_text()
        drawn = feedback.with_math_drawn(text)
        outside_code = re.sub(r"```.*?```|`[^`\n]*`", "", drawn, flags=re.S)
        assert "$" not in outside_code, part
        assert re.findall(r"```.*?```|`[^`\n]*`", drawn, re.S) == re.findall(r"```.*?```|`[^`\n]*`", text, re.S)


def test_a_formula_becomes_an_svg_image_with_its_tex_as_alt_text():
    drawn = feedback.with_math_drawn(r"the scale $\sqrt{d_k}$, and in code `x$y$z`")
    image = re.fullmatch(
        r'the scale <img class="kit-math" alt="([^"]*)" style="[^"]*" src="data:image/svg\+xml;base64,([^"]+)">, and in code `x\$y\$z`',
        drawn,
    )
    assert image and image[1] == r"\sqrt{d_k}"
    assert base64.b64decode(image[2]).lstrip().startswith(b"<?xml") and b"<svg" in base64.b64decode(image[2])


def test_tex_that_mathtext_cannot_draw_stays_as_written():
    assert feedback.with_math_drawn(r"$\unknowncommand{x}$") == r"$\unknowncommand{x}$"


def test_a_quiz_explanation_is_wrapped_by_the_page_alone():
    text = "question 3 (2 points): Correct. The scores grow with\nthe head size, so they are scaled.\n\nSee part 1.\n"
    shown = feedback._as_html(new_output("stream", name="stdout", text=text), unwrap=True).data["text/html"]
    assert "grow with the head size" in shown and "scaled.\n\nSee part 1." in shown
    kept = feedback._as_html(new_output("stream", name="stdout", text=text)).data["text/html"]
    assert "grow with\nthe head size" in kept


def test_a_note_goes_on_the_page_of_its_notebook_and_a_note_of_no_graded_page_on_every_page():
    from autograder.nbgrader.grades import _page_notes

    notes = [
        '01_attention.ipynb, code cell 4 ("import os"): 1 statement not run',
        '09_train.ipynb, code cell 2 ("plt.plot"): 2 statements not run',
        "scaled_dot_product_attention is defined in more than one file; graded: the one in 02_multihead.ipynb",
    ]
    graded = {"01_attention.ipynb", "02_multihead.ipynb"}
    assert _page_notes(notes, "01_attention.ipynb", graded) == notes
    assert _page_notes(notes, "02_multihead.ipynb", graded) == notes[1:]
