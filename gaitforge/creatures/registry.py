"""The built-in menagerie: a table of creature builders (data, not code paths).

Every entry is consumed the same way by the CLI listing and by the tests that
run the same invariants over all creatures.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from gaitforge.naming import match
from gaitforge.errors import UnknownNameError
from gaitforge.creatures.builders import dog, gorilla, human, raibert, simple
from gaitforge.creatures.spec import CreatureSpec


@dataclass(frozen=True)
class Entry:
    """One built-in creature.

    dofs: velocity DOFs (nv) of the compiled model, free root included.
    stands_passively: whether it holds its rest pose on the ground with no
    control (the Raibert biped and kangaroo only balance under control).
    posture: builds the same skeleton standing as it walks and runs, its
    free limbs hanging (the human's arms at its sides; used by
    :mod:`gaitforge.motion.arms`), or None: as in the rest pose.
    """

    name: str
    build: Callable[[], CreatureSpec]
    summary: str
    dofs: int
    stands_passively: bool = True
    posture: Callable[[], CreatureSpec] | None = None


ENTRIES: tuple[Entry, ...] = (
    Entry("loop", simple.loop_creature, "closed ring of 16 links (Kry09 Fig. 2)", dofs=21),
    Entry("worm", simple.worm, "open chain of 16 links (Kry09 Fig. 2)", dofs=21),
    Entry("human", human.human, "70 kg, 1.75 m human in a T-pose, 47 DOFs, stiffness 10x the paper's", dofs=47,
          posture=human.human_relaxed),
    Entry("human_run", human.human_run, "the human in a bent-knee, bent-elbow running rest pose", dofs=47),
    Entry("raibert_biped", raibert.raibert_biped, "RH91 biped robot, Table 3 values", dofs=14,
          stands_passively=False),
    Entry("raibert_quadruped", raibert.raibert_quadruped, "RH91 quadruped robot, Table 3 values", dofs=22),
    Entry("kangaroo", raibert.raibert_kangaroo, "RH91 planar kangaroo, Table 3 values", dofs=10,
          stands_passively=False),
    Entry("gorilla", gorilla.gorilla, "157 kg knuckle-walking gorilla, 21 box links (Wang 2011)", dofs=40),
    Entry("dog", dog.dog, "31 kg dog, 80 DOFs (Kry09 Fig. 1), stiffness 10x the paper's", dofs=80),
)


def names() -> list[str]:
    """Names of all built-in creatures, in registry order."""
    return [e.name for e in ENTRIES]


def entry(name: str) -> Entry:
    """The registry entry of ``name`` (``human-run`` or ``human_run``); the
    error lists the valid names."""
    found = match(name, names())
    for e in ENTRIES:
        if e.name == found:
            return e
    raise UnknownNameError(f"unknown creature {name!r} (built-in creatures: {', '.join(names())})")


def posture(name: str) -> CreatureSpec | None:
    """The posture spec of built-in creature ``name`` (:attr:`Entry.posture`), or None."""
    e = entry(name)
    return e.posture() if e.posture is not None else None


def build(name: str) -> CreatureSpec:
    """The :class:`CreatureSpec` of built-in creature ``name``."""
    return entry(name).build()
