"""Virtual legs of the RH91 quadruped (Raibert & Hodgins 1991, §4 "Gaits"):
which physical legs act together in each gait, and how a body torque is spread
over the hips of the legs on the ground (the posture servo, Eq. 4).

Leg indices follow the creature's contact order: 0 front-left, 1 front-right,
2 rear-left, 3 rear-right. Hip angles are those of the gimbal hip compiled as
hinges ``rx`` then ``ry`` (R = Rx(a) Ry(b)), so a straight leg of length ℓ
points along r = ℓ (−sin b, cos b sin a, −cos b cos a) in the trunk frame
(positive b swings the foot backwards, positive a swings it to the left).

Pure functions in plain Python (math only): they run inside the control loop.
"""
from __future__ import annotations

import math
from typing import NamedTuple

LEG_NAMES = ("front_left", "front_right", "rear_left", "rear_right")


class GaitPattern(NamedTuple):
    """How the four legs form the two virtual legs of a gait.

    pairs: two tuples of leg indices; the first leg of a pair leads when the
    pair is staggered. staggered: False when the members of a pair touch down
    and lift off in unison (trot, bound); True when the trailing member lands
    after the leading one (gallop: single, double, single support per pair).
    """

    pairs: tuple[tuple[int, int], tuple[int, int]]
    staggered: bool


GAITS: dict[str, GaitPattern] = {
    "trot": GaitPattern(((0, 3), (1, 2)), False),    # diagonal pairs
    "bound": GaitPattern(((0, 1), (2, 3)), False),   # front pair, rear pair
    "gallop": GaitPattern(((0, 1), (3, 2)), True),   # as the bound; front left and rear right lead
}


def torque_map(hips, angles, lengths) -> list[tuple[float, float, float]]:
    """Body torque per unit hip torque, for legs whose feet are planted.

    A planted point foot cannot resist a twist about the leg, so each stance leg
    offers its two hip hinges (roll rx, pitch ry). A generalized torque f on a
    hinge turns the leg by f along the hinge axis e and the trunk by −f e; the
    leg, taken massless, passes the foot force F with r × F = −(f e)⊥ to the hip,
    whose moment p × F about the trunk's mass centre also turns the trunk:
    τ = −e − (e (p·r) − r (p·e)) / ℓ² per unit f.

    hips (n, 3) [m]: hip positions from the trunk mass centre (trunk axes);
    angles (n, 2) [rad]: hip roll a and pitch b; lengths (n,) [m] hip to foot.
    Returns the 2n columns of A (3, 2n), trunk torque [N m] (trunk axes) =
    A @ (f_rx0, f_ry0, f_rx1, ...), as tuples. Plain Python: it runs inside
    the control loop, where numpy's per-call cost dominates for such sizes.
    """
    cols = []
    for (px, py, pz), (a, b), ell in zip(hips, angles, lengths):
        ca, sa, cb, sb = math.cos(a), math.sin(a), math.cos(b), math.sin(b)
        rx, ry, rz = -ell * sb, ell * cb * sa, -ell * cb * ca
        pr = px * rx + py * ry + pz * rz
        inv = 1.0 / (ell * ell)
        for ex, ey, ez in ((1.0, 0.0, 0.0), (0.0, ca, sa)):
            pe = px * ex + py * ey + pz * ez
            cols.append((-ex - (ex * pr - rx * pe) * inv,
                         -ey - (ey * pr - ry * pe) * inv,
                         -ez - (ez * pr - rz * pe) * inv))
    return cols


def torque_allocation(hips, angles, lengths, regularization: float = 1e-3) -> list[tuple[float, float, float]]:
    """Least-effort hip torques for a desired trunk torque (RH91 Eq. 4 spread
    over the stance hips): the rows of W (2n, 3), hip torques = W @ τ_body,
    W = Aᵀ (A Aᵀ + λ I)⁻¹ with A from :func:`torque_map`; the damping λ =
    ``regularization`` keeps it finite for a single stance leg, whose two
    hinges cannot reach all three torque components."""
    cols = torque_map(hips, angles, lengths)
    a = e = i = regularization
    b = c = f = 0.0
    for x, y, z in cols:  # A Aᵀ + λ I, symmetric: [[a b c] [b e f] [c f i]]
        a += x * x
        b += x * y
        c += x * z
        e += y * y
        f += y * z
        i += z * z
    c0, c1, c2 = e * i - f * f, c * f - b * i, b * f - c * e  # cofactors (the inverse is symmetric too)
    c4, c5, c8 = a * i - c * c, b * c - a * f, a * e - b * b
    det = a * c0 + b * c1 + c * c2
    m0, m1, m2, m4, m5, m8 = c0 / det, c1 / det, c2 / det, c4 / det, c5 / det, c8 / det
    return [(x * m0 + y * m1 + z * m2, x * m1 + y * m4 + z * m5, x * m2 + y * m5 + z * m8) for x, y, z in cols]
