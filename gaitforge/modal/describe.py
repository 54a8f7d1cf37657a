"""What each vibration mode does, in numbers a gait heuristic can use.

Kry09 §4.3 picks modes for walking, running and jumping by what they do to
labelled parts: feet swinging forward in alternation, feet lifting, knees and
elbows bending together or in turn; twists and jumping jacks are set aside.
:func:`describe_modes` measures these features for every elastic mode of a
``ModalBasis``, all linear in the modal coordinate, at the basis's rest pose:

- mirror symmetry under the reflection y → −y through the sagittal plane:
  the mass-weighted share of the mode that the mirror leaves unchanged
  (``gaitforge.modal.mirror_matrix`` says how each DOF maps);
- the sagittal share: kinetic energy of x/z translation and y rotation;
- where it moves (kinetic energy) and where it bends (joint spring energy)
  per body region (:func:`regions`), and the share of the spring energy about
  each world axis (x: roll/twist, y: pitch, z: yaw);
- each foot's displacement [m per unit modal coordinate, world axes];
- knee and elbow bend: rotation of the body relative to its parent about the
  world y axis [rad per unit modal coordinate];
- paired feet in or out of phase: cosine of their in-plane (x, z)
  displacements, +1 together, −1 opposed;
- a short name where one fits ("bounding", "alternating legs", "bending 2").
"""
from __future__ import annotations

import math
import threading
import weakref
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Mapping, NamedTuple, cast

import mujoco
import numpy as np

from gaitforge.creatures.character import Character
from gaitforge.modal.symmetry import mirror_of

from gaitforge.modal.naming import ANTISYMMETRIC, MIXED, NO_MIRROR, SYMMETRIC, mode_name, pool_key  # noqa: F401
SYMMETRY_THRESHOLD = 0.9  # share ≥ this: symmetric; ≤ 1 − this: antisymmetric; else mixed
# Regions of centred bodies by role; other center bodies: "spine".
_CENTER_REGIONS: dict[str | None, str] = {"head": "head", "neck": "neck", "tail": "tail"}


class FootMotion(NamedTuple):
    """Displacement [m per unit modal coordinate] of one foot (the mean of its
    contact points, or its foot body's origin): forward x, lateral y, vertical z."""

    name: str
    side: str
    limb: str | None
    forward: float
    lateral: float
    vertical: float


