"""The RH91 kangaroo: leg geometry oracles, the factory's errors, tail tuning,
hopping, the jump over a box, and 60 s runs across the speed range.

Run as a script to print the Table 2 "Kangaroo Hop" comparison:
``MUJOCO_GL=egl .venv/bin/python tests/test_raibert_kangaroo.py [speed]``.
"""
import copy
import math
import sys

import mujoco
import numpy as np
import pytest
import scipy.linalg

from gaitforge.control.raibert import kangaroo as K
from gaitforge.creatures.builders.raibert import raibert_kangaroo
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.sim.runner import run
from limits_check import assert_within_limits

G = 9.81
PAPER = {  # RH91 Table 2, Kangaroo Hop: (animal, animation)
    "peak vertical force / weight (g)": (5, 4.6), "pitch magnitude (deg)": (10, 12),
    "tail wag relative to trunk (deg)": (30, 31), "stride length (m)": (2.2, 1.5),
    "stride duration (s)": (0.35, 0.35), "flight duration (s)": (0.25, 0.24),
    "stance duration (s)": (0.10, 0.11), "desired running speed (m/s)": (6.2, 5.0)}


@pytest.fixture(scope="module")
def roo():
    return Character.from_spec(raibert_kangaroo())


def hop(character, speed, seconds, model=None, **options):
    """Run the hop controller; the rollout is recorded at every control tick.
    Speeds above the supported range are asked for directly (no clamp)."""
    if speed > K.SPEED_RANGES["hop"][1]:
        c = K.KangarooHop(character, speed, K.KangarooGains(**options))
    else:
        c = K.make_controller(character, "hop", speed, **options)
    m = copy.copy(model if model is not None else character.model)
    m.opt.timestep = c.g.timestep
    r = run(character, c, seconds, control_dt=c.g.control_dt, record_fps=1.0 / c.g.control_dt,
            fall_check=K.fall_check(character), model=m)
    return c, m, r


def _pitch(R) -> float:
    return math.atan2(-R[6], R[0])


def kinematics(character, model, rollout):
    """Per frame: COM (T, 3) [m], trunk pitch (T,) [rad], tail angles
    relative to the trunk (T, 2) [rad]: the chord from the tail base joint to
    the tip of tail3, and the base link tail1 (0: pointing straight back)."""
    d = mujoco.MjData(model)
    trunk, tail1, tail3 = (model.body(n).id for n in ("trunk", "tail1", "tail3"))
    g3 = [g for g in range(model.ngeom) if model.geom_bodyid[g] == tail3][0]
    com, pitch, tail = [], [], []
    for q in rollout.clip.qpos:
        d.qpos[:] = q
        mujoco.mj_kinematics(model, d)
        mujoco.mj_comPos(model, d)
        com.append(d.subtree_com[trunk].copy())
        ends = [d.geom_xpos[g3] + s * model.geom_size[g3][1] * d.geom_xmat[g3].reshape(3, 3)[:, 2] for s in (-1, 1)]
        base = d.xpos[tail1]
        tip = max(ends, key=lambda e: np.linalg.norm(e - base))
        chord = math.atan2(-(tip[2] - base[2]), tip[0] - base[0])
        pitch.append(_pitch(d.xmat[trunk]))
        tail.append([math.remainder(a - pitch[-1] - math.pi, 2 * math.pi)
                     for a in (chord, _pitch(d.xmat[tail1]))])
    return np.array(com), np.array(pitch), np.array(tail)


def hop_metrics(character, model, rollout, start, fz=None):
    """RH91 Table 2 "Kangaroo Hop" quantities over the hops after ``start`` [s]:
    per-stride means of the peak vertical ground force over body weight, the
    peak-to-peak trunk pitch and tail wag (chord and base link) [deg], stride length [m], stride,
    flight and stance durations [s]; and the mean forward COM speed [m/s]."""
    com, pitch, tail = kinematics(character, model, rollout)
    t = rollout.times
    fz = rollout.grf[:, 0, 2] if fz is None else fz
    stance = np.array([s.split(":")[-1] != "flight" for s in rollout.states])
    td = np.flatnonzero(~stance[:-1] & stance[1:]) + 1
    td = td[t[td] >= start]
    strides = list(zip(td[:-1], td[1:]))
    lo = [a + int(np.argmin(stance[a:b])) for a, b in strides]
    weight = character.mass * G
    return {
        "peak vertical force / weight (g)": np.mean([fz[a:b].max() / weight for a, b in strides]),
        "pitch magnitude (deg)": np.degrees(np.mean([np.ptp(pitch[a:b]) for a, b in strides])),
        "tail wag relative to trunk (deg)": np.degrees(np.mean([np.ptp(tail[a:b, 0]) for a, b in strides])),
        "tail base link wag (deg)": np.degrees(np.mean([np.ptp(tail[a:b, 1]) for a, b in strides])),
        "stride length (m)": np.mean([com[b, 0] - com[a, 0] for a, b in strides]),
        "stride duration (s)": np.mean([t[b] - t[a] for a, b in strides]),
        "flight duration (s)": np.mean([t[b] - t[m] for (a, b), m in zip(strides, lo)]),
        "stance duration (s)": np.mean([t[m] - t[a] for (a, b), m in zip(strides, lo)]),
        "speed (m/s)": (com[td[-1], 0] - com[td[0], 0]) / (t[td[-1]] - t[td[0]]),
    }


