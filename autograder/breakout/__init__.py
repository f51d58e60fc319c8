"""The breakout bank: the question bank in breakout_questions/, and everything made from it.

Loading the bank and grading answers (bank), a question file read and checked (questions), the terminal
quiz (quiz), the quiz notebooks and the handout (quiz_notebooks), the sheets of a hand-in graded beside its code
(sheets). The quiz notebooks import check_format and
grade_answer from the notebooks' one facade, autograder.notebook.

May import engine/ and course/ (the notebooks' format, the grading cell's helpers); never the modules on top.
"""
