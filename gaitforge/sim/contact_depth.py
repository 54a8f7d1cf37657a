"""How deep a creature's contacts go into the ground, read at every physics
step, against the contact rule of docs/physics.md: each geom that touches
the ground may sink into it at most half its own radius (``geom_radius``),
and never more than 20 mm.

A control tick spans several physics steps and a landing peaks between
ticks, so ``ContactProbe`` reads the contacts inside every ``mj_step``
(through MuJoCo's control callback, which runs after collision detection).
"""
from __future__ import annotations

import math

import mujoco
import numpy as np

CAP = 0.020  # m: the deepest any contact may go, whatever the geom's size


def geom_radius(model: mujoco.MjModel, g: int) -> float:
    """The radius [m] of geom ``g`` for the penetration rule: a sphere's,
    capsule's or cylinder's radius, else its least half-extent (a box's half
    thickness, an ellipsoid's shortest semi-axis)."""
    size = model.geom_size[g]
    kind = int(model.geom_type[g])
    if kind in (int(mujoco.mjtGeom.mjGEOM_SPHERE), int(mujoco.mjtGeom.mjGEOM_CAPSULE),
                int(mujoco.mjtGeom.mjGEOM_CYLINDER)):
        return float(size[0])
    return float(np.min(size[size > 0])) if np.any(size > 0) else math.inf


class ContactProbe:
    """Records, per geom, the deepest penetration [m] of its contacts with
    the ground (geoms of the world body).

    Use it as a runner's ``perturb`` callback (it pushes nothing): from its
    first call it also hooks MuJoCo's control callback so that every physics
    step is read, until ``close`` (or the ``with`` block's end) removes the
    hook. MuJoCo has one such callback per process, so one probe at a time.
    ``read(data)`` may also be called by hand after ``mj_step``.
    """

    def __init__(self, model: mujoco.MjModel):
        self.model = model
        self.on_ground = np.array([model.geom_bodyid[g] == 0 for g in range(model.ngeom)], bool)
        radius = np.array([geom_radius(model, g) for g in range(model.ngeom)], float)
        self.caps = np.minimum(CAP, 0.5 * radius)  # (ngeom,) [m]: the rule's bound, half the radius, at most CAP
        self.depth = np.full(model.ngeom, -math.inf)  # per geom; -inf: never touched the ground
        self._hooked = False

    def __call__(self, t: float, data: mujoco.MjData) -> None:
        if not self._hooked:
            self._hooked = True
            mujoco.set_mjcb_control(lambda m, d: self.read(d))
        self.read(data)

    def read(self, data: mujoco.MjData) -> None:
        n = data.ncon
        if n == 0:
            return
        geom = data.contact.geom[:n]
        dist = data.contact.dist[:n]
        for side, other in ((0, 1), (1, 0)):
            hit = self.on_ground[geom[:, side]] & ~self.on_ground[geom[:, other]]
            if hit.any():
                np.maximum.at(self.depth, geom[hit, other], -dist[hit])

    def close(self) -> None:
        if self._hooked:
            mujoco.set_mjcb_control(None)
            self._hooked = False

    def __enter__(self) -> "ContactProbe":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def touched(self) -> np.ndarray:
        """Indices of the geoms that touched the ground."""
        return np.flatnonzero(self.depth > -math.inf)

    @property
    def deepest(self) -> float:
        """The deepest penetration [m] of any contact with the ground (0 if none)."""
        return max(0.0, float(self.depth.max())) if self.touched.size else 0.0

    @property
    def worst(self) -> int:
        """Index of the geom that went deepest for its cap (-1: none touched)."""
        if not self.touched.size:
            return -1
        return int(self.touched[np.argmax(self.depth[self.touched] / self.caps[self.touched])])

    @property
    def worst_ratio(self) -> float:
        """The worst geom's deepest penetration over its cap (> 1: past the rule; 0: none touched)."""
        g = self.worst
        return max(0.0, float(self.depth[g] / self.caps[g])) if g >= 0 else 0.0

    def geom_name(self, g: int) -> str:
        """Geom ``g``'s name (or "geom g")."""
        return mujoco.mj_id2name(self.model, mujoco.mjtObj.mjOBJ_GEOM, g) or f"geom {g}"
