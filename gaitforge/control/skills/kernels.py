"""The per-tick limb pose as a compiled kernel (``gaitforge.control.jit``).

``pose.PoseSolver.limb`` in Python, through MuJoCo's quaternion routines,
is the readable reference; this kernel computes the same joint references
in one compiled call per limb (``tests/test_skills_framework.py`` checks the
two agree). Quaternions are (w, x, y, z).

A limb's constants are packed once (``pack``): ``geom`` (18,) = hip (3),
thigh (3), shank (3), knee axis (3), distal joint → contact site (3), and
the knee law's (base, ρ, ψ) (``limbs._knee_constants``); ``axes`` (n, 3)
the flexion axis of each link below the root; ``balls`` (n,) whether that
link's joint is a ball; ``qadr`` (n + 1,) qpos addresses, root ball first.
"""
from __future__ import annotations

import math

import numpy as np

from gaitforge.control.jit import kernel


@kernel
def qmul(a, b):
    return np.array([a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                     a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                     a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                     a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]])


@kernel
def qconj(a):
    return np.array([a[0], -a[1], -a[2], -a[3]])


@kernel
def qrot(q, v):
    """v (3,) rotated by unit quaternion q."""
    w, x, y, z = q[0], q[1], q[2], q[3]
    tx = 2.0 * (y * v[2] - z * v[1])
    ty = 2.0 * (z * v[0] - x * v[2])
    tz = 2.0 * (x * v[1] - y * v[0])
    return np.array([v[0] + w * tx + y * tz - z * ty, v[1] + w * ty + z * tx - x * tz,
                     v[2] + w * tz + x * ty - y * tx])


@kernel
def axis_angle(axis, angle):
    s = math.sin(0.5 * angle)
    return np.array([math.cos(0.5 * angle), axis[0] * s, axis[1] * s, axis[2] * s])


@kernel
def rotvec(q):
    """Rotation vector [rad] (3,) of q, angle in [0, π]."""
    w, x, y, z = q[0], q[1], q[2], q[3]
    if w < 0.0:
        w, x, y, z = -w, -x, -y, -z
    s = math.sqrt(x * x + y * y + z * z)
    if s < 1e-15:
        return np.array([2.0 * x, 2.0 * y, 2.0 * z])
    k = 2.0 * math.atan2(s, w) / s
    return np.array([k * x, k * y, k * z])


@kernel
def between(u, v):
    """The smallest rotation taking direction u onto direction v."""
    nu = math.sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2])
    nv = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    a = u / nu
    b = v / nv
    c = a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    ax = np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])
    s = math.sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2])
    if s < 1e-12:
        if c > 0.0:
            return np.array([1.0, 0.0, 0.0, 0.0])
        p = np.array([0.0, a[2], -a[1]]) if abs(a[0]) < 0.9 else np.array([-a[2], 0.0, a[0]])
        return axis_angle(p / math.sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]), math.pi)
    return axis_angle(ax / s, math.atan2(s, c))


@kernel
def solve_limb(spring, geom, axes, balls, qadr, foot, frame_pos, frame_q, level, previous):
    """Write the limb's joint references into ``spring`` (qpos_spring) for
    its contact site at ``foot`` [m, world], its leg frame at ``frame_pos`` /
    ``frame_q``, distal links at world orientation ``level``; returns the
    knee angle [rad], of its two solutions the one nearest ``previous``."""
    hip, thigh, shank, knee_axis, to_site = geom[0:3], geom[3:6], geom[6:9], geom[9:12], geom[12:15]
    base, rho, psi = geom[15], geom[16], geom[17]
    end = foot - qrot(level, to_site)
    v = qrot(qconj(frame_q), end - frame_pos) - hip
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
    ball = between(thigh + qrot(bend, shank), v)
    a = qadr[0]
    spring[a:a + 4] = ball
    parent = qmul(qmul(frame_q, ball), bend)
    if balls[0]:
        spring[qadr[1]:qadr[1] + 4] = bend
    else:
        spring[qadr[1]] = knee
    for k in range(1, axes.shape[0]):
        err = rotvec(qmul(qconj(parent), level))
        angle = err[0] * axes[k, 0] + err[1] * axes[k, 1] + err[2] * axes[k, 2]
        bend = axis_angle(axes[k], angle)
        if balls[k]:
            spring[qadr[k + 1]:qadr[k + 1] + 4] = bend
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
