"""A late penalty per day, which nbgrader lacks (its own methods are none and zero), and extensions."""

import math

from nbgrader.plugins import BasePlugin
from traitlets import Dict, Float

DAY = 24 * 3600


class KitLatePenalty(BasePlugin):
    """A share of each notebook's score taken for every day begun past the due date, up to all of it.

    course/nbgrader_config.py names it (AssignLatePenalties.plugin_class); docs/TERM.md gives the settings. A
    student's extension moves their due date by whole or part days: nbgrader's gradebook has a column for it
    but no command that sets it, and a setting in the course's config is one an instructor can read and keep.
    """

    percent_per_day = Float(10.0, help="percent of the score taken for each day begun past the due date").tag(
        config=True
    )
    extensions = Dict(value_trait=Float(), help="days added to a student's due date: {student id: days}").tag(
        config=True
    )

    def late_submission_penalty(self, student_id, score, total_seconds_late):
        seconds = total_seconds_late - self.extensions.get(student_id, 0) * DAY
        if seconds <= 0:
            return None
        days = math.ceil(seconds / DAY)
        # In percent, so that a score and a whole percent give an exact penalty (15 points, 20%: 3.0, not 3.0000001).
        percent = min(100.0, days * self.percent_per_day)
        self.log.info("%s: %d day(s) late, %g%% of %g points", student_id, days, percent, score)
        return score * percent / 100
