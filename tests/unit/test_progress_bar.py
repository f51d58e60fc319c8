"""The progress line of a batch: redrawn in place on a terminal, one plain line per step elsewhere."""

import io

from autograder.engine.judge.progress_bar import Progress


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_log_gets_one_plain_line_per_step_with_the_time_left():
    log = io.StringIO()
    progress = Progress(3, "graded", log)
    for name in ("alice", "bob", "carol"):
        progress.step(name)
    lines = log.getvalue().splitlines()
    assert [line.split(" (")[0] for line in lines] == ["graded 1/3: alice", "graded 2/3: bob", "graded 3/3: carol"]
    assert "left)" in lines[0] and lines[-1].endswith("(done)") and "\r" not in log.getvalue()


def test_a_terminal_gets_one_bar_redrawn_in_place_and_a_newline_at_the_end():
    terminal = Terminal()
    progress = Progress(2, "graded", terminal)
    progress.step("alice")
    assert (
        terminal.getvalue().startswith("\r[" + "#" * 15 + "." * 15 + "] 1/2 graded, about ")
        and "\n" not in terminal.getvalue()
    )
    progress.step("bob")
    assert terminal.getvalue().count("\r") == 2 and terminal.getvalue().endswith("] 2/2 graded, done  \n")


def test_a_line_printed_between_steps_starts_on_a_clean_line():
    terminal = Terminal()
    progress = Progress(2, "graded", terminal)
    progress.clear()
    assert terminal.getvalue() == "", "nothing to erase before the first step"
    progress.step("alice")
    progress.clear()
    assert terminal.getvalue().endswith("\r\033[K")
    log = io.StringIO()
    Progress(2, "graded", log).clear()
    assert log.getvalue() == ""
