"""The system tests: gradings in the jail, Jupyter kernels, nbgrader and the kit's commands (tests/conftest.py marks them)."""
