"""The skills controller's compiled control tick (``skills.tick``) against
its Python formulation (``skills.reference``): from the same controller
state and the same MuJoCo state, both write the same joint references,
virtual-force torques, modes and servo gains, tick after tick over a
walking gorilla and a trotting dog; and the compiled tick's Jacobians
agree with MuJoCo's."""
from __future__ import annotations

import mujoco
import numpy as np
import pytest

from gaitforge.control.paths import WaypointPath
from gaitforge.control.skills import catalog
from gaitforge.control.skills.commands import Command
from gaitforge.control.skills.gaitcheck import check
from gaitforge.control.skills import tick as T
from gaitforge.control.skills import vforce
from gaitforge.creatures.character import Character
from gaitforge.creatures.registry import build
from gaitforge.sim.controller import run_settings
from gaitforge.sim.runner import run


def _start(key: str, gait: str, speed: float, **kw):
    character = Character.from_spec(build(key))
    ctrl = catalog.RUNNERS[key].make(character, gait, speed, **kw)
    m = run_settings(ctrl, character.model).model
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    ctrl.reset(m, d)
    mujoco.mj_forward(m, d)
    return ctrl, m, d


def _outputs(ctrl, m, d) -> dict:
    return {"spring": m.qpos_spring.copy(), "qfrc": d.qfrc_applied.copy(), "ints": ctrl.ints.copy(),
            "floats": ctrl.S.copy(), "stiffness": m.jnt_stiffness.copy(), "damping": m.dof_damping.copy(),
            "state": ctrl.state}


def _close(a: np.ndarray, b: np.ndarray, what: str, t: float) -> None:
    scale = max(1.0, float(np.abs(b).max(initial=0.0)))
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9 * scale, err_msg=f"{what} at t = {t:.2f} s")


@pytest.mark.parametrize("key, gait, speed, kw", [
    ("gorilla", "ds_walk", 0.3, {"schedule": [Command(0.0, "stand", 0.0), Command(0.3, "ds_walk", 0.3)],
                                 "turn_rate": 0.2}),
    ("gorilla", "trot", 0.4, {"path": WaypointPath(np.array([[0.0, 0.0], [0.4, 0.0], [0.4, 1.0]]), speed=0.4)}),
    ("dog", "trot", 0.6, {})], ids=["gorilla-schedule-turn", "gorilla-path", "dog-trot"])
def test_compiled_tick_matches_the_python_reference(key, gait, speed, kw):
    """2.5 s from rest (the gorilla standing, then walking and turning;
    trotting along a path; the dog trotting). Every tick's gait state and
    modes must agree exactly, and its outputs to 1e-9 but for at most one
    tick in a hundred: the limb IK keeps the nearer of two knee solutions,
    and at a near-tie the last bit of another CPU's arithmetic (numba's
    generic target) can pick the other one for a tick (the gorilla's path
    at 2.34 s under NUMBA_CPU_NAME=generic; the next tick agrees again)."""
    ctrl, m, d = _start(key, gait, speed, **kw)
    nstep = int(round(ctrl.control_dt / m.opt.timestep))
    swings, flips = 0, []
    for _ in range(250):  # 2.5 s
        t = float(d.time)
        saved = (ctrl.S.copy(), ctrl.ints.copy(), ctrl.commander.speed, ctrl.commander.heading,
                 m.qpos_spring.copy(), m.jnt_stiffness.copy(), m.dof_damping.copy())
        ctrl.compute(m, d)
        compiled = _outputs(ctrl, m, d)
        ctrl.S[:], ctrl.ints[:], ctrl.commander.speed, ctrl.commander.heading = saved[:4]
        m.qpos_spring[:], m.jnt_stiffness[:], m.dof_damping[:] = saved[4:]
        d.qfrc_applied[:] = 0.0
        ctrl.compute_reference(m, d)
        expected = _outputs(ctrl, m, d)
        assert compiled["state"] == expected["state"], t
        np.testing.assert_array_equal(compiled["ints"], expected["ints"], err_msg=f"modes at t = {t:.2f} s")
        try:
            for k in ("spring", "qfrc", "floats", "stiffness", "damping"):
                _close(compiled[k], expected[k], k, t)
        except AssertionError as exc:
            flips.append(exc)
        swings += int((ctrl.mode == T.SWING).sum())
        mujoco.mj_step(m, d, nstep=nstep)
    assert len(flips) <= 2, flips[0]  # at most 1 % of the 250 ticks
    assert swings > 100  # the limbs did swing: both branches of the tick were compared
    if kw:
        assert abs(ctrl.commander.heading) > 0.2  # and turned
    assert ctrl.fall_check(d) is None


@pytest.mark.parametrize("key", ["gorilla", "dog"])
def test_compiled_jacobian_torques_match_mujoco(key):
    """push_from_site and hold_up against mj_jacSite / mj_jacBodyCom
    (``vforce.VirtualForces``) at a disturbed pose."""
    ctrl, m, d = _start(key, "stand", 0.0)
    rng = np.random.default_rng(3)
    d.qpos[7:] += rng.normal(scale=0.2, size=m.nq - 7)
    for i in range(m.njnt):  # keep ball joints' quaternions unit
        if m.jnt_type[i] == mujoco.mjtJoint.mjJNT_BALL:
            a = m.jnt_qposadr[i]
            d.qpos[a:a + 4] /= np.linalg.norm(d.qpos[a:a + 4])
    mujoco.mj_forward(m, d)
    LI, LW, anc = ctrl._static[:3]
    u = np.empty((3, 3))
    for i, limb in enumerate(ctrl.order):
        force = rng.normal(size=3) * 100.0
        got, expected = np.zeros(m.nv), np.zeros(m.nv)
        vforce.push_from_site(LI, anc, i, d.site_xpos[limb.site], force, d.xanchor, d.xaxis, d.xmat, u, got)
        ctrl.vf.at_site(d, limb, force, expected)
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-9)
        got[:], expected[:] = 0.0, 0.0
        vforce.hold_up(LI, LW, anc, i, 0.7, d.xipos, d.xanchor, d.xaxis, d.xmat, u, got)
        ctrl.vf.gravity(d, limb, expected, 0.7)
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-9)


