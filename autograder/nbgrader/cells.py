"""What the kit's nbgrader steps share: which cells nbgrader grades, the instructor's source notebook, and the
notes the sanitizing step leaves for the grading step."""

import os

import nbformat
from traitlets import List

# Where KitSanitize leaves its notes for KitGrades: the notebook's own metadata, which nbgrader clears after.
NOTES = "kit_repairs"

# nbconvert's HTML exporter configures display_data_priority for every NbConvertBase, preprocessors included;
# nbgrader's preprocessors hold the trait without making it configurable, and traitlets then warned "Config option
# display_data_priority not recognized" once per step and notebook of every student's feedback. These take it.
DISPLAY_DATA_PRIORITY = List(
    ["text/html", "application/pdf", "text/latex", "image/svg+xml", "image/png", "image/jpeg", "text/plain"]
).tag(config=True)


def is_test_cell(cell):
    """A code cell nbgrader grades by its output (an autograder test cell), not by hand."""
    meta = cell.metadata.get("nbgrader", {})
    return cell.cell_type == "code" and bool(meta.get("grade")) and not meta.get("solution")


def source_notebook(coursedir, ids):
    """The instructor's source of the notebook nbgrader is processing (resources["nbgrader"] gives ids)."""
    folder = coursedir.format_path(coursedir.source_directory, ".", ids["assignment"])
    return nbformat.read(os.path.join(folder, f"{ids['notebook']}.ipynb"), as_version=4)


def grade_id(cell):
    meta = cell.metadata.get("nbgrader")
    grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
    return grade_id if isinstance(grade_id, str) else None
