"""Numbers the gait heuristics work with (:mod:`gaitforge.motion.heuristics`):
per-mode foot and knee features from :func:`gaitforge.modal.describe.describe_modes`
(plus the level of each sole and the lift of the hands, which it does not
measure), a foot's target profile as harmonics, and joint rotations.

All displacements are linear in the modal coordinate, at the basis' rest
pose: [m] or [rad] per unit coordinate (mass-normalized units).
"""
from __future__ import annotations

import math
import weakref

import mujoco
import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.modal.describe import ANTISYMMETRIC, SYMMETRIC
from gaitforge.motion.footfall import feet_of, foot_positions
from gaitforge.motion.gaits import KINDS


def foot_key(kind: str, limb, side: str):
    """How feet are told apart on a creature ``kind``
    (:data:`~gaitforge.motion.gaits.KINDS`): by side for a biped, by (limb,
    side) for a quadruped."""
    return KINDS[kind].key(limb, side)


def hip_height(character) -> float:
    """h [m]: mean rest height, above the lowest point, of the hip and
    shoulder bodies of limbs that have feet (a biped's arms do not count)."""
    limbs = {(f.limb, f.side) for f in feet_of(character)}
    bodies = [b for b, lab in character.labels.items()
              if lab.role in ("hip", "shoulder") and (lab.limb, lab.side) in limbs] or [character.bodies[0]]
    d = character.make_data()
    return float(np.mean([d.xpos[character.body_id(b), 2] for b in bodies]) - character.extent()[0])


def knees(character, kind: str) -> dict:
    """Foot key → (knee body, sign turning knee_bend into flexion). Flexion
    deepens the bend the leg has at rest (parent joint → knee → foot, x-z
    plane); a leg straight within 3° flexes like a human knee, swinging the
    foot backwards (positive about +y)."""
    feet = {(f.limb, f.side): f for f in feet_of(character)}
    d, m, out = character.make_data(), character.model, {}
    for body in character.bodies_labeled(role="knee") + character.bodies_labeled(role="elbow"):
        lab = character.labels[body]
        key = foot_key(kind, lab.limb, lab.side)
        if (lab.limb, lab.side) not in feet or key in out:  # an arm's elbow is no knee
            continue
        b = character.body_id(body)
        a = d.xpos[b] - d.xpos[m.body_parentid[b]]
        c = foot_positions(character, character.rest_qpos, [feet[(lab.limb, lab.side)]])[0, 0] - d.xpos[b]
        cross = a[2] * c[0] - a[0] * c[2]
        bent = abs(cross) > math.sin(math.radians(3)) * math.hypot(a[0], a[2]) * math.hypot(c[0], c[2])
        out[key] = (body, math.copysign(1.0, cross) if bent else 1.0)
    return out


def sole_levels(character, basis, count: int) -> np.ndarray:
    """Vertical displacement (count, points) [m per unit coordinate] of every
    contact point relative to the mean of its foot's points (same body side
    and limb): zero while a sole (heel, ball, toe) stays level. Feet with a
    single point give nothing."""
    m, d = character.model, character.make_data(basis.rest_qpos)
    groups: dict = {}
    for name, site in character.contacts.items():
        lab = character.labels[m.body(int(m.site_bodyid[site])).name]
        groups.setdefault((lab.side, lab.limb), []).append(site)
    jac, rows = np.zeros((3, character.nv)), []
    for sites in groups.values():
        if len(sites) < 2:
            continue
        z = []
        for site in sites:
            mujoco.mj_jacSite(m, d, jac, None, site)
            z.append(jac[2] @ basis.shapes[:, :count])
        rows += list(np.array(z) - np.mean(z, axis=0))
    return np.array(rows).T.reshape(count, -1)


def features(character, basis, descs, kind: str, gait: str, relative: bool = False) -> dict:
    """Per-mode features (k, feet) in ``keys`` order: "x" forward, "y" lateral,
    "z" vertical [m per unit coordinate], "knee" flexion [rad per unit];
    "sole" (k, contact points): see :func:`sole_levels`. ``relative``: "z"
    relative to the root body's origin (how far the legs shorten), for gaits
    whose feet all move together: grounding cancels their common world motion."""
    keys = sorted({foot_key(kind, f.limb, f.side) for f in descs[0].feet}, key=str)
    flex = knees(character, kind)
    if len(flex) < len(keys):
        missing = ", ".join(" ".join(k) if isinstance(k, tuple) else k for k in keys if k not in flex)
        raise GaitforgeError(
            f"{character.name} has no knee on its {missing} leg: suggest({gait!r}) needs a body labelled "
            "role: knee (or elbow) between hip and foot; add it in the creature file or a labels override")
    out = {name: np.zeros((len(descs), len(keys))) for name in ("x", "y", "z", "knee")}
    for i, d in enumerate(descs):
        feet = {foot_key(kind, f.limb, f.side): f for f in d.feet}
        for j, key in enumerate(keys):
            out["x"][i, j], out["y"][i, j], out["z"][i, j] = feet[key].forward, feet[key].lateral, feet[key].vertical
            out["knee"][i, j] = flex[key][1] * d.knee_bend[flex[key][0]]
    if relative:
        root = character.body_id(character.bodies[0])
        jac = np.zeros((3, character.nv))
        mujoco.mj_jacBody(character.model, character.make_data(basis.rest_qpos), jac, None, root)
        out["z"] -= (jac[2] @ basis.shapes[:, :len(descs)])[:, None]
    return {**out, "sole": sole_levels(character, basis, len(descs)), "kind": kind, "keys": keys}


