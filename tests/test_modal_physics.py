"""Physically trustworthy modal control: nothing but joint torques drives the
creature (a monitor around every ``mj_step``), the joint drive is MuJoCo's own
spring torque limited per joint, modal impulses are torque pulses that leave
the root's momentum alone, the physics is declared in one place, and the
cycle residual compares states at cycle starts (0: repeating, √2:
unrelated)."""
import copy
import dataclasses
import math

import mujoco
import numpy as np
import pytest

from gaitforge.control.modal import modal_controller, run_recipe, simulate_modal
from gaitforge.control.modal.drive import CLIPPED_STEPS, OVER_SPEED_STEPS, drive_torques
from gaitforge.control.modal.measures import CYCLIC_TOLERANCE, cycle_residual, summarize
from gaitforge.control.modal.physics import PHYSICS, ModalPhysics, limits, physics_for
from gaitforge.control.modal.presets import RAMP, hand_set
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.modal import compute_modes
from gaitforge.motion import heuristics
from gaitforge.motion.recipe import GaitRecipe, GaitTerm, ModalImpulse, ModalStart

G = 9.81


@pytest.fixture(scope="module")
def worm():
    ch = Character.from_spec(registry.build("worm"))
    return ch, compute_modes(ch, count=4)


@pytest.fixture(scope="module")
def loop():
    ch = Character.from_spec(registry.build("loop"))
    return ch, compute_modes(ch, count=4)


@pytest.fixture(scope="module")
def dog():
    ch = Character.from_spec(registry.build("dog"))
    return ch, compute_modes(ch, count=heuristics.POOL)


def kicked_worm():
    base = hand_set("worm")
    return GaitRecipe("kicked", "worm", base.terms, impulses=(ModalImpulse(2, 0.3, 0.25), ModalImpulse(0, -0.2, 0.6)),
                      initial=(ModalStart(0, 0.0, -0.2),))  # an offset would bend the ends into the ground


def kicked_bound(dog_basis, dog_character):
    bound = heuristics.suggest(dog_character, "bound", dog_basis)
    return dataclasses.replace(bound, impulses=(ModalImpulse(0, 0.07, 0.27), ModalImpulse(2, -0.87, 0.58)))


# ------------------------------------------------------------------ the monitor
class StepMonitor:
    """Wraps ``mujoco.mj_step``: steps one at a time and records, per step,
    the generalized force on the free joint that is neither constraint
    (contacts), passive nor inertial — M a + bias − constraint − passive on
    the root's 6 rows, i.e. whatever pushed the root — and whether qpos or
    qvel changed between the end of one step and the start of the next."""

    def __init__(self, real):
        self.real = real
        self.force = self.torque = 0.0  # largest root residual: force rows [N], torque rows [N m]
        self.jumps, self.steps = 0, 0
        self._last = None

    def __call__(self, m, d, nstep=1):
        for _ in range(nstep):
            if self._last is not None and not (np.array_equal(self._last[0], d.qpos)
                                               and np.array_equal(self._last[1], d.qvel)):
                self.jumps += 1
            self.real(m, d)
            ma = np.zeros(m.nv)
            mujoco.mj_mulM(m, d, ma, d.qacc)  # M and qacc of the state this step started from
            root = (ma + d.qfrc_bias - d.qfrc_constraint - d.qfrc_passive)[:6]
            self.force = max(self.force, float(np.abs(root[:3]).max()))
            self.torque = max(self.torque, float(np.abs(root[3:]).max()))
            self.steps += 1
            self._last = (d.qpos.copy(), d.qvel.copy())


@pytest.fixture
def monitor(monkeypatch):
    mon = StepMonitor(mujoco.mj_step)
    monkeypatch.setattr(mujoco, "mj_step", mon)  # the runner calls mujoco.mj_step
    return mon


def _assert_joint_torques_only(mon, character, seconds, timestep, length):
    mg = character.mass * G
    assert mon.steps == round(seconds / timestep)  # every physics step was watched
    assert mon.force < 1e-3 * mg and mon.torque < 1e-3 * mg * length  # nothing pushed the root
    assert mon.jumps == 0  # nothing wrote the state between steps


