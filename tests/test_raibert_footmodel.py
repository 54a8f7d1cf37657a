"""The RH91 ground contact option: spring-damper feet with a reset tangential
rest and the kangaroo's paw pad (Eq. 6), on all three RH91 creatures."""
import copy

import mujoco
import numpy as np
import pytest

from gaitforge.control.raibert import kangaroo as K
from gaitforge.control.raibert.footmodel import (
    KANGAROO_PAD, FootContactModel, FootModelController, FootModelParams, hop_on_foot_model,
)
from gaitforge.control.raibert.toolbox import paw_pad_force
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.sim.runner import run

G = 9.81


class Still:
    """No actuation at all."""

    state = "still"

    def reset(self, model, data):
        pass

    def compute(self, model, data):
        pass


@pytest.fixture(scope="module")
def creatures():
    return {n: Character.from_spec(registry.build(n)) for n in ("raibert_biped", "raibert_quadruped", "kangaroo")}


def sunk(character, model):
    """MjData of ``character`` at rest, 1 m below the ground, after mj_forward."""
    d = mujoco.MjData(model)
    d.qpos[:] = character.rest_qpos
    d.qpos[2 if model.jnt_type[0] == mujoco.mjtJoint.mjJNT_FREE else 1] -= 1.0
    mujoco.mj_forward(model, d)
    return d


def test_feet_found_and_only_their_collisions_disabled(creatures):
    expect = {"raibert_biped": ("left_foot", "right_foot"),
              "raibert_quadruped": ("front_left_foot", "front_right_foot", "rear_left_foot", "rear_right_foot"),
              "kangaroo": ("foot",)}
    for name, ch in creatures.items():
        fm = FootContactModel(ch)
        assert fm.feet == expect[name]
        m = copy.copy(ch.model)
        fm.prepare(m)
        foot = set(np.flatnonzero(np.isin(m.geom_bodyid, fm.bodies)).tolist())
        assert foot
        # Sunk 1 m into the ground every solid geom touches it: after prepare
        # none of the feet's geoms does, and every other one still does.
        before, after = (set(sum((c.geom.tolist() for c in d.contact[:d.ncon]), []))
                         for d in (sunk(ch, ch.model), sunk(ch, m)))
        assert foot & before and not foot & after
        assert after == before - foot


def test_errors(creatures):
    with pytest.raises(GaitforgeError, match=r"^foot model: unknown contact point\(s\) toe in kangaroo "
                                             r"\(contact points: foot, heel\)$"):
        FootContactModel(creatures["kangaroo"], feet=("toe",))
    with pytest.raises(GaitforgeError, match=r"^foot model: give both pad_k_gz and pad_k_r \(Eq\. 6\) or neither$"):
        FootModelParams(pad_k_gz=100.0)
    with pytest.raises(GaitforgeError, match=r"^foot model: inner_every must be at least 1, got 0$"):
        FootModelController(Still(), FootContactModel(creatures["kangaroo"]), inner_every=0)


def test_wrench_is_the_force_at_the_contact_point(creatures):
    """Pressed into the ground and dragged: the pad's vertical force (Eq. 6),
    springs back to the touchdown spot, and xfrc_applied equal to applying
    the force at the contact point (mj_applyFT)."""
    ch = creatures["kangaroo"]
    m, d = ch.model, ch.make_data()
    fm = FootContactModel(ch, KANGAROO_PAD)
    d.qpos[1] += 1e-4  # toe just above the ground: no touch
    mujoco.mj_forward(m, d)
    fm.apply(m, d)
    assert not fm.touching[0] and np.all(d.xfrc_applied == 0.0)
    d.qpos[:] = ch.rest_qpos
    d.qpos[1] -= 0.004
    mujoco.mj_forward(m, d)
    fm.apply(m, d)  # touchdown here: anchor at this spot
    site = fm.sites[0]
    anchor = d.site_xpos[site][:2].copy()
    np.testing.assert_allclose(fm.anchor[0], anchor)
    d.qpos[0] += 0.003  # slide along the tilted trunk_x axis: forward and down
    mujoco.mj_forward(m, d)
    fm.apply(m, d)
    p = d.site_xpos[site]
    f = fm.force[0]
    assert f[2] == pytest.approx(float(paw_pad_force(p[2], 150.0, 0.01)))
    np.testing.assert_allclose(f[:2], -KANGAROO_PAD.k_t * (p[:2] - anchor))
    body = fm.bodies[0]
    jacp, jacr = np.zeros((3, m.nv)), np.zeros((3, m.nv))
    mujoco.mj_jac(m, d, jacp, jacr, d.xipos[body], body)  # xfrc_applied acts at the body's COM
    q_ours = jacp.T @ d.xfrc_applied[body][:3] + jacr.T @ d.xfrc_applied[body][3:]
    q_ref = np.zeros(m.nv)
    mujoco.mj_applyFT(m, d, f, np.array([0.0, 0.0, fm.torque_z[0]]), p, body, q_ref)
    np.testing.assert_allclose(q_ours, q_ref, rtol=1e-12, atol=1e-12)


