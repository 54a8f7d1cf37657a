"""RH91 Fig. 6 for the kangaroo: hip, knee and ankle angles of recorded
frames, and the arrays of a few hop cycles with the vertical ground force.
"""
from __future__ import annotations

import math

import numpy as np

from gaitforge.control.raibert.kangaroo.geometry import pitch as _pitch
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError


def leg_angles(character: Character, qpos: np.ndarray) -> dict[str, np.ndarray]:
    """Hip, knee and ankle angles [rad] of frames ``qpos`` (T, nq) (RH91
    Fig. 6 data): hip = thigh pitch relative to the trunk, knee = included
    angle thigh-shin, ankle = included angle shin-foot; each (T,)."""
    d = character.make_data()
    b = {n: character.model.body(n).id for n in ("trunk", "thigh", "shin", "foot")}
    off = {n: _pitch(d.xmat[b[n]]) - _pitch(d.xmat[b[p]]) for n, p in
           (("thigh", "trunk"), ("shin", "thigh"), ("foot", "shin"))}
    q = {n: np.asarray(qpos)[:, character.joints[n].qpos.start] for n in off}
    return {"hip": off["thigh"] + q["thigh"], "knee": math.pi - (off["shin"] + q["shin"]),
            "ankle": math.pi + off["foot"] + q["foot"]}


def fig6_data(character: Character, rollout, hops: int = 3, start: float = 0.0,
              vertical_force: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Arrays for a Fig. 6-like plot from a Rollout: ``hops`` hop cycles from
    the first touchdown after ``start`` [s]: time t (T,) [s] from that
    touchdown, hip/knee/ankle (T,) [rad] (see ``leg_angles``), vertical ground
    force fz (T,) [N] (the rollout's, or ``vertical_force`` (T_all,) e.g. from
    the foot model) and stance (T,) bool."""
    stance = np.array([s.split(":")[-1] != "flight" for s in rollout.states])
    times = rollout.times
    td = np.flatnonzero(~stance[:-1] & stance[1:]) + 1
    td = td[times[td] >= start]
    if len(td) < hops + 1:
        raise GaitforgeError(f"fig6_data: the rollout has {len(td)} touchdowns after t = {start} s, "
                             f"needs {hops + 1}")
    sl = slice(td[0], td[hops] + 1)
    fz = rollout.grf[:, 0, 2] if vertical_force is None else np.asarray(vertical_force)
    out = {"t": times[sl] - times[td[0]], "fz": fz[sl], "stance": stance[sl]}
    out.update({k: v[sl] for k, v in leg_angles(character, rollout.clip.qpos).items()})
    return out
