"""nbgrader's configuration for the course: this folder is the course directory (see docs/INSTRUCTORS.md)."""

import warnings

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.converters import Autograde
from nbgrader.preprocessors import Execute, GetGrades

c = get_config()  # noqa: F821 - nbgrader provides it

# nbgrader 0.9's gradebook, under SQLAlchemy 2, warns three times for every student it records (its
# objects are added while the session autoflushes); the records are right, and the log is the instructor's.
warnings.filterwarnings("ignore", message=r"Object of type <Submitted\w+> not in session", module=r"nbgrader\.api")

c.CourseDirectory.course_id = "transformers-from-scratch"
# The release is committed and checked for drift; the student-facing stub keeps the kit's hint above it.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
# Autograde grades with the kit's jailed grader (autograder/nbgrader/, a step per module) where nbgrader would run each
# notebook in a Jupyter kernel: no student code runs outside the jail. nbgrader's other steps stay.
c.Autograde.autograde_preprocessors = [
    "autograder.nbgrader.grades.KitGrades" if step is Execute else step
    for step in Autograde.class_traits()["autograde_preprocessors"].default()
]
# The kit's limits are KitGrades's options, as `grade` takes them: c.KitGrades.time_limit = 60 and so on.
# Feedback shows each test cell's output (the grader's feedback), never the hidden test source.
# A student's notebook is put back in the source's shape before nbgrader's own sanitizing reads it.
c.Autograde.sanitize_preprocessors = [
    "autograder.nbgrader.sanitize.KitSanitize",
    *Autograde.class_traits()["sanitize_preprocessors"].default(),
]
c.GenerateFeedback.preprocessors = [
    GetGrades,
    "autograder.nbgrader.hidden_tests.KitClearHiddenTests",
    CSSHTMLHeaderPreprocessor,
    "autograder.nbgrader.feedback.KitFeedback",
]
# A short answer that waits for hand grading reads "to be graded" on the feedback page, not a score of 0.
c.HTMLExporter.filters = {
    "float": "autograder.nbgrader.feedback.score_float",
    "round": "autograder.nbgrader.feedback.score_round",
}
# A late submission loses a share of its score per day begun past the assignment's due date (nbgrader's own
# methods are none and zero), an extension moves one student's due date: docs/TERM.md.
c.AssignLatePenalties.plugin_class = "autograder.nbgrader.late.KitLatePenalty"
c.KitLatePenalty.percent_per_day = 10
c.KitLatePenalty.extensions = {}  # {"alice": 2}: alice's due date two days later
# grades.csv as nbgrader writes it, and a column of the points still to be graded by hand.
c.ExportApp.plugin_class = "autograder.nbgrader.export.KitCsvExport"
