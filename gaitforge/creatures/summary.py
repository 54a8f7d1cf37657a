"""Plain summaries of characters (for tables, reports and tests)."""
from __future__ import annotations

from typing import NamedTuple

from gaitforge.creatures.character import Character


class CreatureSummary(NamedTuple):
    name: str
    bodies: int
    joints: int
    dofs: int  # velocity DOFs (nv), free root included
    mass: float  # kg
    height: float  # m, top of the rest pose above the ground


class BodyRow(NamedTuple):
    body: str
    mass: float  # kg
    joint: str  # joint kind ("fixed" if welded)
    dofs: int
    side: str
    role: str
    limb: str


def summarize(character: Character) -> CreatureSummary:
    return CreatureSummary(character.name, len(character.bodies), len(character.joints),
                           character.nv, character.mass, character.height)


def body_rows(character: Character) -> list[BodyRow]:
    """One row per body, in model order."""
    by_body = {j.body: j for j in character.joints.values()}
    rows = []
    for name, label in character.labels.items():
        j = by_body.get(name)
        rows.append(BodyRow(name, float(character.model.body_mass[character.body_id(name)]),
                            j.kind if j else "fixed", j.ndof if j else 0,
                            label.side, label.role or "-", label.limb or "-"))
    return rows
