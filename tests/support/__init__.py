"""What the kit's tests share, imported from here and never from another test module: submissions built from the
reference (helpers), the mistakes graded (mutations, grading), the sentences held to their evidence (hint_evidence),
the notebooks run (course_helpers), the breakout answers computed (breakout_facts), and how `make test` shares the
tests out between cores (scheduling)."""
