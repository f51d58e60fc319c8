"""The course kit: grading, the course, the breakout bank, and the command line over them.

Three subpackages, each importing only those below it (tests/test_layout.py holds the rule):

- engine/    grading a submission: the contract (spec), the loader and static check, the jail, the
             sandbox and its child process, the wire protocol, the checks and tolerances, the hidden
             suites and their fixtures, the mistake catalog and diagnosis, the report.
- course/    the coding notebooks: their builder, the student stubs, the public checks and pictures
             the notebooks run, the public checks' evidence.
- breakout/  the question bank: loading and grading answers, the terminal quiz, the quiz notebooks
             and the handout.

On top, importing any of them: the command line (__main__), nbgrader's autograde step (autograde),
what is delivered (bundle for students, gradescope for Gradescope, generated for every generated file),
and the names the notebooks import (public, notebook, pictures).

Importing this package, or engine, must stay cheap and must never import the reference solutions: the
sandbox's zygote imports them before forking the processes that run student code.
"""
