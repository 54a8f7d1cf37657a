"""Nothing but the joints drives a simulated runner: a monitor wrapped
around each control tick and each ``mj_step`` checks that the controller
never writes the state (qpos, qvel), never pushes the root (generalized
forces on the root body's DOFs, ``xfrc_applied``), and that the root's
equation of motion balances with only the passive and contact forces:
M q̈ + c − τ_passive − τ_contact on the root DOFs under 1e-3 body weights.
The runner's joint limits are in the loop (``sim.limits.Limiter``, as
``sim.run`` steps), and the drive each joint received, read back from the
equation of motion (M q̈ + c − τ_contact on its DOFs), stays within its
bound: the clip is checked by what MuJoCo integrated, not by the limiter's
own bookkeeping."""
from __future__ import annotations

import dataclasses

import mujoco
import numpy as np
import pytest

from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.sim.controller import run_settings
from gaitforge.control import registry as runners
from gaitforge.sim.limits import Limiter, limits_of

RUNNERS = ["dog", "gorilla", "biped", "quadruped", "kangaroo"]


def root_dofs(m: mujoco.MjModel) -> np.ndarray:
    """The DOFs of the joints on the root body (a free joint, or a planar
    creature's slides and hinge)."""
    return np.flatnonzero(m.jnt_bodyid[m.dof_jntid] == 1)


def monitored_run(name: str, seconds: float, torque: float | None = None) -> dict[str, float]:
    """The worst of each check over ``seconds`` of ``name``'s default gait at
    the middle of its range: state written by the controller (qpos/qvel
    change), root force commanded (× body weight), external body forces [N],
    the root's residual (× body weight), the largest drive a joint received
    (× its bound), the control ticks clipped. ``torque`` replaces the
    runner's torque bound (× m g L)."""
    e = runners.entry(name)  # the default gait
    lo, hi = e.speed_range
    character = Character.from_spec(registry.build(e.creature))
    assert e.controller is not None
    controller = e.controller(e, character, 0.5 * (lo + hi))
    control_dt, m, _ = run_settings(controller, character.model)
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    controller.reset(m, d)
    mujoco.mj_forward(m, d)
    root = root_dofs(m)
    weight = float(m.body_subtreemass[1]) * 9.81
    nstep = int(round(control_dt / m.opt.timestep))
    worst = dict(state=0.0, root_force=0.0, external=0.0, residual=0.0, received=0.0)
    ma = np.zeros(m.nv)
    limits = limits_of(controller)
    assert limits is not None, f"{name} declares no joint limits"
    if torque is not None:
        limits = dataclasses.replace(limits, torque=torque)
    limiter = Limiter(m, limits)
    torque, force = limits.bounds(m)
    joints = [(int(m.jnt_dofadr[j]), 3 if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_BALL else 1,
               force if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_SLIDE else torque)
              for j in range(m.njnt) if m.jnt_bodyid[j] != 1]
    for _ in range(int(round(seconds / control_dt))):
        q, v = d.qpos.copy(), d.qvel.copy()
        controller.compute(m, d)
        worst["state"] = max(worst["state"], np.abs(d.qpos - q).max(), np.abs(d.qvel - v).max())
        worst["root_force"] = max(worst["root_force"], np.abs(d.qfrc_applied[root]).max() / weight,
                                  np.abs(d.qfrc_actuator[root]).max() / weight)
        worst["external"] = max(worst["external"], np.abs(d.xfrc_applied).max())
        for _ in range(nstep):
            limiter.step(m, d, 1)
            mujoco.mj_mulM(m, d, ma, d.qacc)
            residual = ma[root] + d.qfrc_bias[root] - d.qfrc_passive[root] - d.qfrc_constraint[root]
            worst["residual"] = max(worst["residual"], np.abs(residual).max() / weight)
            received = ma + d.qfrc_bias - d.qfrc_constraint
            for a, n, bound in joints:
                worst["received"] = max(worst["received"], float(np.linalg.norm(received[a:a + n])) / bound)
    worst["clipped"] = limiter.clipped
    return worst


@pytest.mark.parametrize("name", RUNNERS)
def test_only_the_joints_drive_the_runner(name):
    worst = monitored_run(name, 3.0)
    assert worst["state"] == 0.0 and worst["root_force"] == 0.0 and worst["external"] == 0.0, worst
    assert worst["residual"] < 1e-3, worst
    assert worst["received"] < 1.0 + 1e-3, worst


@pytest.mark.parametrize("name, torque", [("dog", 0.5), ("kangaroo", 0.5)])
def test_a_joint_never_receives_more_than_its_bound(name, torque):
    """With the torque bound lowered until the gait's drives are clipped
    (0.5 m g L), what each joint received stays within it."""
    worst = monitored_run(name, 1.0, torque=torque)
    assert worst["clipped"] > 0, worst
    assert worst["received"] < 1.0 + 1e-3, worst


def test_the_monitor_sees_a_hidden_push():
    """The residual check is not vacuous: a force on the root, written where
    the contact and passive forces do not account for it, is caught."""
    character = Character.from_spec(registry.build(runners.entry("dog").creature))
    m = character.model
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    weight = float(m.body_subtreemass[1]) * 9.81
    d.qfrc_applied[root_dofs(m)[0]] = 0.01 * weight  # 1 % of body weight along x
    mujoco.mj_step(m, d)
    ma = np.zeros(m.nv)
    mujoco.mj_mulM(m, d, ma, d.qacc)
    root = root_dofs(m)
    residual = ma[root] + d.qfrc_bias[root] - d.qfrc_passive[root] - d.qfrc_constraint[root]
    assert np.abs(residual).max() / weight == pytest.approx(0.01, rel=1e-6)
