"""How far a batch has got: a bar with an estimate of the time left, redrawn in place on a terminal,
and one plain line per step anywhere else (a log file, CI), where a redrawn line would be noise."""

import sys
import time
from typing import TextIO

WIDTH = 30


class Progress:
    def __init__(self, total: int, what: str = "graded", stream: TextIO | None = None) -> None:
        self.total, self.what, self.done = total, what, 0
        self.stream = stream or sys.stderr
        self.started = time.monotonic()
        self.live = self.stream.isatty()

    def clear(self) -> None:
        """Erase the bar, so that a line printed next starts clean; the next step draws it again."""
        if self.live and self.done:
            self.stream.write("\r\033[K")
            self.stream.flush()

    def step(self, name: str) -> None:
        """One more is done: name says which."""
        self.done += 1
        elapsed = time.monotonic() - self.started
        left = elapsed / self.done * (self.total - self.done)
        when = "done" if self.done == self.total else f"about {_clock(left)} left"
        if self.live:
            filled = WIDTH * self.done // self.total
            line = f"\r[{'#' * filled}{'.' * (WIDTH - filled)}] {self.done}/{self.total} {self.what}, {when}  "
            self.stream.write(line + ("\n" if self.done == self.total else ""))
        else:
            self.stream.write(f"{self.what} {self.done}/{self.total}: {name} ({when})\n")
        self.stream.flush()


def _clock(seconds: float) -> str:
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{seconds:02d}" if minutes >= 60 else f"{minutes}:{seconds:02d}"
