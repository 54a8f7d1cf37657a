"""Uniform stiffness tuning: how stiff must a creature be to stand in its rest pose?

Kry09 §5.1 starts every session by scaling all joint stiffnesses until the
creature supports its own weight under gravity. :func:`tune_stiffness` finds
the smallest uniform scale ``s`` of the stiffness (joint springs and coupling
springs) at which the creature, standing on the ground, keeps every joint
within ``max_deviation`` of its rest value. Two steps:

1. A linear static solve. The ground is modelled as holding every body that
   touches it in the rest pose *welded* in place (position and orientation: a
   foot pressed flat by friction); the creature's own extra constraints (e.g.
   a ring's closure) hold as well. With A the stacked Jacobian of these
   conditions and N a basis of its null space, the static sag δq = N z solves

       (Nᵀ s K N) z = Nᵀ τ_g,        τ_g = −qfrc_bias(q_rest, v = 0)  (gravity),

   so δq ∝ 1/s and the scale meeting the bound follows in closed form:
   s_lin = max_j |δq_j(1)| / max_deviation. It leaves out what the linear
   model cannot see: the stiffness gravity itself adds as the pose changes,
   feet rolling on their soles, and the softness of MuJoCo's contacts.
2. A MuJoCo check. The model is copied with its stiffness scaled, gravity is
   ramped in over ``ramp`` seconds (a quasi-static load, so the first swing
   does not overshoot), extra damping lets the motion settle, and the joint
   deviation is averaged over the last ``window`` seconds. The scale is then
   moved by the same 1/s law, inside a bracket, until the simulated deviation
   lies within ``tolerance`` below the bound.

Deviations are measured per non-root joint: the rotation angle (|θ| for a
hinge, the norm of the rotation vector for a ball or a ball compiled as three
hinges) against ``max_deviation``, and for slide joints (telescoping legs) the
displacement against ``max_slide`` (default 5 % of the standing height). A run
in which the root tips over by more than 30° does not hold the pose, whatever
its joints do (a creature that only balances under control cannot be tuned
into standing).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import mujoco
import numpy as np
import scipy.linalg

from gaitforge.creatures.character import Character
from gaitforge.creatures.contacts import set_margin
from gaitforge.creatures.spec import Constraint
from gaitforge.errors import GaitforgeError
from gaitforge.modal.constraints import anchor_all, closure_springs, constraint_jacobian

_ROTATIONAL = ("hinge", "ball", "gimbal")
_FALL_TILT = np.radians(30.0)  # a root tipped further than this has fallen over


class TuningError(GaitforgeError):
    """The stiffness of a creature cannot be tuned (e.g. it does not touch the
    ground, or a joint has no stiffness at all)."""


@dataclass(frozen=True)
class TuningResult:
    """What :func:`tune_stiffness` found.

    scale: uniform stiffness factor chosen (confirmed in simulation when
    ``confirmed``); linear_scale: the closed-form estimate of the static solve;
    max_deviation: the bound [rad]; simulated_deviation: largest joint
    deviation measured in MuJoCo at ``scale`` [rad]; sag_deg / simulated_sag_deg:
    per non-root rotational joint, the linear prediction and the simulated
    deviation at ``scale`` [deg]; supports: bodies the ground holds in the
    static solve; simulations: MuJoCo runs used; max_slide: the bound for
    slide joints [m]; slide_sag / simulated_slide_sag: per non-root slide joint,
    linear and simulated displacement at ``scale`` [m]; fell: the root tipped
    over (more than 30°) in the run at ``scale``.
    """

    character_name: str
    scale: float
    linear_scale: float
    max_deviation: float
    simulated_deviation: float
    sag_deg: Mapping[str, float]
    simulated_sag_deg: Mapping[str, float]
    supports: tuple[str, ...]
    confirmed: bool
    simulations: int
    max_slide: float
    slide_sag: Mapping[str, float]
    simulated_slide_sag: Mapping[str, float]
    fell: bool

    def __post_init__(self) -> None:
        for name in ("scale", "linear_scale", "max_deviation", "simulated_deviation", "max_slide"):
            value = getattr(self, name)
            if not np.isfinite(value) or value < 0:
                raise ValueError(f"TuningResult.{name} must be finite and >= 0, got {value!r}")
        if self.scale <= 0 or self.max_deviation <= 0:
            raise ValueError("TuningResult.scale and max_deviation must be positive")
        for name in ("sag_deg", "simulated_sag_deg", "slide_sag", "simulated_slide_sag"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))


def _inner_joints(character: Character, kinds=_ROTATIONAL) -> list:
    """Joints of ``kinds`` that are not on the root body (the root's joints
    place the whole creature and have no rest value to hold)."""
    m = character.model
    return [j for j in character.joints.values()
            if j.kind in kinds and m.body_parentid[character.body_id(j.body)] != 0]


def joint_deviations(character: Character, dq: np.ndarray) -> dict[str, float]:
    """Rotation angle [rad] of each non-root rotational joint for a velocity-space
    displacement ``dq`` (nv,) from rest (e.g. from ``mj_differentiatePos``)."""
    return {j.name: float(np.linalg.norm(dq[j.dof])) for j in _inner_joints(character)}


def slide_deviations(character: Character, dq: np.ndarray) -> dict[str, float]:
    """Displacement [m] of each non-root slide joint for ``dq`` (nv,)."""
    return {j.name: float(abs(dq[j.dof.start])) for j in _inner_joints(character, ("slide",))}


def _worst(character: Character, dq: np.ndarray, bounds: tuple[float, float]) -> float:
    """Largest joint deviation as a fraction of its bound (angle, slide)."""
    rot = max(joint_deviations(character, dq).values(), default=0.0) / bounds[0]
    return max(rot, max(slide_deviations(character, dq).values(), default=0.0) / bounds[1])


def support_bodies(character: Character, tolerance: float = 1e-4) -> tuple[str, ...]:
    """Bodies whose geoms touch the ground (within ``tolerance`` [m]) in the
    rest pose, in model order. The tolerance is tight on purpose: a body that
    merely comes close to the ground beside a supported one (a ring's second
    link, a heel above the sole) must stay free to sag."""
    m = copy.deepcopy(character.model)
    set_margin(m, tolerance)  # count near-touching geoms as contacts
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    mujoco.mj_forward(m, d)
    ids = set()
    for i in range(d.ncon):
        for g in d.contact.geom[i]:
            if m.geom_bodyid[g] != 0:
                ids.add(int(m.geom_bodyid[g]))
    return tuple(m.body(i).name for i in sorted(ids))


def static_sag(character: Character, scale: float = 1.0,
               supports: tuple[str, ...] | None = None) -> np.ndarray:
    """Linear static joint displacement δq (nv,) [rad, m] under gravity at
    stiffness ``scale`` with ``supports`` welded (default :func:`support_bodies`).

    Raises :class:`TuningError` when the held creature still has a motion with
    no stiffness (no support for a floating root, or joints without springs).
    """
    m = character.model
    d = character.make_data()
    supports = support_bodies(character) if supports is None else supports
    # A welded support is a pin of its origin plus a lock of its orientation.
    held = [Constraint(f"support {name} {kind}", kind, name) for name in supports for kind in ("pin", "lock")]
    anchors = anchor_all(character, d, tuple(character.constraints) + tuple(held))
    A = constraint_jacobian(m, d, anchors)
    rows, k = closure_springs(m, d, anchors)
    N = scipy.linalg.null_space(A) if len(A) else np.eye(m.nv)
    K = scale * (np.asarray(character.stiffness_matrix) + rows.T @ (k[:, None] * rows))
    Kr = N.T @ K @ N
    tau_g = -d.qfrc_bias  # v = 0: the bias force is gravity alone
    evals = np.linalg.eigvalsh(Kr) if Kr.size else np.zeros(0)
    if evals.size and evals[0] <= 1e-9 * max(evals[-1], 1e-300):
        if not supports and m.body_parentid[1] == 0 and m.body_dofnum[1] > 0:
            raise TuningError(f"{character.name}: no body touches the ground in the rest pose, "
                              "so its weight has nothing to rest on")
        limp = [j.name for j in character.joints.values()
                if m.body_parentid[character.body_id(j.body)] != 0 and not np.any(character.stiffness[j.dof])]
        raise TuningError(f"{character.name}: the supported creature can move without bending a spring"
                          + (f" (joints with zero stiffness: {', '.join(limp)})" if limp else ""))
    return N @ np.linalg.solve(Kr, N.T @ tau_g) if Kr.size else np.zeros(m.nv)


def simulate_sag(character: Character, scale: float, *, ramp: float = 0.6, settle: float = 0.8,
                 window: float = 0.5) -> np.ndarray:
    """Mean joint displacement δq (nv,) from rest over the last ``window``
    seconds of a MuJoCo run with stiffness times ``scale``: gravity ramps from
    0 to full over ``ramp`` s, then holds for ``settle`` s. The character's
    model is copied, never changed."""
    return _simulate(character, scale, ramp, settle, window)[0]


def _simulate(character: Character, scale: float, ramp: float = 0.6, settle: float = 0.8,
              window: float = 0.5) -> tuple[np.ndarray, float]:
    """:func:`simulate_sag` and the largest tilt of the root body [rad] in the run."""
    m = copy.deepcopy(character.model)
    m.jnt_stiffness[:] *= scale
    m.tendon_stiffness[:] *= scale
    # Extra Rayleigh-like damping on the joints settles the sag within the run:
    # 0.03 s times the stiffness plus 10 /s times the rest mass diagonal.
    # Damping does not move a static equilibrium; the root is left undamped so
    # that a creature that cannot balance still falls within the run.
    d = character.make_data()
    M = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(character.model, d, M)
    inner = m.body_parentid[m.dof_bodyid] != 0
    m.dof_damping[:] += inner * (0.03 * np.asarray(character.stiffness) * scale + 10.0 * np.diag(M))
    root_rest = d.xquat[1].copy()
    g = m.opt.gravity.copy()
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    dt = m.opt.timestep
    n_ramp, n_hold = int(round(ramp / dt)), int(round(settle / dt))
    n_window = max(1, min(n_hold, int(round(window / dt))))
    acc, dq, tilt = np.zeros(m.nv), np.zeros(m.nv), 0.0
    for i in range(n_ramp + n_hold):
        m.opt.gravity[:] = g * min(1.0, (i + 1) / max(n_ramp, 1))
        mujoco.mj_step(m, d)
        if i % 10 == 9:  # angle between the root's rest and current orientation
            tilt = max(tilt, 2.0 * np.arccos(min(1.0, abs(float(d.xquat[1] @ root_rest)))))
        if i >= n_ramp + n_hold - n_window:
            mujoco.mj_differentiatePos(m, dq, 1.0, character.rest_qpos, d.qpos)
            acc += dq
    return acc / n_window, tilt


def tune_stiffness(character: Character, max_deviation: float = np.radians(5.0), *,
                   max_slide: float | None = None, tolerance: float = 0.05, max_simulations: int = 8,
                   min_scale: float = 1e-3, supports: tuple[str, ...] | None = None) -> TuningResult:
    """The smallest uniform stiffness scale at which ``character`` holds its rest
    pose under gravity: every joint within ``max_deviation`` [rad] (slides within
    ``max_slide`` [m], default 5 % of the standing height) and the root upright.

    The closed-form static estimate (module docstring) seeds a search over
    MuJoCo runs; each next scale follows the 1/s law from the last run,
    kept inside the bracket of scales known to hold / to sag too much. It stops
    once the worst simulated deviation lies in [(1 − tolerance), 1] of its bound,
    when the bracket is narrower than ``tolerance``, or at ``min_scale`` (a
    creature the ground holds everywhere, like a worm lying flat, needs no
    stiffness). ``confirmed`` is False if no run within ``max_simulations`` held.
    """
    if not (np.isfinite(max_deviation) and max_deviation > 0):
        raise TuningError(f"the maximum joint deviation must be a positive angle, got {max_deviation!r}")
    if not _inner_joints(character, _ROTATIONAL + ("slide",)):
        raise TuningError(f"{character.name}: has no joints to tune")
    bounds = (float(max_deviation), 0.05 * character.height if max_slide is None else float(max_slide))
    supports = support_bodies(character) if supports is None else tuple(supports)
    dq1 = static_sag(character, 1.0, supports)
    s_lin = _worst(character, dq1, bounds)
    s = max(s_lin, min_scale)
    lo, hi = 0.0, np.inf  # sags too much at lo; holds at hi
    best = None
    for runs in range(1, max_simulations + 1):
        dq, tilt = _simulate(character, s)
        fell = tilt > _FALL_TILT
        worst = np.inf if fell else _worst(character, dq, bounds)
        last = (s, dq, fell)
        if worst <= 1.0:
            hi, best = s, last
            if worst >= 1.0 - tolerance or s <= min_scale:
                break
        else:
            lo = s
        if np.isfinite(hi) and hi - lo <= tolerance * hi:
            break
        # 1/s law, aimed just inside the bound, then kept inside the bracket.
        proposal = max(s * worst / (1.0 - 0.5 * tolerance), min_scale) if np.isfinite(worst) else 2.0 * s
        if not lo < proposal < hi:
            proposal = np.sqrt(lo * hi) if lo > 0 and np.isfinite(hi) else (2.0 * s if hi == np.inf else 0.5 * s)
        s = max(proposal, min_scale)
    scale, dq, fell = best if best is not None else last
    deg = lambda devs: {k: float(np.degrees(v)) for k, v in devs.items()}  # noqa: E731
    return TuningResult(
        character.name, float(scale), float(s_lin), bounds[0],
        max(joint_deviations(character, dq).values(), default=0.0),
        deg(joint_deviations(character, dq1 / scale)), deg(joint_deviations(character, dq)),
        supports, best is not None, runs, bounds[1], slide_deviations(character, dq1 / scale),
        slide_deviations(character, dq), bool(fell))
