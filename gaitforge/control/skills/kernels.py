"""The per-tick limb pose as a compiled kernel (``gaitforge.jit``).

``pose.PoseSolver.limb`` in Python, through MuJoCo's quaternion routines,
is the readable reference; this kernel computes the same joint references
in one compiled call per limb (``tests/test_skills_framework.py`` checks the
two agree). Quaternions are (w, x, y, z); the helpers take arrays or tuples
and return tuples (no allocation in compiled code).

A limb's constants are packed once (``pack``): ``geom`` (18,) = hip (3),
thigh (3), shank (3), knee axis (3), distal joint → contact site (3), and
the knee law's (base, ρ, ψ) (``limbs._knee_constants``); ``axes`` (n, 3)
the flexion axis of each link below the root; ``balls`` (n,) whether that
link's joint is a ball; ``qadr`` (n + 1,) qpos addresses, root ball first.
"""
from __future__ import annotations

import math

import numpy as np

from gaitforge.jit import kernel


@kernel
def qmul(a, b):
    """a ⊗ b."""
    return (a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
            a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
            a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
            a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0])


@kernel
def qconj(a):
    return (a[0], -a[1], -a[2], -a[3])


@kernel
def qrot(q, v):
    """v (3,) rotated by unit quaternion q."""
    w, x, y, z = q[0], q[1], q[2], q[3]
    tx = 2.0 * (y * v[2] - z * v[1])
    ty = 2.0 * (z * v[0] - x * v[2])
    tz = 2.0 * (x * v[1] - y * v[0])
    return (v[0] + w * tx + y * tz - z * ty, v[1] + w * ty + z * tx - x * tz, v[2] + w * tz + x * ty - y * tx)


@kernel
def axis_angle(axis, angle):
    s = math.sin(0.5 * angle)
    return (math.cos(0.5 * angle), axis[0] * s, axis[1] * s, axis[2] * s)


@kernel
def rotvec(q):
    """Rotation vector [rad] (3,) of q, angle in [0, π]."""
    w, x, y, z = q[0], q[1], q[2], q[3]
    if w < 0.0:
        w, x, y, z = -w, -x, -y, -z
    s = math.sqrt(x * x + y * y + z * z)
    if s < 1e-15:
        return (2.0 * x, 2.0 * y, 2.0 * z)
    k = 2.0 * math.atan2(s, w) / s
    return (k * x, k * y, k * z)


@kernel
def between(u, v):
    """The smallest rotation taking direction u onto direction v."""
    nu = math.sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2])
    nv = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    a0, a1, a2 = u[0] / nu, u[1] / nu, u[2] / nu
    b0, b1, b2 = v[0] / nv, v[1] / nv, v[2] / nv
    c = a0 * b0 + a1 * b1 + a2 * b2
    x, y, z = a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0
    s = math.sqrt(x * x + y * y + z * z)
    if s < 1e-12:
        if c > 0.0:
            return (1.0, 0.0, 0.0, 0.0)
        p = (0.0, a2, -a1) if abs(a0) < 0.9 else (-a2, 0.0, a0)
        n = math.sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2])
        return axis_angle((p[0] / n, p[1] / n, p[2] / n), math.pi)
    return axis_angle((x / s, y / s, z / s), math.atan2(s, c))


@kernel
def solve_limb(spring, geom, axes, balls, qadr, foot, frame_pos, frame_q, level, previous):
    """Write the limb's joint references into ``spring`` (qpos_spring) for
    its contact site at ``foot`` [m, world], its leg frame at ``frame_pos`` /
    ``frame_q``, distal links at world orientation ``level``; returns the
    knee angle [rad], of its two solutions the one nearest ``previous``."""
    hip, thigh, shank, knee_axis, to_site = geom[0:3], geom[3:6], geom[6:9], geom[9:12], geom[12:15]
    base, rho, psi = geom[15], geom[16], geom[17]
    e = qrot(level, to_site)
    w = qrot(qconj(frame_q), (foot[0] - e[0] - frame_pos[0], foot[1] - e[1] - frame_pos[1],
                              foot[2] - e[2] - frame_pos[2]))
    v = (w[0] - hip[0], w[1] - hip[1], w[2] - hip[2])
    length = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    c = (length * length - base) / (2.0 * rho)
    c = min(1.0, max(-1.0, c))
    knee, gap = 0.0, math.inf
    for s in (1.0, -1.0):
        q = psi + s * math.acos(c)
        q = (q - previous + math.pi) % (2.0 * math.pi) - math.pi + previous
        if abs(q - previous) < gap:
            knee, gap = q, abs(q - previous)
    bend = axis_angle(knee_axis, knee)
    r = qrot(bend, shank)
    ball = between((thigh[0] + r[0], thigh[1] + r[1], thigh[2] + r[2]), v)
    a = qadr[0]
    for k in range(4):
        spring[a + k] = ball[k]
    parent = qmul(qmul(frame_q, ball), bend)
    if balls[0]:
        for k in range(4):
            spring[qadr[1] + k] = bend[k]
    else:
        spring[qadr[1]] = knee
    for k in range(1, axes.shape[0]):
        err = rotvec(qmul(qconj(parent), level))
        angle = err[0] * axes[k, 0] + err[1] * axes[k, 1] + err[2] * axes[k, 2]
        bend = axis_angle(axes[k], angle)
        if balls[k]:
            for j in range(4):
                spring[qadr[k + 1] + j] = bend[j]
        else:
            spring[qadr[k + 1]] = angle
        parent = qmul(parent, bend)
    return knee


def pack(limb) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(geom, axes, balls, qadr) of a ``limbs.Limb`` for :func:`solve_limb`."""
    from gaitforge.control.skills.limbs import _knee_constants

    base, rho, psi = _knee_constants(tuple(limb.thigh), tuple(limb.shank), tuple(limb.knee_axis))
    geom = np.concatenate([limb.hip, limb.thigh, limb.shank, limb.knee_axis, limb.end_to_site, [base, rho, psi]])
    return (geom.astype(float), np.array(limb.axes, float).reshape(-1, 3), np.array(limb.balls, np.bool_),
            np.array(limb.qpos, np.int64))
