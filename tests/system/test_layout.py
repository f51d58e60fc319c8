"""The layout's promises that need a process of their own. (The rest: tests/unit/test_layout.py.)"""

import subprocess
import sys

from autograder.engine.contract import spec


def test_layout_the_facade_imports_a_module_only_when_a_notebook_asks_for_one_of_its_names():
    """A notebook that draws nothing never imports the pictures' module, nor one that never loads the checkpoint
    minilm's: the facade imports each module on the first use of one of its names."""
    probe = (
        "import sys, autograder.notebook as kit\n"
        "loaded = lambda: sorted(m for m in kit.HOMES if m in sys.modules)\n"
        "print(loaded()); kit.check_masking; print(loaded()); kit.plot_matrix; print(loaded())\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=spec.KIT_ROOT, check=True)
    first, checked, drawn = (eval(line) for line in run.stdout.split("\n")[:3])
    assert first == [] and "autograder.course.public" in checked
    assert {"autograder.course.pictures", "autograder.course.minilm"}.isdisjoint(checked)
    assert "autograder.course.pictures" in drawn
