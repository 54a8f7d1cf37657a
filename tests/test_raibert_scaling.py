"""Dynamic scaling (RH91 Table 1): scaled specs, contacts and gains, and the
kangaroo scaled by L = 2 hopping L times as high, √L as fast, at 1/√L cadence."""
import copy
import dataclasses
import math

import mujoco
import numpy as np
import pytest

from gaitforge.control.raibert import catalog
from gaitforge.control.raibert import kangaroo as K
from gaitforge.control.raibert.footmodel import KANGAROO_PAD
from gaitforge.control.raibert.scaled import scale_gains, scale_model_contacts, scale_spec, scaled_hop
from gaitforge.creatures import registry
from gaitforge.creatures.builders.simple import loop_creature
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.sim.runner import run

L = 2.0


@pytest.mark.parametrize("name", ["kangaroo", "raibert_biped", "raibert_quadruped"])
def test_spec_scales_by_table1(name):
    spec = registry.build(name)
    big = scale_spec(spec, L)
    a, b = Character.from_spec(spec), Character.from_spec(big)
    assert b.mass == pytest.approx(a.mass * L ** 3)
    real = a.model.body_inertia > 1e-8  # the compiler floors zero moments at 1e-9 (quadruped legs)
    np.testing.assert_allclose(b.model.body_inertia[real], a.model.body_inertia[real] * L ** 5, rtol=1e-9)
    np.testing.assert_allclose(b.model.body_ipos, a.model.body_ipos * L, atol=1e-12)
    assert b.height == pytest.approx(a.height * L)
    assert b.model.opt.timestep == pytest.approx(a.model.opt.timestep * math.sqrt(L))
    slide = b.model.jnt_type == mujoco.mjtJoint.mjJNT_SLIDE
    ratio_k = np.divide(b.model.jnt_stiffness, a.model.jnt_stiffness, where=a.model.jnt_stiffness > 0,
                        out=np.full(b.model.njnt, np.nan))
    np.testing.assert_allclose(ratio_k[slide & ~np.isnan(ratio_k)], L ** 2)   # N/m
    np.testing.assert_allclose(ratio_k[~slide & ~np.isnan(ratio_k)], L ** 4)  # N m/rad
    damped = a.model.dof_damping > 0
    lin = slide[a.model.dof_jntid]
    np.testing.assert_allclose((b.model.dof_damping / np.where(damped, a.model.dof_damping, 1))[damped & lin], L ** 2.5)
    np.testing.assert_allclose((b.model.dof_damping / np.where(damped, a.model.dof_damping, 1))[damped & ~lin],
                               L ** 4.5)
    np.testing.assert_allclose(b.model.site_pos, a.model.site_pos * L, atol=1e-12)


def test_coupling_springs_and_bad_factors():
    ring = loop_creature()
    big = scale_spec(ring, 3.0)
    assert big.springs[0].stiffness == pytest.approx(ring.springs[0].stiffness * 3.0 ** 4)
    with pytest.raises(GaitforgeError, match=r"^scale factor L must be a positive number, got -1$"):
        scale_spec(ring, -1)


def test_contacts_and_gains_scale():
    m = copy.copy(Character.from_spec(registry.build("kangaroo")).model)
    ref = copy.copy(m)
    scale_model_contacts(m, 4.0)
    np.testing.assert_allclose(m.geom_solref[:, 0], ref.geom_solref[:, 0] * 2.0)
    np.testing.assert_allclose(m.geom_solimp[:, 2], ref.geom_solimp[:, 2] * 4.0)
    np.testing.assert_allclose(m.geom_friction[:, 0], ref.geom_friction[:, 0])
    g = K.KangarooGains()
    s = scale_gains(g, 4.0)
    assert (s.k_x, s.control_dt, s.start_speed, s.accel) == pytest.approx(
        (g.k_x * 2, g.control_dt * 2, g.start_speed * 2, g.accel))
    assert (s.posture_kp, s.posture_kv) == pytest.approx((g.posture_kp * 4 ** 4, g.posture_kv * 4 ** 4.5))
    assert (s.leg_length_td, s.pitch_desired, s.apex_gain) == pytest.approx(
        (g.leg_length_td * 4, g.pitch_desired, g.apex_gain))
    pad = scale_gains(KANGAROO_PAD, 4.0)
    assert (pad.pad_k_gz, pad.pad_k_r, pad.k_t) == pytest.approx((150.0 * 64, 0.04, KANGAROO_PAD.k_t * 16))
    jump = scale_gains(K.JumpPlan(near_x=5.0, height=0.15), 4.0)
    assert (jump.near_x, jump.height, jump.speed_kept) == pytest.approx((20.0, 0.6, 0.75))
    assert {f.name for f in dataclasses.fields(g) if "quantity" not in f.metadata} == set()