def profiles(beta: float, harmonics: int) -> dict[str, np.ndarray]:
    """Complex harmonic amplitudes G_k (k = 1..harmonics) of one foot's unit
    profile, landing at θ = π/2 (so the fundamental of the swing is real):
    "x" from +1 to −1 at a steady speed over the stance (fraction β), back
    along a half cosine in the swing; "z" and "knee" a sin² bump in the swing."""
    theta = np.linspace(0.0, 2 * np.pi, 512, endpoint=False)
    u = (theta - 0.5 * np.pi) % (2 * np.pi)
    s = np.clip((u - 2 * np.pi * beta) / (2 * np.pi * (1 - beta)), 0.0, 1.0)
    stance = u < 2 * np.pi * beta
    x = np.where(stance, 1.0 - u / (np.pi * beta), -np.cos(np.pi * s))
    bump = np.where(stance, 0.0, np.sin(np.pi * s) ** 2)
    k = np.arange(1, harmonics + 1)[:, None]
    G = lambda g: 2j * (g * np.exp(-1j * k * theta)).mean(axis=1)  # noqa: E731
    return {"x": G(x), "y": G(0 * x), "z": G(bump), "knee": G(bump)}


def bounce(G1: complex, share: float) -> complex:
    """The second-harmonic amplitude G2 (|G2| = share·|G1|) that deepens the
    dip of a profile with fundamental G1 (the profile being
    Im(G1 e^{iθ}) + Im(G2 e^{2iθ}), as in :func:`profiles`): lowest where
    the fundamental is lowest, highest a quarter cycle either side, so the
    foot spends less than half the cycle in the lower half of its excursion
    (36 % for share 1/4, 31 % for 1/2). Driven at twice the stride
    frequency (Kry09 §4.2), it extends the legs at every stance and retracts
    them between: the bounce of a run."""
    # Im(G1 e^{iθ}) is lowest at θ* = −π/2 − arg G1;
    # Im(G2 e^{2iθ}) is lowest there when 2θ* + arg G2 = −π/2.
    return share * abs(G1) * np.exp(1j * (2 * np.angle(G1) + 0.5 * np.pi))


def mirror_class(keys, P: np.ndarray) -> str | None:
    """Mirror class the modes for the per-foot pattern P must have:
    antisymmetric where each right foot is the opposite of its left partner,
    symmetric where it is the same (left and right then stay exact mirror
    images of each other), None otherwise (gallops)."""
    pos = {k: i for i, k in enumerate(keys)}
    pairs = [(i, pos[(k[0], "right") if isinstance(k, tuple) else "right"]) for i, k in enumerate(keys)
             if "left" in str(k)]
    for sym, sign in ((ANTISYMMETRIC, -1), (SYMMETRIC, 1)):
        if all(abs(P[right] - sign * P[left]) < 1e-9 for left, right in pairs):
            return sym
    return None


_GROUPS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _rotation_dofs(character) -> np.ndarray:
    """(G, 3) dof indices of the hinge, ball and gimbal joints, one row per
    joint, padded with -1 (a hinge: one index): computed once per character."""
    rows = _GROUPS.get(character)
    if rows is None:
        groups = [list(range(character.nv)[j.dof]) for j in character.joints.values()
                  if j.kind in ("hinge", "ball", "gimbal")]
        width = max((len(g) for g in groups), default=1)
        rows = _GROUPS[character] = np.array([g + [-1] * (width - len(g)) for g in groups], int).reshape(-1, width)
    return rows


def _joint_norms(v: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """|v[..., row]| (..., G) over each joint's dofs: the squares summed in dof
    order, as ``numpy.linalg.norm`` does (padding adds exact zeros)."""
    sq = np.concatenate([v * v, np.zeros((*v.shape[:-1], 1))], axis=-1)[..., rows]   # (..., G, width)
    total = sq[..., 0]
    for i in range(1, rows.shape[1]):
        total = total + sq[..., i]
    return np.sqrt(total)


def joint_rotations(character, shapes: np.ndarray) -> np.ndarray:
    """Peak joint rotation (k,) [rad per unit coordinate] of each shape
    column (nv, k): the largest hinge angle or ball rotation vector."""
    rows = _rotation_dofs(character)
    if not len(rows):
        return np.zeros(shapes.shape[1])
    return _joint_norms(np.asarray(shapes, float).T, rows).max(axis=1)


def peak_rotation(character, basis, terms, samples: int = 128) -> float:
    """Largest rotation [rad] of any hinge or ball joint from rest over one
    period of the slowest term (free root and slides excluded)."""
    period = 1.0 / min((t.frequency for t in terms if t.frequency > 0), default=1.0)
    t = np.linspace(0.0, period, samples, endpoint=False)[:, None]
    a = np.array([[x.amplitude, x.frequency, x.phase, x.offset] for x in terms]).T
    dq = (a[0] * np.sin(2 * np.pi * a[1] * t + a[2]) + a[3]) @ basis.shapes[:, [x.mode for x in terms]].T
    rows = _rotation_dofs(character)
    return float(_joint_norms(dq, rows).max()) if len(rows) else 0.0


def hand_lift(character, basis, count: int) -> np.ndarray:
    """Mean vertical displacement (count,) [m per unit coordinate] of the
    bodies labelled hand, for each elastic mode (zeros without hands)."""
    hands = character.bodies_labeled(role="hand")
    d, jac = character.make_data(basis.rest_qpos), np.zeros((3, character.nv))
    out = np.zeros(count)
    for h in hands:
        mujoco.mj_jacBody(character.model, d, jac, None, character.body_id(h))
        out += (jac[2] @ basis.shapes[:, :count]) / len(hands)
    return out