def test_only_joint_torques_drive_the_kicked_worm(worm, monitor):
    ch, basis = worm
    r = run_recipe(ch, kicked_worm(), 1.0, basis=basis, ramp=RAMP)
    assert r.ok, r.divergence
    _assert_joint_torques_only(monitor, ch, 1.0, PHYSICS["worm"].timestep, r.body_length)


def test_only_joint_torques_drive_the_kicked_bound(dog, monitor):
    """The dog's bound with the impulses of the former optimized bound (one of
    them 0.87 modal units): ball joints, harmonics, torque pulses."""
    ch, basis = dog
    r = run_recipe(ch, kicked_bound(basis, ch), 0.6, basis=basis, ramp=RAMP)
    assert r.ok, r.divergence
    _assert_joint_torques_only(monitor, ch, 0.6, PHYSICS["dog"].timestep, r.body_length)


class _Writer:
    """A controller that breaks the rule: ``what`` = qvel writes the state,
    root pushes the free joint."""

    state = "bad"
    control_dt = 0.002

    def __init__(self, what):
        self.what = what

    def reset(self, model, data):
        pass

    def compute(self, model, data):
        if self.what == "qvel":
            data.qvel[8] += 0.01
        else:
            data.qfrc_applied[0] = 0.01 * 9.81


@pytest.mark.parametrize("what", ["qvel", "root"])
def test_the_monitor_catches_what_it_must(worm, monitor, what):
    ch, _ = worm
    simulate_modal(ch, _Writer(what), 0.2)
    if what == "qvel":
        assert monitor.jumps > 0
    else:
        assert monitor.force == pytest.approx(0.01 * 9.81, rel=1e-6)


# ------------------------------------------------------------------ the drive
@pytest.mark.parametrize("name", ["loop", "dog"])
def test_the_drive_computes_mujocos_own_spring_torque(name, loop, dog):
    """The torque the drive limits is the one MuJoCo applies: hinges, the
    loop's closure tendon, the dog's ball joints (references moved, a
    perturbed state)."""
    ch, basis = loop if name == "loop" else dog
    recipe = hand_set("loop") if name == "loop" else heuristics.suggest(ch, "bound", basis)
    ctl = modal_controller(ch, basis, recipe)
    m = copy.copy(ch.model)
    ctl.prepare_model(m)
    d = mujoco.MjData(m)
    d.qpos[:] = ch.rest_qpos
    rng = np.random.default_rng(3)
    mujoco.mj_integratePos(m, d.qpos, np.r_[np.zeros(6), 0.2 * rng.standard_normal(m.nv - 6)], 1.0)
    d.qvel[:] = 0.0
    ctl.reset(m, d)
    d.time = 0.83
    ctl._apply(m, 0.83)
    ctl.drive.step(m, d, None)
    mujoco.mj_forward(m, d)
    joints = np.arange(6, m.nv)
    f = ctl.drive.spring_torque()
    np.testing.assert_allclose(f[joints], d.qfrc_spring[joints], atol=1e-9, rtol=1e-9)
    # where the spring pulls harder than the limit, the drive takes the excess back; elsewhere it adds nothing
    tau = ctl.limits.torque
    np.testing.assert_allclose(d.qfrc_applied[joints], np.clip(f, -tau, tau)[joints] - f[joints], atol=1e-9)
    assert not d.qfrc_applied[:6].any()


