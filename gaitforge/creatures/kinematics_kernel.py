"""The compiled loop behind :func:`gaitforge.creatures.kinematics.body_frames`
(numba, :mod:`gaitforge.jit`): a module of its own, imported only when
frames are first needed, so that importing the package does not import
numba. Its kernels sit at module level because numba's disk cache cannot
find a kernel defined inside a function again (a closure's kernel was
compiled afresh, about 1 s, in every process).

Quaternions are (w, x, y, z).
"""
from __future__ import annotations

import math

from gaitforge.jit import kernel

__all__ = ["frames"]


@kernel
def rotate(w, x, y, z, v0, v1, v2):
    """The vector (v0, v1, v2) turned by the unit quaternion (w, x, y, z)."""
    # v + 2w (u × v) + 2 u × (u × v), u = (x, y, z): the unit quaternion's rotation of v
    c0 = y * v2 - z * v1
    c1 = z * v0 - x * v2
    c2 = x * v1 - y * v0
    return (v0 + 2.0 * (w * c0 + y * c2 - z * c1),
            v1 + 2.0 * (w * c1 + z * c0 - x * c2),
            v2 + 2.0 * (w * c2 + x * c1 - y * c0))


@kernel
def multiply(aw, ax, ay, az, bw, bx, by, bz):
    """The quaternion product a b."""
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


@kernel
def frames(qpos, nbody, parent, jntadr, jntnum, jtype, qadr, jpos, jaxis, qpos0, bpos, bquat, xpos, xquat, xmat):
    """Fills xpos (T, nbody, 3), xquat (T, nbody, 4) and xmat (T, nbody, 9)
    with the world frames of bodies 0 … nbody − 1 at the poses qpos (T, nq),
    from the model arrays of ``kinematics._tree``."""
    for t in range(qpos.shape[0]):
        xpos[t, 0, 0] = xpos[t, 0, 1] = xpos[t, 0, 2] = 0.0
        xquat[t, 0, 0] = 1.0
        xquat[t, 0, 1] = xquat[t, 0, 2] = xquat[t, 0, 3] = 0.0
        for k in range(9):
            xmat[t, 0, k] = 1.0 if k % 4 == 0 else 0.0
        for b in range(1, nbody):
            j0, nj = jntadr[b], jntnum[b]
            if nj == 1 and jtype[j0] == 0:   # free joint: the frame is in qpos
                a = qadr[j0]
                px, py, pz = qpos[t, a], qpos[t, a + 1], qpos[t, a + 2]
                w, x, y, z = qpos[t, a + 3], qpos[t, a + 4], qpos[t, a + 5], qpos[t, a + 6]
            else:
                p = parent[b]
                pw, pqx, pqy, pqz = xquat[t, p, 0], xquat[t, p, 1], xquat[t, p, 2], xquat[t, p, 3]
                ox, oy, oz = rotate(pw, pqx, pqy, pqz, bpos[b, 0], bpos[b, 1], bpos[b, 2])
                px, py, pz = xpos[t, p, 0] + ox, xpos[t, p, 1] + oy, xpos[t, p, 2] + oz
                w, x, y, z = multiply(pw, pqx, pqy, pqz, bquat[b, 0], bquat[b, 1], bquat[b, 2], bquat[b, 3])
                for j in range(j0, j0 + nj):
                    a = qadr[j]
                    kind = jtype[j]
                    ax, ay, az = rotate(w, x, y, z, jpos[j, 0], jpos[j, 1], jpos[j, 2])
                    ax, ay, az = ax + px, ay + py, az + pz            # the joint's anchor in the world
                    if kind == 2:                                      # slide
                        dx, dy, dz = rotate(w, x, y, z, jaxis[j, 0], jaxis[j, 1], jaxis[j, 2])
                        s = qpos[t, a] - qpos0[a]
                        px, py, pz = px + s * dx, py + s * dy, pz + s * dz
                        continue
                    if kind == 3:                                      # hinge
                        half = 0.5 * (qpos[t, a] - qpos0[a])
                        sn = math.sin(half)
                        lw, lx, ly, lz = math.cos(half), sn * jaxis[j, 0], sn * jaxis[j, 1], sn * jaxis[j, 2]
                    else:                                              # ball
                        lw, lx, ly, lz = qpos[t, a], qpos[t, a + 1], qpos[t, a + 2], qpos[t, a + 3]
                        n = math.sqrt(lw * lw + lx * lx + ly * ly + lz * lz)
                        lw, lx, ly, lz = lw / n, lx / n, ly / n, lz / n
                    w, x, y, z = multiply(w, x, y, z, lw, lx, ly, lz)
                    vx, vy, vz = rotate(w, x, y, z, jpos[j, 0], jpos[j, 1], jpos[j, 2])
                    px, py, pz = ax - vx, ay - vy, az - vz              # turned about the anchor
            n = math.sqrt(w * w + x * x + y * y + z * z)
            w, x, y, z = w / n, x / n, y / n, z / n
            xquat[t, b, 0], xquat[t, b, 1], xquat[t, b, 2], xquat[t, b, 3] = w, x, y, z
            xpos[t, b, 0], xpos[t, b, 1], xpos[t, b, 2] = px, py, pz
            xmat[t, b, 0] = 1.0 - 2.0 * (y * y + z * z)
            xmat[t, b, 1] = 2.0 * (x * y - w * z)
            xmat[t, b, 2] = 2.0 * (x * z + w * y)
            xmat[t, b, 3] = 2.0 * (x * y + w * z)
            xmat[t, b, 4] = 1.0 - 2.0 * (x * x + z * z)
            xmat[t, b, 5] = 2.0 * (y * z - w * x)
            xmat[t, b, 6] = 2.0 * (x * z - w * y)
            xmat[t, b, 7] = 2.0 * (y * z + w * x)
            xmat[t, b, 8] = 1.0 - 2.0 * (x * x + y * y)
