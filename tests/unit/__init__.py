"""The unit tests: each starts no process and runs in this one (tests/conftest.py marks them, tests/unit/conftest.py holds them to it)."""
