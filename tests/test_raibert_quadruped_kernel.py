"""The compiled control tick of the RH91 quadruped (quadruped_kernel,
quadruped_tick, the allocation kernels of virtual_legs): each kernel's
compiled form against its interpreted original on inputs recorded from real
runs, a rollout with every kernel interpreted against the compiled one, and
the bookkeeping that the tick leaves to Python (the PhaseMachine record, the
stance timers, how often a tick goes back to Python)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from gaitforge.jit import JIT_ENABLED
from gaitforge.control.raibert import quadruped as Q
from gaitforge.control.raibert.quadruped import kernel as K
from gaitforge.control.raibert.quadruped import legs as quadruped_legs
from gaitforge.control.raibert.quadruped import tick as quadruped_tick
from gaitforge.control.raibert.quadruped import virtual_legs as virtual_legs
from gaitforge.control.raibert.fsm import Phase
from gaitforge.control.paths import WaypointPath
from gaitforge.creatures.character import Character
from gaitforge.creatures.registry import build
from gaitforge.sim import run

jit_only = pytest.mark.skipif(not JIT_ENABLED, reason="kernels are interpreted (GAITFORGE_NO_JIT)")
MODULES = (virtual_legs, K, quadruped_tick, quadruped_legs, Q)
# trot, then bound from 1 s, then gallop from 2 s (from the bound: staggered at once)
SCHEDULE = [(1.0, "bound", 1.9), (2.0, "gallop", 1.4)]  # the gallop's range ends at 1.4 m/s
# The recording's: the trot at 2.2 m/s until 1.5 s (since the 2 ms step, the first tick whose stance
# allocation goes through one leg of a pair comes at 1.13 s of a 2.2 m/s trot), its contacts at the
# creature's 20 ms: at the trot's own 6 ms a pair's legs land at the same tick, and no tick of this
# recording allocates through one leg of a pair
RECORDED = [(1.5, "bound", 1.9), (2.5, "gallop", 1.4)]
RECORDED_TROT_CONTACTS = 0.02


@pytest.fixture(scope="module")
def quad() -> Character:
    return Character.from_spec(build("raibert_quadruped"))


def rollout(quad, seconds, gait="trot", speed=2.0, spy=None, **options):
    """qpos (T, nq) and state labels after each tick (run by ``sim.run``,
    recording every tick), and the controller; the speed as asked, above
    the trot's range too (these tests cover the kernels, not the ranges)."""
    ctl = Q.make_controller(quad, gait, speed, clamp=False, **options)
    r = run(quad, ctl, seconds, record_fps=1.0 / ctl.control_dt, fall_check=None)
    # (sim.run records before each tick: the first frame is the start)
    return r.clip.qpos[1:], list(r.states[1:]), ctl


@pytest.fixture(scope="module")
def recorded(quad):
    """The arguments of every tick (F, I, qpos, qvel, site_xpos, qpos_spring,
    qfrc_applied, jnt_stiffness, dof_damping, t) of a 3.5 s trot-bound-gallop
    run, copied before the tick."""
    snaps = []
    real = Q.compiled_tick

    def spy(*args):
        if not args[-1]:  # the first call of a tick
            snaps.append(tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args[:-1]))
        return real(*args)
    Q.compiled_tick = spy
    try:
        rollout(quad, 3.5, speed=2.2, schedule=RECORDED, contact_timeconst=RECORDED_TROT_CONTACTS)
    finally:
        Q.compiled_tick = real
    return snaps


def same(fn, *args):
    """Run the compiled ``fn`` and its interpreted original on copies of the
    same arguments; the results and every array written must agree to 1e-12."""
    a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    b = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    assert fn(*a) == fn.py_func(*b)
    for x, y in zip(a, b):
        if isinstance(x, np.ndarray) and not np.array_equal(x, y, equal_nan=True):  # (the quick check first)
            np.testing.assert_allclose(x, y, rtol=0.0, atol=1e-12)


def attitude(q):
    """roll, pitch [rad] and the rotation matrix entries R[2,0], R[2,1] of the trunk."""
    w, x, y, z = q[3:7]
    r6, r7 = 2.0 * (x * z - w * y), 2.0 * (y * z + w * x)
    return math.atan2(r7, 1.0 - 2.0 * (x * x + y * y)), -math.asin(r6), r6, r7


def test_recording_covers_every_phase_gait_and_staggered_legs(recorded):
    ints = np.array([s[1] for s in recorded])
    assert set(ints[:, K.I_PHASE]) == {K.FLIGHT, K.LOADING, K.COMPRESSION, K.THRUST, K.UNLOADING}
    assert set(map(tuple, ints[:, K.I_PAIRS:K.I_PAIRS + 4])) == {(0, 3, 1, 2), (0, 1, 2, 3), (0, 1, 3, 2)}
    assert ints[:, K.I_STAGGERED].any() and (ints[:, K.I_LEG_PHASE:K.I_LEG_PHASE + 4] == K.THRUST).any()
    # the stance servo through none, one (gallop) or both legs of a pair; allocations over none, one (a
    # pair's legs touching at different ticks) or both
    assert set(ints[:, K.I_SERVO_N]) == {-1, 0, 1, 2} and set(ints[:, K.I_ALLOC_N]) == {0, 1, 2}


@jit_only
def test_tick_kernels_match_their_interpreted_originals(recorded):
    for F, ints, q, v, sites, spring, frc, stiff, damp, t in recorded:
        for after_liftoff in (False, True):
            same(quadruped_tick.tick, F, ints, q, v, sites, spring, frc, stiff, damp, t, after_liftoff)
        same(quadruped_tick.touchdown, F, ints, q, t)
        same(quadruped_tick.liftoff, F, ints, t)
        same(quadruped_tick.start_flight, F, ints, stiff, damp, frc, t)


