"""Compiled leg geometry of the RH91 kangaroo's control tick
(:mod:`kangaroo.kernel`): the landing pose of Eq. 3 with the knee on the
thrust line, and the stance thigh that keeps the knee on that line (scalar
kernels; their point-pair forms for Python callers are in
:mod:`kangaroo.geometry`).

Angles are world pitches about +y [rad] (positive turns a link's +x axis
down); points are (x, z) [m].
"""
from __future__ import annotations

import math

from gaitforge.jit import kernel


@kernel
def landing_pose_xz(px, pz, cx, cz, l1, l2, r_toe):
    """World pitches (thigh, shin, toe direction from the ankle) [rad] putting
    the toe at (px, pz) [m] from the hip with the knee on the line from the toe
    toward (cx, cz) (also from the hip); thigh ``l1``, shin ``l2``, toe
    ``r_toe`` from the ankle [m]; ankle behind the knee-toe line (heel up).
    Unreachable targets are clamped."""
    wx, wz = cx - px, cz - pz
    n = math.hypot(wx, wz)
    wx, wz = wx / n, wz / n
    pw = px * wx + pz * wz
    # Knee: the point of the toe-COM line at l1 from the hip, on the far side of the toe.
    s = -pw - math.sqrt(max(0.0, pw * pw - (px * px + pz * pz) + l1 * l1))
    kx, kz = px + s * wx, pz + s * wz
    ex, ez = px - kx, pz - kz
    e = math.hypot(ex, ez)
    ux, uz = ex / e, ez / e
    # Ankle: the two-link (shin, toe lever) solution over the knee-toe chord.
    d = max(abs(l2 - r_toe) + 1e-9, min(l2 + r_toe - 1e-9, e))
    along = (l2 * l2 - r_toe * r_toe + d * d) / (2.0 * d)
    h = math.sqrt(max(0.0, l2 * l2 - along * along))
    ax, az = kx + along * ux + h * uz, kz + along * uz - h * ux
    return math.atan2(-kz, kx), math.atan2(-(az - kz), ax - kx), math.atan2(-(pz - az), px - ax)


@kernel
def thrust_line_thigh_xz(hx, hz, tx, tz, cx, cz, l1):
    """World pitch [rad] of a thigh ``l1`` long from the hip (hx, hz) whose
    knee lies on the line from the toe (tx, tz) through the COM (cx, cz),
    on the toe side of the hip (points [m])."""
    wx, wz = cx - tx, cz - tz
    n = math.hypot(wx, wz)
    wx, wz = wx / n, wz / n
    hx, hz = hx - tx, hz - tz
    s = wx * hz - wz * hx  # distance of the hip from the line
    t = hx * wx + hz * wz - math.sqrt(max(0.0, l1 * l1 - s * s))
    return math.atan2(-(t * wz - hz), t * wx - hx)

