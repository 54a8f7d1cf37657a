"""Virtual legs of the RH91 quadruped (Raibert & Hodgins 1991, §4 "Gaits"):
which physical legs act together in each gait, and how a body torque is spread
over the hips of the legs on the ground (the posture servo, Eq. 4).

Leg indices follow the creature's contact order: 0 front-left, 1 front-right,
2 rear-left, 3 rear-right. Hip angles are those of the gimbal hip compiled as
hinges ``rx`` then ``ry`` (R = Rx(a) Ry(b)), so a straight leg of length ℓ
points along r = ℓ (−sin b, cos b sin a, −cos b cos a) in the trunk frame
(positive b swings the foot backwards, positive a swings it to the left).

The arithmetic lives in compiled kernels (:func:`torque_map_into`,
:func:`torque_allocation_into`), which the quadruped's control tick calls
directly; :func:`torque_map` and :func:`torque_allocation` are their
list-in, list-out forms.
"""
from __future__ import annotations

import math
from typing import NamedTuple, cast

import numpy as np

from gaitforge.jit import kernel

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


@kernel
def torque_map_into(P, angles, lengths, A):
    """Body torque per unit hip torque, for legs whose feet are planted.

    A planted point foot cannot resist a twist about the leg, so each stance leg
    offers its two hip hinges (roll rx, pitch ry). A generalized torque f on a
    hinge turns the leg by f along the hinge axis e and the trunk by −f e; the
    leg, taken massless, passes the foot force F with r × F = −(f e)⊥ to the hip,
    whose moment p × F about the trunk's mass centre also turns the trunk:
    τ = −e − (e (p·r) − r (p·e)) / ℓ² per unit f.

    P (n, 3) [m]: hip positions from the trunk mass centre (trunk axes);
    angles (n, 2) [rad]: hip roll a and pitch b; lengths (n,) [m] hip to foot.
    Writes the 2n columns of A (3, 2n) as the rows of ``A`` (2n, 3): trunk
    torque [N m] (trunk axes) = Σ_k A[k] f_k for hip torques
    f = (f_rx0, f_ry0, f_rx1, ...).
    """
    for k in range(P.shape[0]):
        px, py, pz = P[k, 0], P[k, 1], P[k, 2]
        a, b, ell = angles[k, 0], angles[k, 1], lengths[k]
        ca, sa, cb, sb = math.cos(a), math.sin(a), math.cos(b), math.sin(b)
        rx, ry, rz = -ell * sb, ell * cb * sa, -ell * cb * ca
        pr = px * rx + py * ry + pz * rz
        inv = 1.0 / (ell * ell)
        for h in range(2):  # hinge axes e: rx is (1, 0, 0); ry is (0, cos a, sin a) after the roll
            ex, ey, ez = (1.0, 0.0, 0.0) if h == 0 else (0.0, ca, sa)
            pe = px * ex + py * ey + pz * ez
            A[2 * k + h, 0] = -ex - (ex * pr - rx * pe) * inv
            A[2 * k + h, 1] = -ey - (ey * pr - ry * pe) * inv
            A[2 * k + h, 2] = -ez - (ez * pr - rz * pe) * inv


@kernel
def torque_allocation_into(P, angles, lengths, regularization, W):
    """Least-effort hip torques for a desired trunk torque (RH91 Eq. 4 spread
    over the stance hips): writes W (2n, 3), hip torques = W @ τ_body,
    W = Aᵀ (A Aᵀ + λ I)⁻¹ with A from :func:`torque_map_into` (same inputs);
    the damping λ = ``regularization`` keeps it finite for a single stance
    leg, whose two hinges cannot reach all three torque components."""
    n = 2 * P.shape[0]
    cols = np.empty((n, 3))
    torque_map_into(P, angles, lengths, cols)
    a = e = i = regularization
    b = c = f = 0.0
    for k in range(n):  # A Aᵀ + λ I, symmetric: [[a b c] [b e f] [c f i]]
        x, y, z = cols[k, 0], cols[k, 1], cols[k, 2]
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
    for k in range(n):
        x, y, z = cols[k, 0], cols[k, 1], cols[k, 2]
        W[k, 0] = x * m0 + y * m1 + z * m2
        W[k, 1] = x * m1 + y * m4 + z * m5
        W[k, 2] = x * m2 + y * m5 + z * m8


def _inputs(hips, angles, lengths) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (np.asarray(hips, float).reshape(-1, 3), np.asarray(angles, float).reshape(-1, 2),
            np.asarray(lengths, float).reshape(-1))


def torque_map(hips, angles, lengths) -> list[tuple[float, float, float]]:
    """:func:`torque_map_into` on sequences: hips (n, 3) [m], angles (n, 2)
    [rad], lengths (n,) [m]; returns the 2n columns of A (3, 2n) as tuples."""
    P, ang, ell = _inputs(hips, angles, lengths)
    A = np.empty((2 * len(P), 3))
    torque_map_into(P, ang, ell, A)
    return cast(list[tuple[float, float, float]], [tuple(r) for r in A.tolist()])


def torque_allocation(hips, angles, lengths, regularization: float = 1e-3) -> list[tuple[float, float, float]]:
    """:func:`torque_allocation_into` on sequences (shapes as
    :func:`torque_map`); returns the 2n rows of W (2n, 3) as tuples."""
    P, ang, ell = _inputs(hips, angles, lengths)
    W = np.empty((2 * len(P), 3))
    torque_allocation_into(P, ang, ell, float(regularization), W)
    return cast(list[tuple[float, float, float]], [tuple(r) for r in W.tolist()])