def test_the_drive_limits_torque_and_drives_nothing_past_the_speed_limit():
    """One hinge: the torque is clipped to ±τ_max; along the motion it fades
    from full at 90 % of ω_max to none at ω_max; braking stays allowed."""
    def drive(spring_pull, w, tau_max=2.0, w_max=40.0, impulse=0.0):
        qpos, qvel = np.array([0.0]), np.array([w])
        spring = np.array([spring_pull])  # k = 1: the spring's torque is the reference's offset
        applied, f, fr, stats = np.zeros(1), np.zeros(1), np.zeros(1), np.zeros(5)
        no = np.zeros(0, np.int64)
        drive_torques(qpos, qvel, spring, np.zeros((0, 2)), np.array([0]), np.array([0]), np.array([1.0]),
                      np.array([0.0]), no, no, np.zeros(0), np.zeros((0, 4)), np.zeros((0, 1)), np.zeros(0),
                      np.zeros(0), np.array([impulse]), tau_max, w_max, applied, f, fr, stats)
        return f[0] + applied[0], stats

    assert drive(1.5, 0.0)[0] == 1.5
    tau, stats = drive(5.0, 0.0)
    assert tau == 2.0 and stats[CLIPPED_STEPS] == 1 and stats[0] == 2.0 and stats[2] == 5.0
    assert drive(-5.0, 0.0)[0] == -2.0
    assert drive(1.5, 0.0, impulse=1.0)[0] == 2.0  # the impulse torque counts against the limit too
    assert drive(1.5, 35.0)[0] == 1.5  # under 90 % of the speed limit: full torque
    assert drive(1.5, 38.0)[0] == pytest.approx(1.0)  # half way through the taper: half of τ_max
    tau, stats = drive(1.5, 41.0)
    assert tau == 0.0 and stats[OVER_SPEED_STEPS] == 1  # over the limit: no drive along the motion
    assert drive(-1.5, 41.0)[0] == -1.5  # ... but it may brake


def test_limits_are_reported_and_enforced(worm):
    ch, basis = worm
    weak = dataclasses.replace(physics_for(ch), torque_limit=0.01)
    r = run_recipe(ch, hand_set("worm"), 1.0, basis=basis, physics=weak)
    s = summarize(r, ch.mass)
    assert r.limits.torque == pytest.approx(0.01 * ch.mass * G * r.body_length)
    assert s.peak_torque <= 0.01 * (1 + 1e-12) and s.limited > 0.1
    assert r.peaks["demand"] > r.peaks["torque"]
    strict = run_recipe(ch, hand_set("worm"), 3.0, basis=basis, physics=dataclasses.replace(weak, speed_limit=1.0),
                        strict_limits=True)
    assert strict.over_limit and strict.divergence.reason.startswith("a joint turned at ")
    assert strict.divergence.reason.endswith("rad/s, over its 1 rad/s limit")
    assert str(strict.divergence).startswith("went over a limit at t = ")


# ------------------------------------------------------------------ impulses
def test_an_impulse_is_a_torque_pulse_that_keeps_the_roots_momentum(worm):
    """In zero gravity, off the ground: each impulse is J / W on the joints for
    W = impulse_window, J = M u s with the root's rows zero. The creature's
    linear momentum then changes only by the integrator's error, which
    halves with the step (first order); writing q̇ += u s, as impulses once
    did, added (M u s) on the root's rows, ~0.11 kg m/s a kick at any step."""
    ch, basis = worm
    recipe = GaitRecipe("k", "worm", (GaitTerm(0, 0.0, 0.0, 5.0),),
                        impulses=(ModalImpulse(2, 0.3, 0.25), ModalImpulse(1, -0.2, 0.5)))

    def drift(dt):
        ctl = modal_controller(ch, basis, recipe, timestep=dt)
        m = copy.copy(ch.model)
        ctl.prepare_model(m)
        m.opt.gravity[:] = 0.0
        d = mujoco.MjData(m)
        d.qpos[:] = ch.rest_qpos
        d.qpos[2] += 1.0  # a metre up: no contact
        ctl.reset(m, d)

        def momentum():  # the free joint's rows of M q̇: the linear momentum [kg m/s]
            mujoco.mj_forward(m, d)
            mq = np.zeros(m.nv)
            mujoco.mj_mulM(m, d, mq, d.qvel)
            return mq[:3]

        p0, worst, pulsed = momentum(), 0.0, 0
        for _ in range(round(0.4 / dt)):  # impulses at 0.05 and 0.1 s, again at 0.25 and 0.3 s
            ctl.compute(m, d)
            assert not d.qfrc_applied[:6].any()
            if d.qfrc_applied.any():
                if pulsed == 0:  # the first step of the first pulse: J / W
                    J = np.zeros(m.nv)
                    mujoco.mj_mulM(m, d, J, 0.3 * basis.shapes[:, 2])
                    np.testing.assert_allclose(d.qfrc_applied[6:] * ctl.physics.impulse_window, J[6:], rtol=1e-9,
                                               atol=1e-12)
                pulsed += 1
            mujoco.mj_step(m, d)
            worst = max(worst, float(np.abs(momentum() - p0).max()))
        assert pulsed == 4 * round(ctl.physics.impulse_window / dt)  # four pulses of W each
        return worst

    coarse, fine = drift(0.0005), drift(0.000125)
    assert fine < 0.3 * coarse and fine < 0.02  # kg m/s: first order in the step, a fraction of one old kick


