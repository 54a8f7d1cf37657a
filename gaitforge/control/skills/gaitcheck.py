"""What a skills rollout did: its speed and the gait its footfalls show.

The footfalls are the rollout's foot contacts in MuJoCo (debounced),
analysed by the package's gait metrics (``gaitforge.motion.metrics``). A walk is further
named by its footfall sequence (Hildebrand): after a hind foot lands, a
lateral-sequence walk sets down the fore foot of the same side, a
diagonal-sequence walk the fore foot of the other side.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gaitforge.motion.footfall import footfalls_from_contacts
from gaitforge.motion.metrics import PHASE_TOL, GaitMetrics, classify_gait, gait_metrics
from gaitforge.sim.runner import Rollout


@dataclass(frozen=True)
class SkillCheck:
    """speed [m/s]: mean horizontal speed of the mass-centre proxy (root)
    over the window; gait: the metrics' class; sequence: "diagonal",
    "lateral" or "" (not a walk); beats: distinct footfall phases per cycle;
    metrics: the full gait metrics."""

    speed: float
    gait: str
    sequence: str
    beats: int
    metrics: GaitMetrics


# The gait classes whose footfall order is named: a walk's lateral or diagonal sequence.
SEQUENCED = frozenset({"walk"})


def check(character, rollout: Rollout, settle: float = 10.0, debounce: float = 0.1) -> SkillCheck:
    """Measure ``rollout`` after its first ``settle`` seconds; contacts and
    gaps shorter than ``debounce`` [s] are dropped (a planted foot that
    unloads for a moment, as weight moves to a landing foot, is not a new
    footfall; every swing and stance here lasts longer)."""
    keep = rollout.times >= settle
    times = rollout.times[keep]
    clip = type(rollout.clip)(rollout.clip.fps, rollout.clip.qpos[keep], rollout.clip.character_name)
    # The simulation's own foot contacts (a foot's body or its toes touching
    # the ground), debounced.
    ff = footfalls_from_contacts(rollout.contact[keep], rollout.feet, times=times - times[0],
                                 min_duration=debounce)
    m = gait_metrics(character, clip, ff)
    xy = rollout.clip.qpos[keep][:, :2]
    speed = float(np.linalg.norm(xy[-1] - xy[0]) / (times[-1] - times[0]))
    gait = classify_gait(m)
    beats = count_beats(list(m.phase.values()))
    sequence = ""
    if gait in SEQUENCED:
        by = {(m.limbs[n], m.sides[n]): n for n in m.feet}
        s = (m.phase[by[("front", "left")]] - m.phase[by[("rear", "left")]]) % 1.0
        sequence = "lateral" if s < 0.5 else "diagonal"
    return SkillCheck(speed, gait, sequence, beats, m)


def count_beats(phases: list[float], tol: float = PHASE_TOL) -> int:
    """Distinct footfall times in a cycle: phases [cycles] closer than
    ``tol`` (around the circle) land as one beat."""
    p = np.sort(np.asarray(phases, float) % 1.0)
    if len(p) < 2:
        return len(p)
    gaps = np.diff(np.r_[p, p[0] + 1.0])
    return max(1, int((gaps > tol).sum()))


def speed_error(measured: float, commanded: float) -> float:
    """|measured − commanded| / commanded (0 for a commanded stand)."""
    return 0.0 if commanded == 0 else abs(measured - commanded) / commanded if math.isfinite(measured) else math.inf


def roll_windows(times: np.ndarray, roll: np.ndarray, width: float = 5.0) -> list[float]:
    """Half the peak-to-peak of ``roll`` [rad] (T,) sampled at ``times`` [s]
    (T,) in each ``width`` [s] window from t = 0, in degrees: how a roll
    oscillation grows or settles, stride by stride."""
    out = []
    for a in np.arange(0.0, times[-1] + 1e-9, width):
        k = (times >= a) & (times < a + width)
        if k.sum() > 10:
            out.append(math.degrees(float(roll[k].max() - roll[k].min())) / 2)
    return out


def root_roll(rollout: Rollout) -> np.ndarray:
    """(T,) roll [rad] of the root body (the dog's chest, its front leg
    frame) about its own forward axis, from the recorded quaternions
    (w, x, y, z): atan2 of the body z axis' sideways and upward parts."""
    w, x, y, z = rollout.clip.qpos[:, 3:7].T
    return np.arctan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
