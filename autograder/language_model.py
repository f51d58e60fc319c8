"""Part 10's helpers, where its notebook imports them from: `from autograder.language_model import check_sampling`.

They live in autograder/course/language_model.py; this name stays fixed, so that a notebook a student holds
keeps working whatever moves inside the kit.
"""

from autograder.course.language_model import Characters, check_char_lm, check_kv_cache, check_sampling, corpus

__all__ = ["Characters", "check_char_lm", "check_kv_cache", "check_sampling", "corpus"]
