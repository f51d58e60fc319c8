"""What a cataloged mistake is: a component, a name, the sentence a student reads after "Likely mistake: ", and
edits of the reference; and, for a mistake that stands for a family, the family's other members. One entry holds
all of them, in its component's module.

A family is one mistake that a student can make in several places or several ways whose numbers differ (the
heads split without moving the head axis in the queries, the keys, the values or all three; positions counted
from 1 in the embeddings, the sinusoidal table or both): one sentence tells them all, so the sentence is
written for the family, and each member is an edit of its own whose evidence is computed apart. Diagnosis
names the family when a student's numbers match any one member (diagnosis.py).
"""

import dataclasses
import itertools
import re
from collections.abc import Sequence

Edit = tuple[str, str]  # (old text, new text) in the component's reference file


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


@dataclasses.dataclass(frozen=True)
class Mistake:
    name: str
    says: str  # what the student did, then what to do instead; true of every member of the family
    edits: Sequence[Edit]  # each old text in the reference exactly once; kept as a tuple
    variants: Sequence[
        tuple[str, Sequence[Edit]]
    ] = ()  # (name, edits) of the family's other members, told by the same sentence
    component: str = ""  # set by entries(), once for a module's every entry

    def __post_init__(self) -> None:
        object.__setattr__(self, "edits", tuple(self.edits))
        object.__setattr__(self, "variants", tuple((name, tuple(edits)) for name, edits in self.variants))

    @property
    def id(self) -> str:
        return f"{self.component}/{slug(self.name)}"

    @property
    def in_float32(self) -> bool:
        """A mistake that computes in float32 (each says so in its name): its outputs' digits beyond float32's
        are the rounding of the CPU that ran it."""
        return "float32" in self.name

    def members(self) -> list[tuple[str, Sequence[Edit]]]:
        """(entry id, edits) of the mistake as written, then of each other member of its family."""
        return [(self.id, self.edits), *((f"{self.id}~{slug(name)}", edits) for name, edits in self.variants)]


def apply(source: str, edits: Sequence[Edit]) -> str:
    """source with the edits made, or ValueError naming an old text that does not occur exactly once."""
    for old, new in edits:
        if source.count(old) != 1:
            raise ValueError(f"{old!r} occurs {source.count(old)} times")
        source = source.replace(old, new)
    return source


def entries(component: str, *mistakes: Mistake) -> list[Mistake]:
    """component's mistakes, as its module writes them, each given the component."""
    return [dataclasses.replace(mistake, component=component) for mistake in mistakes]


def family(written: Sequence[Edit], sites: dict[str, dict[str, list[Edit]]]) -> list[tuple[str, list[Edit]]]:
    """The variants of a mistake made at one or more sites, each site one of its ways: sites is {site: {way:
    [edit, ...]}}, and a member is one way at each of a non-empty set of sites. Every member but the written
    one (whose edits are `written`) is a variant, (name, edits)."""
    options = [
        [None, *((f"{way} {site}".strip(), edits) for way, edits in ways.items())] for site, ways in sites.items()
    ]
    members: list[tuple[str, list[Edit]]] = []
    for chosen in itertools.product(*options):
        made = [option for option in chosen if option]
        edits = [edit for _, group in made for edit in group]
        if made and edits != list(written):
            members.append((", ".join(name for name, _ in made), edits))
    return members
