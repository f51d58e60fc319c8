"""nbgrader's export, with the points still to be graded by hand."""

import csv

from nbgrader.api import MissingEntry
from nbgrader.plugins import CsvExportPlugin


class KitCsvExport(CsvExportPlugin):
    """nbgrader's grades.csv, with a column nbgrader leaves out: awaiting_manual_grading, the points of the
    cells still to be graded by hand (the breakout's short answers). Without it a complete answer sheet read
    70 of 93 with no sign that 23 points were not yet graded."""

    COLUMN = "awaiting_manual_grading"

    def export(self, gradebook):
        super().export(gradebook)
        path = self.to or "grades.csv"
        with open(path, newline="") as file:
            reader = csv.DictReader(file)
            fields, rows = [*(reader.fieldnames or []), self.COLUMN], list(reader)
        for row in rows:
            try:
                submission = gradebook.find_submission(row["assignment"], row["student_id"])
            except MissingEntry:  # nothing handed in: nothing waits
                waiting = 0.0
            else:
                waiting = sum(g.max_score for n in submission.notebooks for g in n.grades if g.needs_manual_grade)
            row[self.COLUMN] = str(float(waiting))
        with open(path, "w", newline="") as file:
            writer = csv.DictWriter(file, fields, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