@dataclass(frozen=True)
class ModeDescription:
    """Features of elastic mode ``index`` (column of ``ModalBasis.shapes``).

    symmetric_share ∈ [0, 1] (nan without a mirror map); sagittal_share ∈
    [0, 1]; motion_share / bend_share: region → share of kinetic / spring
    energy; axis_share: spring energy share about world x, y, z; feet; knee_bend:
    knee/elbow body → rad per unit coordinate; phases: foot pair
    ("left/right front", "front/rear left", "diagonal left front/right rear") → cosine.
    """

    index: int
    frequency: float
    name: str
    symmetry: str
    symmetric_share: float
    sagittal_share: float
    motion_share: Mapping[str, float]
    bend_share: Mapping[str, float]
    axis_share: tuple[float, float, float]
    feet: tuple[FootMotion, ...]
    knee_bend: Mapping[str, float]
    phases: Mapping[str, float]

    def __post_init__(self) -> None:
        if self.symmetry not in (SYMMETRIC, ANTISYMMETRIC, MIXED, NO_MIRROR):
            raise ValueError(f"unknown symmetry {self.symmetry!r}")
        for name in ("motion_share", "bend_share", "knee_bend", "phases"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    def top_regions(self, minimum: float = 0.05, pooled: bool = False) -> list[tuple[str, float]]:
        """(region, kinetic share) with share ≥ ``minimum``, largest first;
        ``pooled``: left and right sides together ("rear legs")."""
        shares: dict[str, float] = {}
        for r, v in self.motion_share.items():
            key = pool_key(r) if pooled else r
            shares[key] = shares.get(key, 0.0) + v
        return sorted(((r, v) for r, v in shares.items() if v >= minimum), key=lambda t: -t[1])

    def summary(self) -> str:
        """One line, e.g. ``bounding (head 28%, rear legs 40%, spine 12%)``; sides
        are pooled for modes that are mirror-symmetric or -antisymmetric."""
        pooled = self.symmetry in (SYMMETRIC, ANTISYMMETRIC)
        where = ", ".join(f"{r} {100 * v:.0f}%" for r, v in self.top_regions(pooled=pooled)[:3])
        return f"{self.name} ({where})" if self.name else where

    def to_dict(self) -> dict:
        """Plain JSON-ready data (nan becomes None)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out.update({k: dict(out[k]) for k in ("motion_share", "bend_share", "knee_bend", "phases")},
                   frequency_hz=out.pop("frequency"), axis_share=list(self.axis_share),
                   feet=[f._asdict() for f in self.feet],
                   symmetric_share=None if math.isnan(self.symmetric_share) else self.symmetric_share)
        return out


# ---------------------------------------------------------------- labels
def _feet(character: Character) -> list[tuple[str, str, str | None, list[tuple[int, np.ndarray]]]]:
    """Feet as (name, side, limb, [(body id, local point)]): contact points of
    left/right bodies grouped by (side, limb); without any, bodies with role foot."""
    m = character.model
    groups: dict[tuple[str, str | None], list] = {}
    for site in character.contacts.values():
        b = int(m.site_bodyid[site])
        lab = character.labels[m.body(b).name]
        if lab.side != "center":
            groups.setdefault((lab.side, lab.limb), []).append((b, m.site_pos[site].copy()))
    if not groups:
        for name in character.bodies_labeled(role="foot"):
            lab = character.labels[name]
            if lab.side != "center":
                groups.setdefault((lab.side, lab.limb), []).append((character.body_id(name), np.zeros(3)))
    return [(f"{limb} {side}" if limb else side, side, limb, pts) for (side, limb), pts in groups.items()]


def regions(character: Character, feet=None) -> dict[str, str]:
    """Body → region: "head", "neck", "tail", "spine" (every other center body),
    or a limb: "front left leg" when front and rear limbs both have feet,
    "left leg" for a limb with a foot, "left arm" for one without.
    ``feet``: the character's feet if already found (internal)."""
    feet = {(side, limb) for _, side, limb, _ in (_feet(character) if feet is None else feet)}
    quadruped = {limb for _, limb in feet} >= {"front", "rear"}
    out = {}
    for body, lab in character.labels.items():
        if lab.side == "center":
            out[body] = _CENTER_REGIONS.get(lab.role, "spine")
        elif (lab.side, lab.limb) not in feet:
            out[body] = f"{lab.side} arm"
        else:
            out[body] = f"{lab.limb} {lab.side} leg" if quadruped and lab.limb else f"{lab.side} leg"
    return out


# ---------------------------------------------------------------- features
def _pairs(feet: list) -> list[tuple[str, tuple, tuple]]:
    """Foot pairs to compare: (name, (side, limb), (side, limb)) for left/right
    of each limb, front/rear of each side and the two diagonals."""
    pairs = [(f"left/right {limb}" if limb else "left/right", ("left", limb), ("right", limb))
             for limb in sorted({limb for _, _, limb, _ in feet}, key=str)]
    pairs += [(f"front/rear {s}", (s, "front"), (s, "rear")) for s in ("left", "right")]
    return pairs + [("diagonal left front/right rear", ("left", "front"), ("right", "rear")),
                    ("diagonal right front/left rear", ("right", "front"), ("left", "rear"))]


def _phases(feet: tuple[FootMotion, ...], pairs: list, floor: float) -> dict[str, float]:
    """In-plane cosine of each foot pair; feet moving less than ``floor`` are left out."""
    by = {}
    for f in feet:
        norm = math.hypot(f.forward, f.vertical)
        if norm > floor:
            by[(f.side, f.limb)] = (f.forward / norm, f.vertical / norm)
    return {name: by[a][0] * by[b][0] + by[a][1] * by[b][1] for name, a, b in pairs if a in by and b in by}


def _closure_rotations(character: Character, d: mujoco.MjData, U: np.ndarray) -> list[np.ndarray]:
    """Relative rotation (3, k) [world axes] across each loop constraint: the
    bend of the joint that closes a ring, oriented like a tree joint (other − bone)."""
    m, out = character.model, []
    jr, jr2 = np.zeros((3, m.nv)), np.zeros((3, m.nv))
    for c in character.constraints:
        if c.kind == "loop":
            assert c.other is not None  # a loop joins two bones (validated)
            mujoco.mj_jacBody(m, d, None, jr, character.body_id(c.bone))
            mujoco.mj_jacBody(m, d, None, jr2, character.body_id(c.other))
            out.append((jr2 - jr) @ U)
    return out


def _body_motion(m: mujoco.MjModel, d: mujoco.MjData, U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Angular displacement W and centre-of-mass displacement V (k, nbody, 3) of
    every body for each mode (columns of U), world axes, via MuJoCo's com-based
    body velocities (``mj_comVel`` with qvel = the mode)."""
    k = U.shape[1]
    cvel = np.zeros((k, m.nbody, 6))
    for i in range(k):
        d.qvel[:] = U[:, i]
        mujoco.mj_comVel(m, d)
        cvel[i] = d.cvel
    W = cvel[..., :3]
    offset = d.xipos - d.subtree_com[m.body_rootid]  # body com relative to its tree's com
    V = cvel[..., 3:] + np.cross(W, offset[None])
    return W, V


def describe_modes(character: Character, basis) -> tuple[ModeDescription, ...]:
    """One :class:`ModeDescription` per elastic mode of ``basis`` (a
    ``ModalBasis`` of ``character``; shapes (nv, k)), in basis order."""
    scratch = _scratch(character)
    with scratch.lock:  # one scratch MjData per character
        return _describe(character, basis, scratch)


def _describe(character: Character, basis, scratch: "_Scratch") -> tuple[ModeDescription, ...]:
    m = character.model
    d = scratch.data
    d.qpos[:] = basis.rest_qpos
    # Positions, com-based frames and the mass matrix are all this needs.
    mujoco.mj_kinematics(m, d)
    mujoco.mj_comPos(m, d)
    mujoco.mj_makeM(m, d)
    U = np.asarray(basis.shapes, float)
    nv, k = U.shape
    names = list(character.labels)
    feet_pts = _feet(character)
    region_of = regions(character, feet_pts)
    region_names = sorted(set(region_of.values()))
    # (regions, nbody) indicator: sums per-body quantities into regions.
    member = np.zeros((len(region_names), m.nbody))
    member[[region_names.index(region_of[n]) for n in names], np.arange(1, m.nbody)] = 1.0
    # Kinetic energy per body: x, y, z translation and rotation (k, nbody, 4).
    W, V = _body_motion(m, d, U)
    R = d.ximat.reshape(-1, 3, 3)
    inertia = np.einsum("bij,bj,bkj->bik", R, m.body_inertia, R)  # world inertia about the com
    energy = np.concatenate([0.5 * m.body_mass[None, :, None] * V ** 2,
                             0.5 * np.einsum("kbi,bij,kbj->kb", W, inertia, W)[..., None]], axis=2)
    moves = np.einsum("rb,kbe->kre", member, energy)  # (k, regions, 4)
    total = energy.sum(axis=(1, 2))
    sag = (energy[..., 0] + energy[..., 2]).sum(1) + 0.5 * np.einsum("kb,b->k", W[..., 1] ** 2, inertia[:, 1, 1])
    # Joint springs: energy per body's joints, rotation relative to the parent (world axes).
    rel = W - W[:, m.body_parentid]  # (k, nbody, 3)
    rotational = {"hinge", "ball", "gimbal"}
    jbodies = sorted({int(m.dof_bodyid[j.dof.start]) for j in character.joints.values()
                      if j.kind in rotational and j.ndof})  # tree order (parents first)
    jbodies = [b for b in jbodies if m.body_parentid[b] != 0]
    dof_e = 0.5 * np.asarray(character.stiffness)[:, None] * U ** 2  # (nv, k)
    body_e = np.zeros((m.nbody, k))
    np.add.at(body_e, m.dof_bodyid, dof_e)
    mask = np.zeros(m.nbody, bool)
    mask[jbodies] = True
    body_e[~mask] = 0.0  # root and slide-only bodies are not bends
    bend = member @ body_e  # (regions, k)
    r2 = rel[:, jbodies] ** 2  # (k, j, 3)
    axis_energy = np.einsum("jk,kji->ki", body_e[jbodies], r2 / np.maximum(r2.sum(2, keepdims=True), 1e-300))
    closures = _closure_rotations(character, d, U)
    # Feet and knees.
    jp = np.zeros((3, nv))
    foot_disp = []
    for _, _, _, pts in feet_pts:
        acc = np.zeros((3, k))
        for b, local in pts:
            mujoco.mj_jac(m, d, jp, None, d.xpos[b] + d.xmat[b].reshape(3, 3) @ local, b)
            acc += jp @ U
        foot_disp.append(acc / len(pts))
    knees = [(n, character.body_id(n)) for n in
             character.bodies_labeled(role="knee") + character.bodies_labeled(role="elbow")]
    Pi = scratch.mirror
    shares = np.full(k, np.nan)
    if Pi is not None:  # mass-weighted split into mirror-symmetric and -antisymmetric parts
        M = np.zeros((nv, nv))
        mujoco.mj_fullM(m, d, M)
        Us, Ua = 0.5 * (U + Pi @ U), 0.5 * (U - Pi @ U)
        es, ea = (Us * (M @ Us)).sum(0), (Ua * (M @ Ua)).sum(0)
        shares = np.where(es + ea > 0, es / np.maximum(es + ea, 1e-300), 1.0)
    # Per-mode numbers as plain Python values (cheaper to wrap than array scalars).
    motion = _normalized(moves.sum(2))  # (k, regions)
    bends = _normalized(bend.T)
    axes = _normalized(axis_energy)
    sagittal = np.where(total > 0, sag / np.maximum(total, 1e-300), 0.0).tolist()
    feet_xyz = np.array(foot_disp).transpose(2, 0, 1).tolist() if foot_disp else [[]] * k  # (k, F, 3)
    knee_bend = rel[:, [b for _, b in knees], 1].tolist()
    pairs = _pairs(feet_pts)
    out = []
    for i in range(k):
        share = float(shares[i])
        sym = NO_MIRROR if Pi is None else SYMMETRIC if share >= SYMMETRY_THRESHOLD else (
            ANTISYMMETRIC if share <= 1 - SYMMETRY_THRESHOLD else MIXED)
        feet = tuple(FootMotion(fn, side, limb, *xyz) for (fn, side, limb, _), xyz in zip(feet_pts, feet_xyz[i]))
        reach = max((math.hypot(f.forward, f.vertical) for f in feet), default=0.0)
        desc = ModeDescription(
            i, float(basis.frequencies[i]), "", sym, share, sagittal[i], dict(zip(region_names, motion[i])),
            dict(zip(region_names, bends[i])), cast(tuple[float, float, float], tuple(axes[i])), feet,
            dict(zip([n for n, _ in knees], knee_bend[i])), _phases(feet, pairs, 0.2 * reach))
        # Joint bends along the tree, then across ring closures: (3, joints) about x, y, z.
        seq = None  # only legless creatures are named by their bends
        if len(feet) < 2 and jbodies:
            seq = np.hstack([rel[i, jbodies].T] + [c[:, i:i + 1] for c in closures])
        # The name is derived from the finished description: set it in place (frozen otherwise).
        object.__setattr__(desc, "name", mode_name(desc, seq, bool(closures), dict(zip(region_names, moves[i]))))
        out.append(desc)
    return tuple(out)


def _normalized(a: np.ndarray) -> list[list[float]]:
    """Rows of ``a`` (k, n) scaled to sum to 1 (zero rows stay zero), as lists."""
    total = a.sum(1, keepdims=True)
    return (a / np.where(total > 0, total, 1.0)).tolist()


class _Scratch:
    """Per-character reusables: an ``MjData`` (allocating one costs about as
    much as describing ten modes) and the mirror matrix (rest geometry only)."""

    def __init__(self, character: Character):
        self.lock = threading.Lock()
        self.data = mujoco.MjData(character.model)
        self.mirror = mirror_of(character)  # None: not mirror-symmetric, no symmetry class


_SCRATCH: "weakref.WeakKeyDictionary[Character, _Scratch]" = weakref.WeakKeyDictionary()


def _scratch(character: Character) -> _Scratch:
    if character not in _SCRATCH:
        _SCRATCH[character] = _Scratch(character)
    return _SCRATCH[character]
