"""First of nbgrader's sanitizing steps: a student's notebook put back in the source's shape."""

import copy
import uuid

from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.engine.contract.protocol import visible
from autograder.nbgrader import cells


class KitSanitize(NbGraderPreprocessor):
    """First of nbgrader's sanitizing steps: a student's notebook whose nbgrader cells are not the source's
    (a hidden cell pasted twice, as Jupyter's copy and paste does; renamed, deleted, re-typed) is put back
    in the source's shape, so that nbgrader neither stops (a duplicate made it stop the whole class) nor
    scores the student's version of a cell.

    A cell whose nbgrader metadata does not belong (a second copy, an id the source lacks, a changed type)
    keeps its text and loses the metadata; a cell that does belong takes the source's metadata back, whatever
    the student's copy says (a forged schema_version stopped nbgrader for the whole class); a graded or locked
    cell of the source that is missing comes back from it, so the kit's verdict fills it. Solution cells are the
    student's and never come back. Each repair is a note in the notebook's metadata, which KitGrades puts into
    the feedback: that key is the kit's alone, and a student's own is dropped. The kit's own grade never
    depended on these cells: it reads the student's files (loader), not nbgrader's copy.
    """

    def preprocess(self, nb, resources):
        ids = resources["nbgrader"]
        nb.metadata.pop(cells.NOTES, None)
        source = cells.source_notebook(self.parent.parent.coursedir, ids)
        expected = {cells.grade_id(cell): cell for cell in source.cells if cells.grade_id(cell)}
        kept, notes = [], []
        for cell in nb.cells:
            grade_id = cells.grade_id(cell)
            if "nbgrader" in cell.metadata and (
                grade_id not in expected or grade_id in kept or cell.cell_type != expected[grade_id].cell_type
            ):
                del cell.metadata["nbgrader"]
                notes.append(
                    f"a cell marked as nbgrader's {visible(str(grade_id))!r} is not the course's (a pasted copy, "
                    "or a changed one): it was kept as an ordinary cell"
                )
            elif grade_id:
                kept.append(grade_id)
                cell.metadata["nbgrader"] = copy.deepcopy(expected[grade_id].metadata["nbgrader"])
                _unhide(cell, expected[grade_id])
        for grade_id, cell in expected.items():
            if grade_id not in kept and not cell.metadata["nbgrader"].get("solution"):
                restored = copy.deepcopy(cell)
                if "id" in restored:
                    restored["id"] = uuid.uuid4().hex[:8]  # the student's cells may use the source's id
                nb.cells.append(restored)
                notes.append(
                    f"nbgrader's cell {grade_id!r} was missing or changed: it was put back from the course's source"
                )
        if notes:
            self.log.warning("%s's %s: %s", ids["student"], ids["notebook"], "; ".join(notes))
            nb.metadata[cells.NOTES] = notes
        return nb, resources


def _unhide(cell, source):
    """A graded cell as the release gave it (its hidden tests cut out) takes the source's text back, as
    nbgrader's OverwriteCells would, but without its warning: that warning is for a changed cell, and every
    untouched hidden test cell of every student raised it."""
    lines, kept, hidden = source.source.split("\n"), [], False
    for line in lines:
        if "BEGIN HIDDEN TESTS" in line or "END HIDDEN TESTS" in line:
            hidden = "BEGIN" in line
        elif not hidden:
            kept.append(line)
    if kept != lines and cell.source == "\n".join(kept):
        cell.source = source.source