def _hop_stats(Lf: float, speed: float, seconds: float):
    ch, c = scaled_hop(Lf, speed)
    m = copy.copy(ch.model)
    m.opt.timestep = c.g.timestep
    r = run(ch, c, seconds * math.sqrt(Lf), control_dt=c.g.control_dt, record_fps=1 / c.g.control_dt,
            fall_check=K.fall_check(ch), model=m)
    assert r.fall is None
    d = mujoco.MjData(m)
    com = []
    for q in r.clip.qpos:
        d.qpos[:] = q
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        com.append(d.subtree_com[1].copy())
    com, t = np.array(com), r.times
    stance = np.array([s != "flight" for s in r.states])
    td = np.flatnonzero(~stance[:-1] & stance[1:]) + 1
    td = td[t[td] > t[-1] / 2]
    height = np.mean([com[a:b, 2].max() for a, b in zip(td[:-1], td[1:])])
    speed = (com[td[-1], 0] - com[td[0], 0]) / (t[td[-1]] - t[td[0]])
    cadence = (len(td) - 1) / (t[td[-1]] - t[td[0]])
    return height, speed, cadence


def test_kangaroo_scaled_by_two_hops_twice_as_high_root_two_as_fast():
    h1, v1, f1 = _hop_stats(1.0, 2.0, 6.0)
    h2, v2, f2 = _hop_stats(L, 2.0, 6.0)
    # RH91: L times as high, sqrt(L) as fast, cadence 1/sqrt(L) (brief: each within 10 %).
    assert h2 / h1 == pytest.approx(L, rel=0.1)
    assert v2 / v1 == pytest.approx(math.sqrt(L), rel=0.1)
    assert f2 / f1 == pytest.approx(1.0 / math.sqrt(L), rel=0.1)
    # Everything with units is scaled, so the similarity is exact up to rounding.
    assert (h2 / h1, v2 / v1, f2 / f1) == pytest.approx((L, math.sqrt(L), 1 / math.sqrt(L)), rel=1e-6)


def _com_track(character, rollout) -> np.ndarray:
    """Mass centre (T, 3) [m] of every recorded frame."""
    m = character.model
    d = mujoco.MjData(m)
    out = np.empty((len(rollout.clip.qpos), 3))
    for k, q in enumerate(rollout.clip.qpos):
        d.qpos[:] = q
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        out[k] = d.subtree_com[0]
    return out


def _speed_and_height(key: str, gait: str, speed: float, Lf: float, seconds: float = 60.0):
    """Mean forward speed [m/s] of the mass centre over the last half of a
    ``seconds`` run (× √L: scaled time), and its hop height [m]: the mean
    of its highest point in each window of √L × 1 s."""
    character, r = catalog.simulate(key, gait, speed, seconds * math.sqrt(Lf), scale=Lf, record_fps=100.0)
    assert r.fall is None, f"{key} {gait} at L = {Lf}: {r.fall}"
    com, t = _com_track(character, r), r.times
    half = t >= t[-1] / 2
    c, th = com[half], t[half]
    v = np.linalg.norm(c[-1, :2] - c[0, :2]) / (th[-1] - th[0])
    window = np.floor((th - th[0]) / math.sqrt(Lf)).astype(int)
    tops = [c[window == w, 2].max() for w in np.unique(window)[:-1]]
    return v, float(np.mean(tops))


SCALED = [("quadruped", "trot", 1.5), ("quadruped", "bound", 2.0), ("biped", "run", 1.5),
          ("kangaroo", "hop", 3.0)]


@pytest.mark.slow
@pytest.mark.parametrize("key, gait, speed", SCALED, ids=[f"{k}-{g}" for k, g, _ in SCALED])
def test_scaled_creatures_hold_sixty_seconds_root_l_as_fast_l_as_high(key, gait, speed):
    v1, h1 = _speed_and_height(key, gait, speed, 1.0)
    for Lf in (0.5, 2.0):
        v, h = _speed_and_height(key, gait, speed, Lf)
        assert v / v1 == pytest.approx(math.sqrt(Lf), rel=0.1), (Lf, v, v1)
        assert h / h1 == pytest.approx(Lf, rel=0.1), (Lf, h, h1)


@pytest.mark.parametrize("key", ["biped", "quadruped"])
def test_scaled_robots_read_their_geometry_from_the_creature(key):
    _, small, model, dt = catalog.prepare(key, catalog.runner(key).default_gait, 1.0, scale=0.5)
    _, base, base_model, base_dt = catalog.prepare(key, catalog.runner(key).default_gait, 1.0)
    assert small.leg_length == pytest.approx(0.5 * base.leg_length, rel=1e-12)
    assert dt == pytest.approx(base_dt * math.sqrt(0.5), rel=1e-12)
    assert model.opt.timestep == pytest.approx(base_model.opt.timestep * math.sqrt(0.5), rel=1e-12)
