"""The RH91 biped's body as the controllers read it: its two sides, the
legs' geometry from the model, its size relative to the paper's biped and
the fall check scaled by it."""
from __future__ import annotations

import math
from typing import Callable

import mujoco

from gaitforge.control.raibert.biped.gains import FALL_HEIGHT, LEG_LENGTH
from gaitforge.control.raibert.common import leg_geometry, trunk_fall_check
from gaitforge.creatures.character import Character

SIDES = ("left", "right")


def leg_geometries(character: Character):
    """The left and right legs' ``common.LegGeometry`` read from the model."""
    return tuple(leg_geometry(character, f"{s}_upper_leg", f"{s}_lower_leg", f"{s}_foot") for s in SIDES)


def size(character: Character) -> float:
    """The creature's size relative to the RH91 biped: leg length / 0.83 m."""
    return leg_geometries(character)[0].length / LEG_LENGTH


def fall_check(character: Character) -> Callable[[mujoco.MjData], str | None]:
    """Fall detector: trunk (hip) below 0.45 m (× ``size``) or tilted beyond 45°."""
    return trunk_fall_check(FALL_HEIGHT * size(character), math.radians(45.0), body=character.body_id("trunk"))
