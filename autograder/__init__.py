"""The course kit: grading, the course, the breakout bank, and the command line over them.

Three subpackages, each importing only those below it (tests/unit/test_layout.py holds the rule):

- engine/    grading a submission, in folders by trust: contract/ (spec, wire protocol, loader) and
             child/ (what runs beside student code) enter the jail; judge/ (sandbox, jail, hidden suites
             and the reader of their cases, checks, tolerances, diagnosis, report) decides; authoring/ makes
             the cases and the mistake catalog offline.
- course/    the coding notebooks: their builder, the student stubs, the public checks and pictures
             the notebooks run.
- breakout/  the question bank: loading and grading answers, the terminal quiz, the quiz notebooks
             and the handout.

On top, importing any of them: the command line (__main__, a module per group of commands in commands/),
nbgrader's steps (nbgrader/, one per module), what is delivered (bundle for students, gradescope for Gradescope,
generated for every generated file), and the one facade the notebooks import from (notebook).

The package holds code alone: what `python -m autograder generate` writes (cases, evidence, sentences, stamps) is
data, in generated/ beside it (generated/README.md), and the course's own material is in course/.

Importing this package, or engine, must stay cheap and must never import the reference solutions: the
sandbox's zygote imports them before forking the processes that run student code.
"""
