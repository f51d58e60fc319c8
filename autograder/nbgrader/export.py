"""nbgrader's export, with the points still to be graded by hand; and a gradebook for an LMS to import."""

import csv

from nbgrader.api import MissingEntry
from nbgrader.plugins import CsvExportPlugin, ExportPlugin


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


class KitLmsExport(ExportPlugin):
    """A gradebook for Canvas or Moodle to import: a row per student, a column per assignment with its score
    after any late penalty (`nbgrader export --exporter autograder.nbgrader.export.KitLmsExport --to lms.csv`).

    Canvas matches a row by its SIS Login ID and wants the Student and Section columns present (an empty section
    is kept); Moodle's CSV import maps any column to its users and grade items. Both match students by the
    nbgrader student id, which must therefore be the LMS login (docs/TERM.md)."""

    def export(self, gradebook):
        assignments = [a.name for a in gradebook.assignments if not self.assignment or a.name in self.assignment]
        with open(self.to or "lms.csv", "w", newline="") as file:
            writer = csv.writer(file, lineterminator="\n")
            writer.writerow(["Student", "SIS Login ID", "Section", *assignments])
            for student in gradebook.students:
                if self.student and student.id not in self.student:
                    continue
                name = ", ".join(n for n in (student.last_name, student.first_name) if n) or student.id
                writer.writerow([name, student.id, "", *(_score(gradebook, a, student.id) for a in assignments)])


def _score(gradebook, assignment, student):
    """The score as grades.csv gives it: what was handed in, less its late penalty; 0 for nothing handed in."""
    try:
        submission = gradebook.find_submission(assignment, student)
    except MissingEntry:
        return str(0.0)
    return str(max(0.0, submission.score - submission.late_submission_penalty))
