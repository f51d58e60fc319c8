"""The coding notebooks, and what they run.

Built from the reference and course/parts/*.md: the notebooks, source and nbgrader release (notebooks),
and the student stubs (stubs). Run by the notebooks and the student bundle: the public checks (public; what a failed one prints first, failed_check),
the hint ladders asked for (ladder), the pictures (pictures), part 5's pretrained BERT in the student's encoder (minilm) and the notebooks' helpers (jupyter: earlier parts, the hidden grading cell,
the kernel). The public checks run the hidden suites on the public cases (generated/public_cases, built with
the hidden ones by engine/authoring/case_files.py), and name a mistake from the evidence beside them; the notebooks' step checks
run the suites' comparison on the steps' public cases (generated/public_cases/steps.*).

May import engine/; never breakout/ or the modules on top.
"""

from autograder.engine.contract.spec import GENERATED, KIT_ROOT

# What the notebooks read as data, named here, so that listing the bundle's files imports no torch. The public
# checks' cases, and each cataloged mistake's evidence on them: built by engine/authoring/case_files.py, read by
# public.py. Part 10's text (language_model.py): course material, which no command writes.
PUBLIC_CASES = GENERATED / "public_cases"
CORPUS_FOLDER = KIT_ROOT / "course" / "corpus"
# The hint ladders under the course's setting (ladder.py reads them; course/stubs.py writes them from the reference).
HINTS = GENERATED / "hints.json"
