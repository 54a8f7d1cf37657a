"""Run a controller on a character in MuJoCo and record what happened.

The physics step runs in C (``mj_step`` with ``nstep``) between control
ticks, so Python only wakes up once per tick. Recording samples ``qpos``,
which feet touch the ground, the ground reaction force on each foot and
whether anything else touches the ground.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any, Callable

import mujoco
import numpy as np

from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.motion.clip import MotionClip
from gaitforge.sim.controller import Controller, run_settings
from gaitforge.sim.events import DIVERGED, RunEvent
from gaitforge.sim.limits import Limiter, LimitReport, limits_of
from gaitforge.sim.physics import Physics

_OWN: Any = object()  # the default of ``run``'s settings: the controller's own


@dataclass(frozen=True, eq=False)
class Rollout:
    """A recorded run.

    clip: the motion (qpos per record tick); feet: names of the feet tracked;
    contact (T, F) bool: foot touches the ground (the foot's body or a body
    below it, e.g. toes); grf (T, F, 3) [N] ground reaction force on each
    foot (with those bodies) in world axes; states: the controller's state
    label at each record tick; fall: a ``sim.events.RunEvent`` (a fall
    or a divergence) or None; wall_time [s];
    other_contact (T,) int: the id of a body that is no foot (nor below
    one) and touches the ground at that tick, 0 when none does (None: not
    recorded); physics: what the run integrated with
    (``sim.physics.Physics``; None for a rollout assembled by hand);
    limits: the joints' peak drive and speed against the controller's
    declared limits and how often a drive was clipped
    (``sim.limits.LimitReport``; None when the controller declares none).
    """

    clip: MotionClip
    feet: tuple[str, ...]
    contact: np.ndarray
    grf: np.ndarray
    states: tuple[str, ...]
    fall: RunEvent | None
    wall_time: float
    other_contact: np.ndarray | None = None
    physics: Physics | None = None
    limits: LimitReport | None = None

    @property
    def times(self) -> np.ndarray:
        return self.clip.times


def foot_bodies(character: Character) -> dict[str, int]:
    """Body id of each foot: the body carrying each contact point whose name
    ends in ``_foot``/``_knuckle`` (or ``foot``), in contact-point order."""
    m = character.model
    out = {}
    for name, site in character.contacts.items():
        if name == "foot" or name.endswith(("_foot", "_knuckle")):
            out[name] = int(m.site_bodyid[site])
    return out


def _foot_of_body(m: mujoco.MjModel, feet: list[int]) -> dict[int, int]:
    """Foot index of each body that belongs to a foot: the foot's body and
    the bodies below it (toes touching the ground are the foot touching)."""
    out = {}
    for b in range(1, m.nbody):
        a = b
        while a > 0 and a not in feet:
            a = int(m.body_parentid[a])
        if a > 0:
            out[b] = feet.index(a)
    return out


def _heels(m: mujoco.MjModel, feet: list[int]) -> dict[int, list[tuple[int, float]]]:
    """For each body a foot hangs from: (foot body, reach [m]) pairs, reach
    the largest size of the foot body's geoms. A limb's last bone usually
    ends in a cap at the foot's joint, and where that cap touches the ground
    within the foot's reach of its joint it is the heel of the foot, not a
    knee or shin (the dog's metacarpus and metatarsus do so in stride)."""
    out: dict[int, list[tuple[int, float]]] = {}
    for f in feet:
        geoms = [g for g in range(m.ngeom) if m.geom_bodyid[g] == f]
        reach = max((float(m.geom_size[g].max()) for g in geoms), default=0.0)
        out.setdefault(int(m.body_parentid[f]), []).append((f, reach))
    return out


def _ground_forces(m: mujoco.MjModel, d: mujoco.MjData, body_to_foot: dict[int, int],
                   nfeet: int, force6: np.ndarray,
                   heels: dict[int, list[tuple[int, float]]] | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """(touching (F,), grf (F, 3), other): which feet touch the ground, the
    force on each, and a body that is no foot touching it (0: none; a foot's
    heel, ``_heels``, is not counted as other)."""
    touching = np.zeros(nfeet, bool)
    grf = np.zeros((nfeet, 3))
    other = 0
    for i in range(d.ncon):
        c = d.contact[i]
        b1, b2 = m.geom_bodyid[c.geom[0]], m.geom_bodyid[c.geom[1]]
        if b1 == 0:
            body, sign = b2, 1.0
        elif b2 == 0:
            body, sign = b1, -1.0
        else:
            continue
        foot = body_to_foot.get(int(body))
        if foot is None:
            if heels and any(np.linalg.norm(c.pos - d.xpos[f]) <= reach for f, reach in heels.get(int(body), ())):
                continue
            if other == 0:
                mujoco.mj_contactForce(m, d, i, force6)
                if force6[0] > 0.0:
                    other = int(body)
            continue
        mujoco.mj_contactForce(m, d, i, force6)
        # Contact frame rows: normal first; the force acts on geom[1] along +normal...
        world = c.frame.reshape(3, 3).T @ force6[:3]
        touching[foot] = touching[foot] or force6[0] > 0.0
        grf[foot] += sign * world
    return touching, grf, other


def run(character: Character, controller: Controller, seconds: float, *, control_dt: float | None = None,
        record_fps: float = 100.0, fall_check: Callable[[mujoco.MjData], str | RunEvent | None] | None = _OWN,
        stop_on_fall: bool = True, perturb: Callable[[float, mujoco.MjData], None] | None = None,
        model: mujoco.MjModel | None = None, progress: Callable[[float], None] | None = None,
        initial: Callable[[mujoco.MjModel, mujoco.MjData], None] | None = None,
        timestep: float | None = None) -> Rollout:
    """Simulate ``seconds`` of ``controller`` driving ``character``: the one
    run loop of the library.

    control_dt [s] must be a multiple of the model's timestep; record_fps the
    sampling rate of the recorded clip. ``fall_check(data)`` returns a reason
    string when the creature has fallen, or a ``RunEvent`` of its own (None:
    no check). ``perturb(t,
    data)`` may apply external forces (``xfrc_applied``) each tick.
    ``model`` overrides the character's model (e.g. a scaled copy); it is
    copied, never changed. Left out, ``control_dt``, the model's preparation
    and ``fall_check`` are the controller's own (``sim.controller``: its
    ``control_dt``, ``prepare_model``, ``fall_check``, else 0.002 s, none,
    none); a ``model`` given is used as it is. ``progress(t)`` is called
    with the simulated time [s] about once per simulated second (for
    progress bars). ``initial(model, data)`` may move the start state after
    the controller's reset (e.g. a ``sim.starts.PerturbedStart``); it is
    the last write to ``qpos``/``qvel`` before the run. ``timestep`` [s]
    replaces the physics step the controller prepares (not with ``model``).
    A controller that declares ``joint_limits`` (``sim.limits.JointLimits``)
    has its joints' drives clipped to them every physics step, and the
    rollout reports the peaks (``Rollout.limits``).
    """
    import time as _time

    if timestep is not None and model is not None:
        raise GaitforgeError("run: give the timestep to the model you pass, or no model")
    own = run_settings(controller, character.model if model is None else model, timestep=timestep)
    m = own.model if model is None else copy.copy(model)
    control_dt = own.control_dt if control_dt is None else control_dt
    fall_check = own.fall_check if fall_check is _OWN else fall_check
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    nstep = int(round(control_dt / m.opt.timestep))
    if nstep < 1 or abs(nstep * m.opt.timestep - control_dt) > 1e-9:
        raise GaitforgeError(f"control_dt {control_dt} s is not a multiple of the timestep {m.opt.timestep} s")
    record_every = max(1, int(round(1.0 / (record_fps * control_dt))))
    controller.reset(m, d)
    limits = limits_of(controller)
    limiter = None if limits is None else Limiter(m, limits)
    if initial is not None:
        initial(m, d)
    mujoco.mj_forward(m, d)
    feet = foot_bodies(character)
    body_to_foot = _foot_of_body(m, list(feet.values()))
    heels = _heels(m, list(feet.values()))
    force6 = np.zeros(6)
    ticks = int(round(seconds / control_dt))
    # Falls develop over tenths of a second: checking every ~20 ms is enough
    # and keeps Python's share of the step small.
    check_every = max(1, int(round(0.02 / control_dt)))
    report_every = max(1, int(round(1.0 / control_dt)))
    frames, contacts, grfs, states, others = [], [], [], [], []
    fall = None
    start = _time.perf_counter()
    for k in range(ticks + 1):
        if k % record_every == 0:
            touching, grf, other = _ground_forces(m, d, body_to_foot, len(feet), force6, heels)
            frames.append(d.qpos.copy())
            contacts.append(touching)
            grfs.append(grf)
            others.append(other)
            states.append(controller.state)
        if k == ticks:
            break
        if fall_check is not None and fall is None and k % check_every == 0:
            reason = fall_check(d)
            if reason is not None:
                fall = reason if isinstance(reason, RunEvent) else RunEvent(float(d.time), reason, controller.state)
                if stop_on_fall:
                    break
        if perturb is not None:
            perturb(float(d.time), d)
        if progress is not None and k % report_every == 0:
            progress(float(d.time))
        controller.compute(m, d)
        before = float(d.time)
        if limiter is None:
            mujoco.mj_step(m, d, nstep=nstep)
        else:
            limiter.step(m, d, nstep)
        if not math.isfinite(float(d.qpos.sum())):  # NaN/inf propagate into the sum
            fall = RunEvent(float(d.time), "non-finite state", controller.state, DIVERGED)
            break
        if d.time < before:  # MuJoCo reset the data after a bad acceleration (its warning): time restarts at 0
            fall = RunEvent(before, "MuJoCo reset it", controller.state, DIVERGED)
            break
    wall = _time.perf_counter() - start
    fps = 1.0 / (record_every * control_dt)
    return Rollout(MotionClip(fps, np.array(frames), character.name), tuple(feet),
                   np.array(contacts).reshape(len(frames), len(feet)),
                   np.array(grfs).reshape(len(frames), len(feet), 3), tuple(states), fall, wall,
                   np.array(others, np.int32), Physics.of(m), None if limiter is None else limiter.report())
