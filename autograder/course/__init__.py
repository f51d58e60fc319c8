"""The coding notebooks, and what they run.

Built from the reference and course/parts/*.md: the notebooks, source and nbgrader release (notebooks),
and the student stubs (stubs). Run by the notebooks and the student bundle: the public checks (public),
the pictures (pictures) and the notebooks' helpers (jupyter: earlier parts, the hidden grading cell,
the kernel). The public checks name a mistake from evidence built on their own cases (public_evidence).

May import engine/; never breakout/ or the modules on top.
"""
from pathlib import Path

# Each cataloged mistake's outputs on the public checks' own cases: built by public_evidence.py, read by
# public.py, shipped by the bundle. Named here, so that listing the bundle's files imports no torch.
PUBLIC_EVIDENCE = Path(__file__).resolve().parent / "public_mistakes"