# ------------------------------------------------------------- leg geometry
def _xz(angle):
    return np.array([math.cos(angle), -math.sin(angle)])


@pytest.mark.parametrize("toe, com", [((0.15, -0.39), (0.08, -0.01)), ((0.24, -0.345), (0.09, 0.0)),
                                      ((-0.05, -0.40), (0.05, 0.02))])
def test_landing_pose_reaches_toe_with_knee_on_thrust_line(toe, com):
    l1, l2, r_toe = 0.13, 0.26, 0.158
    th1, th2, th3 = K.landing_pose(toe, com, l1, l2, r_toe)
    knee = l1 * _xz(th1)
    ankle = knee + l2 * _xz(th2)
    np.testing.assert_allclose(ankle + r_toe * _xz(th3), toe, atol=1e-9)
    line = np.subtract(com, toe)
    rel = knee - toe
    assert abs(line[0] * rel[1] - line[1] * rel[0]) / np.linalg.norm(line) < 1e-9
    # Heel up: the ankle lies behind the knee-to-toe line, above the toe.
    assert ankle[1] > toe[1]


def test_thrust_line_thigh_puts_knee_on_the_line():
    hip, toe, com = (-0.10, 0.36), (0.05, 0.0), (-0.03, 0.35)
    th = K.thrust_line_thigh(hip, toe, com, 0.13)
    knee = np.add(hip, 0.13 * _xz(th))
    w = np.subtract(com, toe)
    rel = knee - toe
    assert abs(w[0] * rel[1] - w[1] * rel[0]) < 1e-12
    assert 0.0 < rel @ w / (w @ w) < 1.0  # between the toe and the COM


def test_leg_angles_of_the_rest_pose(roo):
    a = K.leg_angles(roo, roo.rest_qpos[None, :])
    # Builder pose: trunk -0.30, thigh 0.90, shin 1.90, foot 0.0 rad world pitch.
    assert a["hip"][0] == pytest.approx(1.20)
    assert a["knee"][0] == pytest.approx(math.pi - 1.0)
    assert a["ankle"][0] == pytest.approx(math.pi - 1.90)


# ------------------------------------------------------------------ factory
def test_factory_errors_and_clamping(roo):
    with pytest.raises(GaitforgeError, match=r"^unknown kangaroo gait 'trot' \(valid gaits: hop\)$"):
        K.make_controller(roo, "trot", 2.0)
    with pytest.warns(UserWarning, match=r"kangaroo hop: desired speed 9\.0 m/s is outside \[0\.5, 4\.0\] m/s; "
                                         r"clamped to 4\.0 m/s"):
        assert K.make_controller(roo, "hop", 9.0).speed == 4.0
    with pytest.raises(GaitforgeError, match=r"^unknown kangaroo option\(s\) bogus \(valid: gains, jump"):
        K.make_controller(roo, "hop", 2.0, bogus=1)
    assert K.make_controller(roo, "hop", 2.0, k_x=0.1).g.k_x == 0.1
    assert K.SPEED_RANGES == {"hop": (0.5, 4.0)}


def test_tail_tuned_to_the_hop_period(roo):
    c = K.make_controller(roo, "hop", 2.0)
    m = copy.copy(roo.model)
    d = mujoco.MjData(m)
    d.qpos[:] = roo.rest_qpos
    c.reset(m, d)
    d.qpos[:] = roo.rest_qpos
    mujoco.mj_forward(m, d)
    M = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, M)
    dofs = [roo.joints[n].dof.start for n in ("tail1", "tail2", "tail3")]
    K_tail = np.diag([m.jnt_stiffness[roo.joints[n].mj_joints[0]] for n in ("tail1", "tail2", "tail3")])
    w2 = scipy.linalg.eigh(K_tail, M[np.ix_(dofs, dofs)], eigvals_only=True)[0]
    assert 2 * math.pi / math.sqrt(w2) == pytest.approx(c.g.tail_period, rel=1e-9)
    # The builder's springs alone give a slower tail: the outer joints soften the chain.
    w2_built = scipy.linalg.eigh(np.diag(roo.stiffness[dofs]), M[np.ix_(dofs, dofs)], eigvals_only=True)[0]
    assert 2 * math.pi / math.sqrt(w2_built) > 1.4 * c.g.tail_period


