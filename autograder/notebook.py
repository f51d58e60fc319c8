"""The notebooks' helpers, where the notebooks import them from: `from autograder.notebook import use_notebooks`.

They live in autograder/course/jupyter.py; this name stays fixed, so that a notebook a student holds
keeps working whatever moves inside the kit.
"""

from autograder.course.jupyter import grade_here, use_notebooks

__all__ = ["grade_here", "use_notebooks"]
