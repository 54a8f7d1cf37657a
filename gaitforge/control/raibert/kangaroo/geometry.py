"""Leg geometry of the planar RH91 kangaroo: link pitches in the sagittal
plane and the two leg poses its controller servoes to (the landing pose of
Eq. 3 with the knee on the thrust line, and the stance thigh that keeps the
knee on that line). Points are (x, z) [m]; a pitch is the world angle about
+y [rad], positive turning a link's +x axis down.

The two poses are computed by the compiled scalar kernels of
:mod:`kangaroo.pose_kernels` (the control tick calls them); the functions
here are their point-pair forms for callers outside the tick.
"""
from __future__ import annotations

import math

from gaitforge.control.raibert.kangaroo.pose_kernels import (
    landing_pose_xz,
    thrust_line_thigh_xz,
)

#: Each servoed joint's body and the body it turns against.
PARENT = {"thigh": "trunk", "shin": "thigh", "foot": "shin", "tail1": "trunk", "head": "trunk"}


def pitch(xmat_row) -> float:
    """World pitch [rad] of a body's +x axis from its xmat row (9,)."""
    return math.atan2(-xmat_row[6], xmat_row[0])


def landing_pose(toe, com, l1: float, l2: float, r_toe: float) -> tuple[float, float, float]:
    """World pitches (thigh, shin, toe direction from the ankle) [rad] that put
    the toe at ``toe`` = (x, z) [m] relative to the hip with the knee on the
    line from the toe toward ``com`` (x, z, relative to the hip), thigh ``l1``
    and shin ``l2`` long, the toe ``r_toe`` from the ankle, ankle behind the
    knee-toe line (heel up). Unreachable targets are clamped."""
    return landing_pose_xz(float(toe[0]), float(toe[1]), float(com[0]), float(com[1]),
                           float(l1), float(l2), float(r_toe))


def thrust_line_thigh(hip, toe, com, l1: float) -> float:
    """World pitch [rad] of a thigh of length ``l1`` from ``hip`` whose far end
    (the knee) lies on the line from ``toe`` through ``com`` (points (x, z)),
    on the toe side of the hip."""
    return thrust_line_thigh_xz(float(hip[0]), float(hip[1]), float(toe[0]), float(toe[1]),
                                float(com[0]), float(com[1]), float(l1))