def test_fall_check_reports_a_low_trunk(roo):
    check = K.fall_check(roo)
    d = roo.make_data()
    assert check(d) is None
    d.qpos[1] -= 0.3  # trunk_z slides along the tilted trunk axis: mostly down
    mujoco.mj_kinematics(roo.model, d)
    assert check(d).startswith("trunk height")


# ------------------------------------------------------------------ hopping
def test_hopping_cycles_the_state_machine_and_fig6_data(roo):
    c, m, r = hop(roo, 2.0, 5.0)
    assert r.fall is None
    order = ["flight", "loading", "compression", "thrust", "unloading"]
    seq = [s for i, s in enumerate(r.states) if i == 0 or s != r.states[i - 1]]
    # Every observed change follows Fig. 4 (phases may be skipped, never reordered).
    for a, b in zip(seq, seq[1:]):
        assert b == "flight" or order.index(b) > order.index(a), (a, b)
    met = hop_metrics(roo, m, r, start=2.0)
    assert 0.07 < met["stance duration (s)"] < 0.16
    assert 0.15 < met["flight duration (s)"] < 0.30
    assert met["peak vertical force / weight (g)"] > 3.0
    fig = K.fig6_data(roo, r, hops=3, start=2.0)
    n = len(fig["t"])
    assert all(len(v) == n for v in fig.values()) and fig["t"][0] == 0.0
    assert 0.8 < fig["t"][-1] < 1.3  # three strides of about a third of a second
    st = fig["stance"]
    mid_flight = ~st & ~np.roll(st, 1) & ~np.roll(st, -1)  # labels lag contacts by one tick
    assert fig["fz"][st].max() > 3 * roo.mass * G and np.all(fig["fz"][mid_flight] == 0.0)
    assert np.ptp(fig["ankle"][fig["stance"]]) > 0.2  # the ankle is the spring


def test_jump_clears_a_box_and_hopping_resumes(roo):
    plan = K.JumpPlan(near_x=5.45, height=0.15)
    model = K.with_obstacle(roo, plan.near_x, plan.height, plan.depth)
    box = model.geom("obstacle").id
    c, m, r = hop(roo, 2.0, 9.0, model=model, jump=plan)
    assert r.fall is None
    stages = {s.split(":")[0] for s in r.states if s.startswith("jump_")}
    assert stages == {"jump_approach", "jump_takeoff", "jump_flight", "jump_landing"}
    d = mujoco.MjData(m)
    for q in r.clip.qpos:  # nothing ever touches the box
        d.qpos[:] = q
        mujoco.mj_kinematics(m, d)
        mujoco.mj_collision(m, d)
        assert not any(box in d.contact.geom[i] for i in range(d.ncon))
    com, _, _ = kinematics(roo, m, r)
    k = np.flatnonzero(np.char.startswith(np.array(r.states), "jump_flight"))
    assert com[k, 2].max() > plan.height + 0.3  # the COM rose well above a normal hop's apex
    assert com[-1, 0] > plan.near_x + 5.0
    met = hop_metrics(roo, m, r, start=r.times[k[-1]] + 2.0)
    assert met["speed (m/s)"] == pytest.approx(2.0, rel=0.1)


# ------------------------------------------------------------- long horizon
@pytest.mark.slow
@pytest.mark.parametrize("speed", [0.5, 2.5, 3.5, 4.0])
def test_sixty_seconds_at_speed(roo, speed):
    c, m, r = hop(roo, speed, 60.0)
    assert r.fall is None, str(r.fall)
    assert_within_limits(r, "kangaroo", "hop")
    com, _, _ = kinematics(roo, m, r)
    last = r.times >= 40.0
    mean = (com[last][-1, 0] - com[last][0, 0]) / (r.times[last][-1] - r.times[last][0])
    assert mean == pytest.approx(speed, rel=0.1)


if __name__ == "__main__":
    speed = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    roo = Character.from_spec(raibert_kangaroo())
    c, m, r = hop(roo, speed, 30.0)
    met = hop_metrics(roo, m, r, start=10.0)
    print(f"Kangaroo Hop, desired {speed} m/s, hops from 10 s to 30 s (fall: {r.fall})")
    print(f"{'quantity':36s} {'animal':>7s} {'RH91':>7s} {'here':>7s}")
    for key, (animal, anim) in PAPER.items():
        here = speed if key.startswith("desired") else met[key]
        print(f"{key:36s} {animal:7.2f} {anim:7.2f} {here:7.2f}")
    for key in ("tail base link wag (deg)", "speed (m/s)"):
        print(f"{'(' + key + ')':36s} {'':7s} {'':7s} {met[key]:7.2f}")
