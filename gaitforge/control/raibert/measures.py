"""The quantities of RH91 Table 2, measured from any recorded run.

Definitions (the paper does not spell them out; these are ours):
- pitch / roll magnitude: peak-to-peak trunk angle within each stride, the
  mean over strides [deg];
- stride: from one touchdown of the reference foot (the first foot) to its
  next; stride length is the root's horizontal travel over it [m]. For a
  biped, as in the paper's biped column (stride = stance + flight), a stride
  is one step: from a touchdown of either foot to the next;
- flight: intervals with no foot on the ground; for the bound, a flight that
  follows a front-leg liftoff is *gathered* (legs swing under the body), one
  that follows a rear-leg liftoff is *extended*;
- stance: contact intervals of each foot, averaged per front / rear group;
  a foot's contact gaps of up to ``MAX_CHATTER`` inside a stance are
  chatter of the soft contact, not liftoffs, and are filled first (they
  would split strides and stances and count as flight);
- change of leg length during support: compression of a telescoping leg
  (slide joint on the foot's bone) over each stance, max − min [m];
- speed: the stride chords' total length over their total time [m/s];
- peak vertical acceleration: the peak total vertical ground force over
  body weight in each stride (the specific force an accelerometer on the body
  would read, in g), mean over strides;
- tail wag: peak-to-peak angle of the tail's base joint relative to the trunk;
- required friction: |tangential| / normal ground force, mid-stance (95th
  percentile, the first and last 10 ms of each stance left out) and overall
  maximum — the coefficient that would have prevented any slip.
Only whole strides after ``settle`` seconds are used.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from gaitforge.constants import GRAVITY as G
from gaitforge.control.raibert.common import attitude
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.sim.runner import Rollout



@dataclass(frozen=True)
class RunMeasures:
    """Table 2 quantities of one run (None where they do not apply)."""

    desired_speed: float | None
    speed: float
    speed_error: float | None
    strides: int
    stride_length: float
    stride_duration: float
    pitch_deg: float
    roll_deg: float | None
    flight_duration: float
    gathered_flight: float | None
    extended_flight: float | None
    stance_duration: float
    stance_front: float | None
    stance_rear: float | None
    leg_length_change: float | None
    peak_vertical_accel_g: float
    tail_wag_deg: float | None
    friction_mid_stance: float
    friction_max: float

    def as_dict(self) -> dict:
        return asdict(self)


MAX_CHATTER = 0.02  # s: longest contact gap read as chatter (every foot's real flight lasts > 0.1 s)


def fill_chatter(contact: np.ndarray, fps: float, max_gap: float = MAX_CHATTER) -> np.ndarray:
    """Contact flags (T, F) with each foot's gaps of at most ``max_gap`` [s]
    between two contacts filled in (a copy)."""
    out = np.array(contact, bool)
    longest = int(np.floor(max_gap * fps + 1e-9))
    for i in range(out.shape[1]):
        for a, b in intervals(~out[:, i]):
            if 0 < a and b < len(out) and b - a <= longest:
                out[a:b, i] = True
    return out


def intervals(flags: np.ndarray) -> list[tuple[int, int]]:
    """Runs of True in a (T,) bool array as [start, stop) index pairs."""
    f = np.concatenate([[False], np.asarray(flags, bool), [False]])
    edges = np.flatnonzero(np.diff(f.astype(np.int8)))
    return list(zip(edges[::2], edges[1::2]))


def _root_angles(character: Character, qpos: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    root = next(iter(character.joints.values()))
    if root.kind == "free":
        q = qpos[:, root.qpos.start + 3:root.qpos.start + 7]
        att = [attitude(qi, np.zeros(3)) for qi in q]
        return np.array([a.pitch for a in att]), np.array([a.roll for a in att])
    if root.kind == "planar":
        return qpos[:, root.qpos.start + 2], None
    raise GaitforgeError(f"{character.name}: measures need a free or planar root, got {root.kind}")


def _per_stride(values: np.ndarray, bounds: list[tuple[int, int]]) -> float:
    return float(np.mean([np.ptp(values[a:b + 1]) for a, b in bounds]))


def measure_run(character: Character, rollout: Rollout, desired_speed: float | None = None,
                settle: float = 5.0) -> RunMeasures:
    """Measure a run (see the module docstring for the definitions)."""
    t = rollout.times
    q = rollout.clip.qpos
    contact = fill_chatter(rollout.contact, rollout.clip.fps)
    if contact.shape[1] == 0:
        raise GaitforgeError(f"{character.name}: no feet to measure (contact points named *_foot)")
    biped = set(rollout.feet) == {"left_foot", "right_foot"}
    ref_feet = range(contact.shape[1]) if biped else [0]
    downs = sorted(a for i in ref_feet for a, _ in intervals(contact[:, i]) if t[a] >= settle)
    if len(downs) < 2:
        raise GaitforgeError(f"{character.name}: fewer than two strides after {settle:g} s to measure")
    strides = list(zip(downs[:-1], downs[1:]))
    first, last = downs[0], downs[-1]
    root = next(iter(character.joints.values()))
    xy = q[:, root.qpos.start:root.qpos.start + (2 if root.kind == "free" else 1)]
    duration = t[last] - t[first]
    lengths = [float(np.linalg.norm(xy[b] - xy[a])) for a, b in strides]
    # Speed along the way travelled (stride chords), so turning paths count fully.
    speed = float(sum(lengths) / duration)
    pitch, roll = _root_angles(character, q)

    window = slice(first, last)
    c_win = contact[window]
    flights = intervals(np.asarray(~c_win.any(axis=1)))
    n_strides = len(strides)
    flight = sum(b - a for a, b in flights) / max(n_strides, 1) / rollout.clip.fps

    front = [i for i, f in enumerate(rollout.feet) if f.startswith("front")]
    rear = [i for i, f in enumerate(rollout.feet) if f.startswith("rear")]
    gathered = extended = None
    if front and rear:
        g_total = e_total = 0
        for a, _ in flights:
            prev = c_win[max(a - 1, 0)]
            if prev[front].any() and not prev[rear].any():
                g_total += _len(flights, a)
            elif prev[rear].any() and not prev[front].any():
                e_total += _len(flights, a)
        gathered = float(g_total / n_strides / rollout.clip.fps)
        extended = float(e_total / n_strides / rollout.clip.fps)

    def stance_of(feet: list[int]) -> float | None:
        spans = [b - a for i in feet for a, b in intervals(c_win[:, i]) if a > 0 and b < len(c_win)]
        return float(np.mean(spans)) / rollout.clip.fps if spans else None

    leg_change = _leg_compression(character, rollout, contact, window)
    weight = character.mass * G
    fz = rollout.grf[:, :, 2].sum(axis=1)
    peak_g = float(np.mean([fz[a:b].max() for a, b in strides]) / weight)
    tail = _tail_wag(character, q, strides)
    mu_mid, mu_max = _friction(rollout, window, weight)
    return RunMeasures(
        desired_speed, speed, None if desired_speed is None else speed - desired_speed, n_strides,
        float(np.mean(lengths)), float(duration / n_strides),
        float(np.degrees(_per_stride(pitch, strides))),
        None if roll is None else float(np.degrees(_per_stride(roll, strides))),
        float(flight), gathered, extended, stance_of(list(range(contact.shape[1]))) or 0.0,
        stance_of(front), stance_of(rear), leg_change, peak_g, tail, mu_mid, mu_max)


def _len(spans: list[tuple[int, int]], start: int) -> int:
    return next(b - a for a, b in spans if a == start)


def _leg_compression(character: Character, rollout: Rollout, contact: np.ndarray, window: slice) -> float | None:
    slides = {j.body: j for j in character.joints.values() if j.kind == "slide"}
    m = character.model
    changes = []
    for i, foot in enumerate(rollout.feet):
        body = m.body(int(m.site_bodyid[character.contacts[foot]])).name
        joint = slides.get(body)
        if joint is None:
            continue
        x = rollout.clip.qpos[window, joint.qpos.start]
        for a, b in intervals(contact[window, i]):
            if b - a >= 2:
                changes.append(float(np.ptp(x[a:b])))
    return float(np.mean(changes)) if changes else None


def _tail_wag(character: Character, q: np.ndarray, strides) -> float | None:
    tails = [j for j in character.joints.values()
             if character.labels[j.body].role == "tail" and j.kind == "hinge"]
    if not tails:
        return None
    return float(np.degrees(_per_stride(q[:, tails[0].qpos.start], strides)))


def _friction(rollout: Rollout, window: slice, weight: float) -> tuple[float, float]:
    grf = rollout.grf[window]
    normal = grf[:, :, 2]
    tangential = np.linalg.norm(grf[:, :, :2], axis=-1)
    loaded = normal > 0.05 * weight / max(grf.shape[1], 1)
    ratio = np.where(loaded, tangential / np.maximum(normal, 1e-9), np.nan)
    edge = max(1, int(round(0.010 * rollout.clip.fps)))
    mid = np.zeros_like(loaded)
    for i in range(loaded.shape[1]):
        for a, b in intervals(loaded[:, i]):
            mid[a + edge:max(a + edge, b - edge), i] = True
    mid_vals = ratio[mid & loaded]
    all_vals = ratio[loaded]
    return (float(np.nanpercentile(mid_vals, 95)) if mid_vals.size else float("nan"),
            float(np.nanmax(all_vals)) if all_vals.size else float("nan"))
