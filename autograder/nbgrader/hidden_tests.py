"""generate_feedback's ClearHiddenTests, taking nbconvert's display_data_priority."""

from nbgrader.preprocessors import ClearHiddenTests

from autograder.nbgrader.cells import DISPLAY_DATA_PRIORITY


class KitClearHiddenTests(ClearHiddenTests):
    """nbgrader's ClearHiddenTests, as generate_feedback runs it, taking nbconvert's display_data_priority."""

    display_data_priority = DISPLAY_DATA_PRIORITY
