"""The built-in menagerie: a table of creature builders (data, not code paths).

Every entry is consumed the same way by the CLI listing and by the tests that
run the same invariants over all creatures.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

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
    postures: posture name → a builder of the same skeleton in the pose a
    gait hangs its free limbs in (``GaitSpec.posture``; the human's arms at
    its sides for walking, bent for running; :mod:`gaitforge.motion.arms`);
    a posture a creature lacks is its rest pose.
    """

    name: str
    build: Callable[[], CreatureSpec]
    summary: str
    dofs: int
    stands_passively: bool = True
    postures: Mapping[str, Callable[[], CreatureSpec]] = field(default_factory=dict)


ENTRIES: tuple[Entry, ...] = (
    Entry("loop", simple.loop_creature, "closed ring of 16 links (Kry09 Fig. 2)", dofs=21),
    Entry("worm", simple.worm, "open chain of 16 links (Kry09 Fig. 2)", dofs=21),
    Entry("human", human.human, "70 kg, 1.75 m human in a T-pose, 47 DOFs, stiffness 10x the paper's", dofs=47,
          postures={"relaxed": human.human_relaxed, "running": human.human_run}),
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


def posture(name: str, which: str) -> CreatureSpec | None:
    """Built-in creature ``name``'s spec in posture ``which``
    (:attr:`Entry.postures`), or None where it has no such posture."""
    build_it = entry(name).postures.get(which)
    return build_it() if build_it is not None else None


def build(name: str) -> CreatureSpec:
    """The :class:`CreatureSpec` of built-in creature ``name``."""
    return entry(name).build()
