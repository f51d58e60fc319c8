"""The kit's steps in nbgrader's pipeline, one per module; course/nbgrader_config.py names them.

nbgrader keeps its own work: it copies and sanitizes the notebooks (the locked and hidden cells come back from the
source), records the scores, applies late penalties, writes autograded/ and the gradebook, and later the feedback
and the export. The kit takes the steps where student code would run or where nbgrader's output misleads:

- sanitize.KitSanitize: a student's notebook put back in the source's shape before nbgrader's own sanitizing.
- grades.KitGrades: autograde's grading, by the kit's jailed grader, where nbgrader would run each notebook in a
  Jupyter kernel: no student code runs in nbgrader's kernel.
- hidden_tests.KitClearHiddenTests and feedback.KitFeedback: generate_feedback's pages.
- late.KitLatePenalty: autograde's late penalty, a share of the score per day begun late, and extensions.
- export.KitCsvExport: grades.csv with the points still to be graded by hand; export.KitLmsExport, a gradebook
  for Canvas or Moodle.

cells.py holds what they share: which cells are the kit's, the source notebook, the notes one step leaves another.
These sit on top of the package: they may import the engine, the course and the breakout bank; nothing of the kit
imports them (nbgrader loads them by the names in course/nbgrader_config.py).
"""
