"""What a cataloged mistake is: a component, a name, the sentence a student reads, and edits of the reference."""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Mistake:
    component: str
    name: str
    says: str
    edits: tuple

    @property
    def id(self):
        return f"{self.component}/{re.sub(r'[^a-z0-9]+', '-', self.name.lower()).strip('-')}"

    @property
    def in_float32(self):
        """A mistake that computes in float32 (each says so in its name): its outputs' digits beyond float32's
        are the rounding of the CPU that ran it."""
        return "float32" in self.name


def apply(source, edits):
    """source with the edits made, or ValueError naming an old text that does not occur exactly once."""
    for old, new in edits:
        if source.count(old) != 1:
            raise ValueError(f"{old!r} occurs {source.count(old)} times")
        source = source.replace(old, new)
    return source


def entries(component, *written):
    """component's mistakes, each written (name, says, edits)."""
    return [Mistake(component, name, says, tuple(edits)) for name, says, edits in written]