def test_quadruped_stands_on_the_foot_model(creatures):
    ch = creatures["raibert_quadruped"]
    fm = FootContactModel(ch)
    m = copy.copy(ch.model)
    m.opt.timestep = 0.0005
    r = run(ch, FootModelController(Still(), fm), 2.0, control_dt=0.0005, record_fps=50, model=m)
    assert r.fall is None and fm.touching.all() and not r.contact.any()  # MuJoCo sees no foot contact
    t, f, _ = fm.history()
    assert f[-1, :, 2].sum() == pytest.approx(ch.mass * G, rel=1e-3)
    d = mujoco.MjData(m)
    d.qpos[:] = r.clip.qpos[-1]
    mujoco.mj_kinematics(m, d)
    drift = [np.linalg.norm(d.site_xpos[s][:2] - a) for s, a in zip(fm.sites, fm.anchor)]
    assert max(drift) < 1e-4  # no slipping: the tangential springs hold the touchdown spots


def test_biped_lands_on_both_feet(creatures):
    ch = creatures["raibert_biped"]
    fm = FootContactModel(ch)
    m = copy.copy(ch.model)
    m.opt.timestep = 0.0005
    r = run(ch, FootModelController(Still(), fm), 0.3, control_dt=0.0005, record_fps=50, model=m)
    _, f, _ = fm.history()
    assert fm.touching.all()
    assert f[:, :, 2].sum(axis=1).max() > ch.mass * G  # the uncontrolled biped lands (and starts to fold)
    d = mujoco.MjData(m)
    d.qpos[:] = r.clip.qpos[-1]
    mujoco.mj_kinematics(m, d)
    assert max(np.linalg.norm(d.site_xpos[s][:2] - a) for s, a in zip(fm.sites, fm.anchor)) < 1e-3


def test_kangaroo_hops_on_paw_pads_and_needs_little_friction(creatures):
    """RH91: about 0.5 suffices except during the first and last ~10 ms of
    support, when up to about 2 is needed."""
    ch = creatures["kangaroo"]
    c, fm, m, dt = hop_on_foot_model(ch, 2.0)
    r = run(ch, c, 8.0, control_dt=dt, record_fps=100, fall_check=K.fall_check(ch), model=m)
    assert r.fall is None
    t, f, _ = fm.history()
    mu = fm.friction_needed()[:, 0]
    st = f[:, 0, 2] > 1.0
    edges = np.flatnonzero(np.diff(st.astype(int))) + 1
    stances = [(a, b) for a, b in zip(edges[:-1], edges[1:]) if st[a] and t[b] - t[a] > 0.03 and t[a] > 2.0]
    assert len(stances) > 10
    e = int(round(0.010 / (t[1] - t[0])))
    mid = [np.nanmax(mu[a + e:b - e]) for a, b in stances]
    ends = [np.nanmax(mu[a:b]) for a, b in stances]
    assert np.median(mid) < 0.8
    assert np.median(ends) > np.median(mid)
    assert f[:, 0, 2].max() < 12 * ch.mass * G  # the stiffening pad stays bounded
    fz = fm.sampled(r.times)[:, 0, 2]
    fig = K.fig6_data(ch, r, hops=3, start=4.0, vertical_force=fz)
    assert fig["fz"][fig["stance"]].max() > 2 * ch.mass * G
    assert np.all(fm.sampled(np.array([-1.0, t[5]]))[:, 0] == [np.zeros(3), f[5, 0]])
