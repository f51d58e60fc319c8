"""nbgrader's configuration for the course: this folder is the course directory (see the README)."""
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import ClearHiddenTests, GetGrades

c = get_config()  # noqa: F821 - nbgrader provides it

c.CourseDirectory.course_id = "transformers-from-scratch"
# The release is committed and checked for drift; the student-facing stub keeps the kit's hint above it.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
# A hidden test cell runs the kit's grader on one component: up to 60 s of student code (the kit's own
# limit, sandbox.DEFAULT_TIME_LIMIT), plus starting torch. nbgrader's default of 30 s would cut it short.
c.Execute.timeout = 180
# Feedback shows each hidden cell's output (the grader's feedback), never the hidden test source.
c.GenerateFeedback.preprocessors = [GetGrades, ClearHiddenTests, CSSHTMLHeaderPreprocessor]