# ------------------------------------------------------------------ physics as data
def test_each_modal_creature_declares_converged_physics():
    for name, p in PHYSICS.items():
        assert p.solref[0] >= 2 * p.timestep and p.integrator == "implicitfast"
        assert p.torque_limit == 3.0 and p.speed_limit == 40.0 and p.why.startswith("L: ")
    assert physics_for("worm", 0.0001).timestep == 0.0001
    assert physics_for("worm", 0.0001).solref == PHYSICS["worm"].solref  # the contact model stays
    with pytest.raises(GaitforgeError) as e:
        physics_for("worm", 0.004).apply(copy.copy(Character.from_spec(registry.build("worm")).model))
    assert str(e.value) == ("the contact time constant 2 ms must be at least twice the step (4 ms): MuJoCo would "
                            "stiffen it silently")
    with pytest.raises(GaitforgeError) as e:
        ModalPhysics(0.0)
    assert str(e.value) == "timestep must be from 1e-05 to 0.05 s, got 0.0"


def test_a_run_integrates_with_the_declared_physics(worm):
    ch, basis = worm
    r = run_recipe(ch, hand_set("worm"), 0.2, basis=basis, timestep=0.0001)
    ph = r.rollout.physics
    assert ph.timestep == 0.0001 and ph.integrator == "implicitfast" and ph.solref == PHYSICS["worm"].solref
    assert ch.model.opt.timestep == 0.002  # the character's own model is untouched
    lim = limits(ch, PHYSICS["worm"])
    assert lim.length == pytest.approx(r.body_length) and lim.speed == 40.0


# ------------------------------------------------------------------ cycle residual
def test_the_cycle_residual_is_zero_for_repeating_cycles_and_root_two_for_unrelated_ones(dog):
    """The suggested bound settles into a limit cycle (residual near 0). The
    same rollout with its cycle-start states replaced by states drawn at
    random from its frames gives √2 on average (independent draws)."""
    ch, basis = dog
    r = run_recipe(ch, heuristics.suggest(ch, "bound", basis), 8.0, basis=basis, timestep=0.0005)
    assert r.ok
    assert cycle_residual(r) < 0.25 * CYCLIC_TOLERANCE
    rng = np.random.default_rng(0)
    values = []
    window = np.flatnonzero(r.clip.times >= r.cycle_times[-6] - 1e-9)  # the frames the spreads come from
    for _ in range(40):
        pick = rng.choice(window, len(r.cycle_times))
        fake = dataclasses.replace(r, cycle_qpos=r.clip.qpos[pick], cycle_qvel=r.qvel[pick])
        values.append(cycle_residual(fake))
    assert np.mean(np.square(values)) == pytest.approx(2.0, rel=0.25)


def test_the_cycle_residual_refuses_a_period_it_did_not_sample(loop):
    ch, basis = loop
    r = run_recipe(ch, hand_set("loop"), 3.0, basis=basis, timestep=0.001)
    P = 1 / 5.26
    assert math.isfinite(cycle_residual(r, 2 * P))
    with pytest.raises(GaitforgeError) as e:
        cycle_residual(r, 1.5 * P)
    assert str(e.value).startswith("the rollout kept its state every 0.190114 s; a period of 0.285171 s")
    assert cycle_residual(r, P, cycles=100) == math.inf  # fewer cycle starts than asked