@jit_only
def test_leg_kernels_match_their_interpreted_originals(recorded):
    for F, ints, q, v, _, spring, frc, stiff, damp, t in recorded[::3]:
        roll, pitch, r6, r7 = attitude(q)
        a0, a1 = ints[K.I_PAIRS + 2 * ints[K.I_ACTIVE]:][:2]
        for flag in (False, True):
            same(K.place, F, ints, q, v, spring, t, r6, r7, a0, a1, flag)
            same(K.idle_legs, F, ints, q, spring, roll, pitch, r6, r7, a0, a1, flag)
            for leg in (a0, a1):
                same(K.leg_cycle, F, ints, q, spring, frc, stiff, damp, leg, v[ints[K.I_SLIDE_D + leg]], flag)
                same(K.set_mode, F, ints, stiff, damp, frc, leg, int(flag))
        for t0, t1 in ((True, True), (True, False), (False, True), (False, False)):
            same(K.posture, F, ints, q, v, frc, roll, pitch, a0, a1, t0, t1)
        for n in range(3):
            same(K.allocate, F, ints, q, n, a0, a1)


@jit_only
def test_allocation_kernels_match_their_interpreted_originals(recorded):
    for F, ints, q, _, _, _, _, _, _, _ in recorded[::10]:
        P = F[K.F_HIP:K.F_HIP + 12].reshape(4, 3)
        hips, slides = ints[K.I_HIP_Q:K.I_HIP_Q + 4], ints[K.I_SLIDE_Q:K.I_SLIDE_Q + 4]
        angles = np.array([q[h:h + 2] for h in hips])  # hip rx, ry of each leg [rad]
        lengths = K.LEG_LENGTH + q[slides]
        for legs in ((0,), (1, 2), (0, 1, 2, 3)):
            same(virtual_legs.torque_map_into, P[list(legs)], angles[list(legs)], lengths[list(legs)],
                 np.zeros((2 * len(legs), 3)))
            same(virtual_legs.torque_allocation_into, P[list(legs)], angles[list(legs)], lengths[list(legs)],
                 1e-3, np.zeros((2 * len(legs), 3)))


@jit_only
def test_rollout_unchanged_with_every_kernel_interpreted(quad, monkeypatch):
    q_jit, s_jit, c_jit = rollout(quad, 3.0, schedule=SCHEDULE)
    for module in MODULES:
        for name, obj in list(vars(module).items()):
            if hasattr(obj, "py_func"):
                monkeypatch.setattr(module, name, obj.py_func)
    assert not hasattr(Q.compiled_tick, "py_func") and not hasattr(quadruped_tick.place, "py_func")
    q_py, s_py, c_py = rollout(quad, 3.0, schedule=SCHEDULE)
    assert np.max(np.abs(q_jit - q_py)) < 1e-9
    assert s_jit == s_py and c_jit.events == c_py.events
    assert [g for _, g in c_py.events] == ["trot", "bound", "gallop"]
    assert c_jit.fsm.history == c_py.fsm.history


def test_phase_machine_record_and_timers_follow_the_tick(quad):
    """The tick logs its phase changes and keeps the stance timers; Python's
    PhaseMachine and StanceTimer views agree with what the tick did."""
    _, states, ctl = rollout(quad, 4.0, gait="bound")
    fsm = ctl.fsm
    phases = [p for _, p in fsm.history]
    assert fsm.phase is phases[-1] and fsm.phase.value == states[-1].split(":")[2]
    assert fsm.steps == phases.count(Phase.FLIGHT) > 15
    times = [t for t, _ in fsm.history]
    assert times == sorted(times) and int(ctl._F[K.F_LOG_N]) == 0
    cycle = [Phase.FLIGHT, Phase.LOADING, Phase.COMPRESSION, Phase.THRUST, Phase.UNLOADING]
    for a, b in zip(phases, phases[1:]):  # each change is the next phase, or a liftoff
        assert b is cycle[(cycle.index(a) + 1) % 5] or b is Phase.FLIGHT
    # The pair that lifted off last: its timer's stance is the last LOADING-to-FLIGHT interval.
    lo = max(k for k, p in enumerate(phases) if p is Phase.FLIGHT)
    td = max(k for k, p in enumerate(phases[:lo]) if p is Phase.LOADING)
    timer = ctl.timers[1 - ctl.active]
    assert timer.last_stance == pytest.approx(times[lo] - times[td], abs=1e-12)
    assert timer.liftoff_time == times[lo] and timer.touchdown_time is None


def test_liftoffs_go_to_python_only_for_commands_or_the_log(quad, monkeypatch):
    calls = []
    real = Q.QuadrupedRunner._commands

    def spy(self, t):
        calls.append(t)
        real(self, t)
    monkeypatch.setattr(Q.QuadrupedRunner, "_commands", spy)
    _, _, ctl = rollout(quad, 12.0, gait="trot", speed=1.5)
    steps = ctl.fsm.steps
    assert steps > 30 and 0 < len(calls) <= steps // ((K.LOG_SIZE - 5) // 5)  # only to copy the log out
    calls.clear()
    _, _, ctl = rollout(quad, 2.0, gait="trot", speed=1.5, schedule=[(1.0, "bound", 1.5)])
    assert ctl.events[1][1] == "bound" and ctl.events[1][0] in calls and 1.0 <= ctl.events[1][0] < 1.5
    calls.clear()
    path = WaypointPath(np.array([(0.0, 0.0), (20.0, 0.0)]), loop=False)
    _, _, ctl = rollout(quad, 2.0, gait="trot", speed=1.5, path=path)
    assert len(calls) == ctl.fsm.steps > 5  # a path is followed at every liftoff