def test_dual_wrench_distribution_matches_the_normal_equations():
    """support.distribute_into (6 × 6 dual system, by hand) and
    support._distribute (3n normal equations, LAPACK) give the same forces."""
    from gaitforge.control.skills.support import _distribute, distribute_into

    rng = np.random.default_rng(5)
    for n in range(5):
        for _ in range(20):
            feet = rng.normal(scale=0.4, size=(n, 3))
            force, torque = rng.normal(size=3) * [50, 50, 300] + [0, 0, 800], rng.normal(size=3) * 40
            expected = _distribute(feet, force, torque, 0.7, 5.0, 900.0, 0.02)
            got = np.full((4, 3), np.nan)
            padded = np.zeros((4, 3))
            padded[:n] = feet
            distribute_into(padded, n, force, torque, 0.7, 5.0, 900.0, 0.02, got)
            np.testing.assert_allclose(got[:n], expected, rtol=1e-9, atol=1e-9)
            assert np.isnan(got[n:]).all()


def _walk(key: str, gait: str, speed: float, seconds: float, compiled: bool):
    character = Character.from_spec(build(key))
    ctrl = catalog.RUNNERS[key].make(character, gait, speed)
    if not compiled:
        ctrl.compute = ctrl.compute_reference  # type: ignore[method-assign]
    rollout = run(character, ctrl, seconds)
    assert rollout.fall is None, f"{key} {gait} ({'compiled' if compiled else 'reference'}): {rollout.fall}"
    return check(character, rollout, settle=4.0)


@pytest.mark.slow
@pytest.mark.parametrize("key, gait, speed, fore_duty_tol, hind_duty_tol", [
    ("gorilla", "ds_walk", 0.3, 0.08, 0.08), ("gorilla", "trot", 0.4, 0.08, 0.08),
    ("dog", "walk", 0.3, 0.05, 0.1), ("dog", "trot", 0.6, 0.05, 0.05)])
def test_compiled_tick_keeps_the_footfalls_and_speed_of_the_reference(key, gait, speed, fore_duty_tol,
                                                                       hind_duty_tol):
    """30 s with each tick: the same gait, footfall sequence and beats,
    speed within 10 % of the command and 3 % of each other, duty factors
    within 0.05, the dog's walking hind paws' within 0.1 and the gorilla's
    within 0.08 (the runs part ways after a while: the dynamics are chaotic.
    Over 11 s windows the gorilla's DS walk at 0.3 m/s measured 0.301–0.311
    m/s in runs that differ only by roundoff (dense or sparse constraint
    Jacobian); over 26 s, 0.299–0.302. The dog's hind paws touch and lift
    more than once in a walking stance: six starts of its compiled walk at
    0.3 m/s, joints moved by at most 0.001 rad, measured their duty factors
    at 0.541–0.619 and 0.511–0.545, its fore paws' at 0.700–0.705. The
    gorilla's knuckles and feet, landing on its 3 ms contacts, spread as
    wide: eight such starts of its trot at 0.4 m/s measured 0.570–0.635 for a
    fore foot, of its DS walk at 0.3 m/s 0.542–0.595)."""
    fast, slow = _walk(key, gait, speed, 30.0, True), _walk(key, gait, speed, 30.0, False)
    assert (fast.gait, fast.sequence, fast.beats) == (slow.gait, slow.sequence, slow.beats)
    assert fast.gait == ("trot" if gait == "trot" else "walk")
    assert abs(fast.speed - speed) < 0.1 * speed and abs(fast.speed - slow.speed) < 0.03 * speed
    m = slow.metrics
    for foot, duty in m.duty_factor.items():
        tol = hind_duty_tol if m.limbs[foot] == "rear" else fore_duty_tol
        assert fast.metrics.duty_factor[foot] == pytest.approx(duty, abs=tol), foot


@pytest.mark.parametrize("key, gait, speed", [("dog", "walk", 0.35), ("gorilla", "ds_walk", 0.5)])
def test_every_limb_steps_every_stride_while_the_gait_speeds_up(key, gait, speed):
    """Speeding up from standing moves each limb's lift phase (its swing
    widens with speed): the dog's front left from 0.0 toward 0.9 of the
    cycle, across 0. A limb must still lift once in every cycle. Counting
    cycles as floor(phase - lift) skipped one: the dog's front left foot
    stayed planted for a stride at 1 s, and the walk nosed down."""
    character = Character.from_spec(build(key))
    ctrl = catalog.RUNNERS[key].make(character, gait, speed)
    rollout = run(character, ctrl, 5.0)
    assert rollout.fall is None
    swing = np.array([[c == "W" for c in s.split(":")[1]] for s in rollout.states if ":" in s])
    t = rollout.times[-len(swing):]
    g = catalog.params(key).gaits[gait]
    longest = max(g.stride(0.0), g.stride(speed))  # s: the stride from standing or at the speed asked
    for limb in range(4):
        lifts = t[1:][np.diff(swing[:, limb].astype(int)) == 1]
        gaps = np.diff(np.concatenate([[0.0], lifts]))  # the first from the start
        assert len(lifts) >= int(5.0 / longest) - 1 and gaps.max() < 1.3 * longest, (limb, gaps)
