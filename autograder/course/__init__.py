"""The coding notebooks, and what they run.

Built from the reference and course/parts/*.md: the notebooks, source and nbgrader release (notebooks),
and the student stubs (stubs). Run by the notebooks and the student bundle: the public checks (public),
the pictures (pictures), part 5's pretrained BERT in the student's encoder (minilm) and the notebooks' helpers (jupyter: earlier parts, the hidden grading cell,
the kernel). The public checks run the hidden suites on the public cases (public_cases, built with the hidden
ones by engine/authoring/fixtures.py), and name a mistake from the evidence beside them; the notebooks' step checks
run the suites' comparison on the steps' public cases (public_cases/steps.*).

May import engine/; never breakout/ or the modules on top.
"""

from pathlib import Path

# The public checks' cases, and each cataloged mistake's evidence on them: built by engine/authoring/fixtures.py,
# read by public.py, shipped by the bundle. Named here, so that listing the bundle's files imports no torch.
PUBLIC_CASES = Path(__file__).resolve().parent / "public_cases"
