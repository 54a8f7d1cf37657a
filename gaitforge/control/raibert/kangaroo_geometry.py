"""Leg geometry of the planar RH91 kangaroo: link pitches in the sagittal
plane and the two leg poses its controller servoes to (the landing pose of
Eq. 3 with the knee on the thrust line, and the stance thigh that keeps the
knee on that line). Points are (x, z) [m]; a pitch is the world angle about
+y [rad], positive turning a link's +x axis down. Plain floats and ``math``:
these run every control tick.
"""
from __future__ import annotations

import math

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
    px, pz = toe
    wx, wz = com[0] - px, com[1] - pz
    n = math.hypot(wx, wz)
    wx, wz = wx / n, wz / n
    pw = px * wx + pz * wz
    s = -pw - math.sqrt(max(0.0, pw * pw - (px * px + pz * pz) + l1 * l1))
    kx, kz = px + s * wx, pz + s * wz
    ex, ez = px - kx, pz - kz
    e = math.hypot(ex, ez)
    ux, uz = ex / e, ez / e
    d = max(abs(l2 - r_toe) + 1e-9, min(l2 + r_toe - 1e-9, e))
    along = (l2 * l2 - r_toe * r_toe + d * d) / (2.0 * d)
    h = math.sqrt(max(0.0, l2 * l2 - along * along))
    ax, az = kx + along * ux + h * uz, kz + along * uz - h * ux
    return (math.atan2(-kz, kx), math.atan2(-(az - kz), ax - kx), math.atan2(-(pz - az), px - ax))


def thrust_line_thigh(hip, toe, com, l1: float) -> float:
    """World pitch [rad] of a thigh of length ``l1`` from ``hip`` whose far end
    (the knee) lies on the line from ``toe`` through ``com`` (points (x, z)),
    on the toe side of the hip."""
    wx, wz = com[0] - toe[0], com[1] - toe[1]
    n = math.hypot(wx, wz)
    wx, wz = wx / n, wz / n
    hx, hz = hip[0] - toe[0], hip[1] - toe[1]
    s = wx * hz - wz * hx
    t = hx * wx + hz * wz - math.sqrt(max(0.0, l1 * l1 - s * s))
    return math.atan2(-(t * wz - hz), t * wx - hx)
