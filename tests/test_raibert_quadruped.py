"""RH91 quadruped controllers: trot, bound, gallop, gait changes and path
steering (gaitforge.control.raibert.quadruped), with the gait measurements of
RH91 Table 2 taken from the recorded rollouts (``gait_metrics``)."""
from __future__ import annotations

import math
import warnings

import mujoco
import numpy as np
import pytest

from gaitforge.control.raibert import quadruped
from gaitforge.control.paths import WaypointPath, distance_to_path
from gaitforge.control.raibert.quadruped.gains import LEG_LENGTH, SPEED_RANGES
from gaitforge.control.raibert.quadruped.virtual_legs import GAITS, torque_allocation, torque_map
from gaitforge.creatures.character import Character
from gaitforge.creatures.registry import build
from gaitforge.errors import GaitforgeError
from gaitforge.sim.runner import run

FL, FR, RL, RR = 0, 1, 2, 3


@pytest.fixture(scope="module")
def quad() -> Character:
    return Character.from_spec(build("raibert_quadruped"))


# ------------------------------------------------------------------ helpers
def simulate(character, gait, speed, seconds, **options):
    """Run a controller with its own tick and physics step, recording every tick."""
    ctl = quadruped.make_controller(character, gait, speed, **options)
    roll = run(character, ctl, seconds, control_dt=ctl.control_dt, record_fps=1.0 / ctl.control_dt,
               fall_check=quadruped.fall_check(character), model=ctl.simulation_model())
    return ctl, roll


def attitude(qpos):
    """Roll, pitch (+ nose down), yaw [rad] of the trunk, each (T,)."""
    w, x, y, z = qpos[:, 3], qpos[:, 4], qpos[:, 5], qpos[:, 6]
    return (np.arctan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y)),
            np.arcsin(np.clip(2 * (w * y - z * x), -1.0, 1.0)),
            np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))


def contacts(roll):
    """Foot contact (T, 4) with one-sample gaps closed: a foot that bounces
    for a tick after striking is still in the same stance."""
    c = roll.contact.copy()
    c[1:-1] |= c[:-2] & c[2:]
    return c


def footfalls(roll, t_from=0.0, t_to=math.inf):
    """Touchdown and liftoff times [s] of each foot (lists of arrays) in [t_from, t_to)."""
    t = roll.times[1:]
    step = np.diff(contacts(roll).astype(int), axis=0)
    keep = (t >= t_from) & (t < t_to)
    return ([t[(step[:, f] == 1) & keep] for f in range(4)],
            [t[(step[:, f] == -1) & keep] for f in range(4)])


def stances(td, lo):
    """(touchdown, liftoff) pairs [s] of one foot, (n, 2)."""
    return np.array([(a, lo[lo > a][0]) for a in td if np.any(lo > a)]).reshape(-1, 2)


def nearest_lag(ta, tb):
    """|time to the nearest event of tb| [s] for each event of ta."""
    return np.array([np.min(np.abs(tb - a)) for a in ta]) if len(tb) else np.full(len(ta), np.inf)


def relative_phase(ta, tb):
    """Where the first tb event falls in each ta cycle, as a fraction (0..1)."""
    return np.array([(tb[(tb >= a) & (tb < b)][0] - a) / (b - a)
                     for a, b in zip(ta[:-1], ta[1:]) if np.any((tb >= a) & (tb < b))])


def mean_speed(roll, t_from, t_to=math.inf):
    """Mean horizontal speed [m/s]: straight-line distance over time in [t_from, t_to]."""
    t, xy = roll.times, roll.clip.qpos[:, :2]
    w = np.flatnonzero((t >= t_from) & (t <= t_to))
    return float(np.linalg.norm(xy[w[-1]] - xy[w[0]]) / (t[w[-1]] - t[w[0]]))


def gait_metrics(roll, ctl, t_from, t_to=math.inf):
    """RH91 Table 2 quantities measured on a rollout between t_from and t_to [s].

    Strides run from one front-left touchdown to the next. pitch_pp: mean
    peak-to-peak trunk pitch per stride [deg] (pitch_amp half of it); flights:
    intervals with no foot on the ground, "gathered" when the front pair lifted
    off last, "extended" when the rear pair did; stance durations per pair [s];
    leg_change: mean change of leg length during a support [m]; speed [m/s].
    """
    t, qp = roll.times, roll.clip.qpos
    tds, los = footfalls(roll, t_from, t_to)
    st = [stances(tds[f], los[f]) for f in range(4)]
    _, pitch, _ = attitude(qp)
    strides = list(zip(tds[FL][:-1], tds[FL][1:]))
    pp = [np.ptp(pitch[(t >= a) & (t < b)]) for a, b in strides]
    xy = qp[:, :2]
    lengths = [np.linalg.norm([np.interp(b, t, xy[:, k]) - np.interp(a, t, xy[:, k]) for k in (0, 1)])
               for a, b in strides]
    flights, gathered, extended = [], [], []
    airborne = ~contacts(roll).any(axis=1)
    k = np.flatnonzero((t >= t_from) & (t < t_to))
    front_lo = np.sort(np.concatenate([los[FL], los[FR]]))
    rear_lo = np.sort(np.concatenate([los[RL], los[RR]]))
    start = None
    for i in k:
        if airborne[i] and start is None:
            start = t[i]
        elif not airborne[i] and start is not None:
            flights.append(t[i] - start)
            f, r = front_lo[front_lo <= start + 1e-9], rear_lo[rear_lo <= start + 1e-9]
            (gathered if (f[-1] if f.size else -1) > (r[-1] if r.size else -1) else extended).append(t[i] - start)
            start = None
    change = []
    for f in range(4):
        x = qp[:, ctl.slide_q[f]]
        change += [np.ptp(x[(t >= a) & (t <= b)]) for a, b in st[f]]

    def mean(a):
        return float(np.mean(a)) if len(a) else float("nan")

    return dict(
        pitch_pp=math.degrees(mean(pp)), pitch_amp=0.5 * math.degrees(mean(pp)),
        stride_length=mean(lengths), stride_duration=mean(np.diff(tds[FL])),
        flight=mean(flights), gathered_flight=mean(gathered), extended_flight=mean(extended),
        stance_front=mean([b - a for f in (FL, FR) for a, b in st[f]]),
        stance_rear=mean([b - a for f in (RL, RR) for a, b in st[f]]),
        leg_change=mean(change), speed=mean_speed(roll, t_from, t_to))


def strides_to_settle(roll, t_switch, speed, pairs, tick, t_to=math.inf):
    """Strides (front-left touchdown to the next) after a gait change at
    t_switch [s] until three strides in a row have their mean speed within 10 %
    of ``speed`` and the new footfall pattern: for each (leader, partner,
    staggered) in ``pairs``, the partner touches down within 2.5 ticks of its
    leader, strictly after it if staggered. None if never."""
    tds, _ = footfalls(roll, t_switch, t_to)
    t, xy = roll.times, roll.clip.qpos[:, :2]
    good = []
    for a, b in zip(tds[FL][:-1], tds[FL][1:]):
        v = np.linalg.norm([np.interp(b, t, xy[:, k]) - np.interp(a, t, xy[:, k]) for k in (0, 1)]) / (b - a)
        ok = abs(v - speed) <= 0.1 * speed
        for lead, partner, staggered in pairs:
            for ta in tds[lead][(tds[lead] >= a) & (tds[lead] < b)]:
                near = tds[partner][np.argmin(np.abs(tds[partner] - ta))] - ta if len(tds[partner]) else np.inf
                ok &= (0.0 < near if staggered else abs(near) <= 2.5 * tick) and near <= 2.5 * tick
        good.append(bool(ok))
    for n in range(len(good) - 2):
        if all(good[n:n + 3]):
            return n + 1
    return None


# ------------------------------------------------------------------ unit tests
def test_gait_tables_pair_every_leg_once():
    assert GAITS["trot"].pairs == ((FL, RR), (FR, RL))
    assert GAITS["bound"].pairs == ((FL, FR), (RL, RR))
    assert set(GAITS["gallop"].pairs[0]) == {FL, FR} and set(GAITS["gallop"].pairs[1]) == {RL, RR}
    for pattern in GAITS.values():
        assert sorted(pattern.pairs[0] + pattern.pairs[1]) == [0, 1, 2, 3]
    assert [p.staggered for p in GAITS.values()] == [False, False, True]
    assert set(SPEED_RANGES) == set(GAITS)


def _numpy_allocation(hips, angles, lengths, lam=1e-3):
    """Independent formulation: foot force F⊥ = (r × h) / ℓ² balances the hip
    torque h on a massless leg; the trunk feels −h at the hip and p × F⊥."""
    cols = []
    for p, (a, b), ell in zip(np.asarray(hips, float), angles, lengths):
        r = ell * np.array([-np.sin(b), np.cos(b) * np.sin(a), -np.cos(b) * np.cos(a)])
        for e in (np.array([1.0, 0, 0]), np.array([0, np.cos(a), np.sin(a)])):
            force = np.cross(r, e) / ell ** 2
            assert np.allclose(np.cross(r, force), -(e - r * (e @ r) / ell ** 2))  # leg balance
            cols.append(-e + np.cross(p, force))
    A = np.array(cols).T
    return A, A.T @ np.linalg.inv(A @ A.T + lam * np.eye(3))


@pytest.mark.parametrize("legs,angles", [((FL, RR), [(0.05, -0.2), (-0.03, 0.1)]),
                                         ((FL, FR), [(0.0, 0.3), (0.1, 0.25)]),
                                         ((RL,), [(0.02, -0.1)])])
def test_torque_allocation_matches_independent_statics(quad, legs, angles):
    ctl = quadruped.make_controller(quad, "trot", 1.0)
    hips = [ctl.hip_pos[i] for i in legs]
    lengths = [0.78 + 0.01 * k for k in range(len(legs))]
    A_ref, W_ref = _numpy_allocation(hips, angles, lengths)
    np.testing.assert_allclose(np.array(torque_map(hips, angles, lengths)).T, A_ref, atol=1e-12)
    W = np.array(torque_allocation(hips, angles, lengths))
    np.testing.assert_allclose(W, W_ref, atol=1e-9)
    if len(legs) == 2:  # two legs reach any trunk torque
        np.testing.assert_allclose(A_ref @ W @ np.array([3.0, -2.0, 1.5]), [3.0, -2.0, 1.5], atol=0.02)


@pytest.mark.parametrize("torque", [(6.0, 0, 0), (0, 6.0, 0), (0, 0, 6.0)])
def test_allocated_hip_torques_turn_the_trunk_the_asked_way(quad, torque):
    """MuJoCo oracle: on a diagonal pair with limp hips, the allocated hip
    torques accelerate the trunk about the asked axis."""
    ctl = quadruped.make_controller(quad, "trot", 1.0)
    m = ctl.simulation_model()
    m.opt.timestep = 0.001
    d = mujoco.MjData(m)
    d.qpos[:] = quad.rest_qpos
    stiffness = m.jnt_stiffness.reshape(m.njnt, -1)
    for i in (FR, RL):  # lift the other pair
        m.qpos_spring[ctl.slide_q[i]] = d.qpos[ctl.slide_q[i]] = -0.15
    for i in (FL, RR):
        for j in ctl.hip_j[i]:
            stiffness[j, 0] = 0.0
    mujoco.mj_forward(m, d)
    base = d.qvel[3:6].copy()
    W = torque_allocation([ctl.hip_pos[i] for i in (FL, RR)], [(0.0, 0.0)] * 2, [LEG_LENGTH] * 2)
    for k, i in enumerate((FL, RR)):
        for h in (0, 1):
            d.qfrc_applied[ctl.hip_d[i] + h] = np.dot(W[2 * k + h], torque)
    for _ in range(20):
        mujoco.mj_step(m, d)
    dw = d.qvel[3:6] - base
    assert dw @ np.asarray(torque) > 0.8 * np.linalg.norm(dw) * np.linalg.norm(torque)


@pytest.mark.parametrize("yaw,pitch", [(0.0, 0.0), (0.7, 0.2), (-2.0, -0.15)])
def test_landing_feet_go_where_eq3_asks(quad, yaw, pitch):
    """In flight the landing pair's hip set points point each straight leg at
    ẋ T_s / 2 + k_x (ẋ − ẋ_d) ahead of its own hip (and the same rule sideways,
    heading frame), whatever the trunk attitude; the two legs get lengths that
    put both feet at the same height."""
    ctl = quadruped.make_controller(quad, "trot", 1.5, ground_match=0.0)
    m = ctl.simulation_model()
    d = mujoco.MjData(m)
    d.qpos[:] = quad.rest_qpos
    ctl.reset(m, d)
    cy, sy, cp, sp = math.cos(yaw / 2), math.sin(yaw / 2), math.cos(pitch / 2), math.sin(pitch / 2)
    d.qpos[2] = 1.2
    d.qpos[3:7] = (cy * cp, -sy * sp, cy * sp, sy * cp)  # Rz(yaw) Ry(pitch), (w, x, y, z)
    vel = np.array([1.8, -0.3])
    d.qvel[:3] = (*vel, -0.5)
    mujoco.mj_forward(m, d)
    ctl.compute(m, d)
    g = ctl.g
    want = 0.5 * vel * g.stance_guess + np.array([g.k_x, g.k_y]) * (vel - [1.5, 0.0])
    R = d.xmat[1].reshape(3, 3)
    a0, a1 = ctl.pairs[ctl.active]
    for i in (a0, a1):
        a, b = m.qpos_spring[ctl.hip_q[i]], m.qpos_spring[ctl.hip_q[i] + 1]
        world = R @ np.array([-math.sin(b), math.cos(b) * math.sin(a), -math.cos(b) * math.cos(a)])
        reach = math.sqrt(LEG_LENGTH ** 2 - want @ want)
        np.testing.assert_allclose(world[:2] / -world[2] * reach, want, atol=1e-9)
    hip_z = [d.xpos[m.body(f"{n}_upper_leg").id][2] for n in ("front_left", "rear_right")]
    assert ctl.rest[a0] - ctl.rest[a1] == pytest.approx(hip_z[0] - hip_z[1], abs=1e-9)


def test_unknown_gait_lists_the_valid_ones(quad):
    with pytest.raises(GaitforgeError) as err:
        quadruped.make_controller(quad, "pronk", 1.0)
    assert str(err.value) == "unknown quadruped gait 'pronk' (valid gaits: trot, bound, gallop)"
    with pytest.raises(GaitforgeError) as err:
        quadruped.make_controller(quad, "trot", 1.0, schedule=[(5.0, "canter", 2.0)])
    assert str(err.value) == "unknown quadruped gait 'canter' (valid gaits: trot, bound, gallop)"


def test_speed_outside_the_range_is_clamped_with_a_warning(quad):
    lo, hi = SPEED_RANGES["bound"]
    with pytest.warns(UserWarning) as rec:
        ctl = quadruped.make_controller(quad, "bound", 9.0)
    assert str(rec[0].message) == (f"desired speed 9.0 m/s is outside the quadruped bound range [{lo}, {hi}] m/s; "
                                   "clamped")
    assert ctl.schedule[0] == (0.0, "bound", hi)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert quadruped.make_controller(quad, "trot", 1.0).schedule == ((0.0, "trot", 1.0),)


def test_bad_options_are_refused(quad):
    with pytest.raises(GaitforgeError) as err:
        quadruped.make_controller(quad, "trot", 1.0, k_z=0.1)
    assert str(err.value) == ("unknown quadruped option 'k_z' (valid: schedule, path, lookahead, gains, scale, "
                              "or a QuadrupedGains field)")
    with pytest.raises(GaitforgeError) as err:
        quadruped.make_controller(quad, "trot", 1.0, schedule=[(0.0, "bound", 2.0)])
    assert str(err.value) == "quadruped schedule: start times must increase, after 0 s"
    assert quadruped.make_controller(quad, "trot", 1.0, k_x=0.08).gains["trot"].k_x == 0.08


def test_fall_check_reports_height_and_tilt(quad):
    check = quadruped.fall_check(quad)
    d = mujoco.MjData(quad.model)
    d.qpos[:] = quad.rest_qpos
    mujoco.mj_forward(quad.model, d)
    assert check(d) is None
    d.qpos[2] = 0.3
    mujoco.mj_forward(quad.model, d)
    assert check(d) == "trunk height 0.300 m below 0.400 m"
    d.qpos[2] = 0.8
    d.qpos[3:7] = (math.cos(0.6), math.sin(0.6), 0.0, 0.0)  # rolled 68.8 deg
    mujoco.mj_forward(quad.model, d)
    assert check(d) == "trunk tilt 68.8 deg beyond 60.0 deg"


def test_timing_and_state_labels(quad):
    ctl, roll = simulate(quad, "trot", 1.0, 2.0)
    m = ctl.simulation_model()
    assert m.opt.timestep == quadruped.TIMESTEP and quad.model.opt.timestep == 0.002
    assert round(ctl.control_dt / m.opt.timestep) * m.opt.timestep == pytest.approx(ctl.control_dt)
    assert roll.fall is None
    assert {s.split(":")[2] for s in roll.states} == {"flight", "loading", "compression", "thrust", "unloading"}
    assert ctl.events == ((0.0, "trot"),)


# ------------------------------------------------------------------ long runs
def _assert_runs(roll, speed, seconds=60.0):
    assert roll.fall is None, str(roll.fall)
    assert roll.times[-1] == pytest.approx(seconds)
    v = mean_speed(roll, seconds - 20.0)
    assert abs(v - speed) <= 0.1 * speed, f"mean speed {v:.3f} m/s for {speed} m/s"


@pytest.mark.slow
@pytest.mark.parametrize("speed", [1.0, 1.8])  # 1.8: the top of the range, below RH91 Table 2's 2.3
def test_trot_60s_diagonals_together_and_alternating(quad, speed):
    ctl, roll = simulate(quad, "trot", speed, 60.0)
    _assert_runs(roll, speed)
    tds, _ = footfalls(roll, 20.0)
    tick = ctl.control_dt
    # Diagonal feet strike within two control ticks of each other...
    assert np.max(nearest_lag(tds[FL], tds[RR])) <= 2.5 * tick
    assert np.max(nearest_lag(tds[FR], tds[RL])) <= 2.5 * tick
    # ...and the two diagonals take turns half a cycle apart (a stride now and then
    # up to 0.11 cycle off at 2.2 m/s, above today's range, depending on the CPU's arithmetic).
    off = np.abs(relative_phase(tds[FL], tds[FR]) - 0.5)
    assert len(off) > 40 and np.median(off) <= 0.05 and np.all(off <= 0.15)


@pytest.mark.slow
@pytest.mark.parametrize("speed", [1.0, 2.8])
def test_bound_60s_front_and_rear_pairs(quad, speed):
    ctl, roll = simulate(quad, "bound", speed, 60.0)
    _assert_runs(roll, speed)
    tds, _ = footfalls(roll, 20.0)
    tick = ctl.control_dt
    assert np.max(nearest_lag(tds[FL], tds[FR])) <= 2.5 * tick
    assert np.max(nearest_lag(tds[RL], tds[RR])) <= 2.5 * tick
    # Front and rear pairs take turns: each rear touchdown falls strictly inside a front cycle.
    phase = relative_phase(tds[FL], tds[RL])
    assert len(phase) > 50 and np.all((phase > 0.2) & (phase < 0.9))
    m = gait_metrics(roll, ctl, 20.0)
    assert m["pitch_pp"] > 10.0  # the body rocks
    assert m["gathered_flight"] > 2 * m["extended_flight"] > 0.0


@pytest.mark.slow
@pytest.mark.parametrize("speed", [1.0, 1.4])
def test_gallop_60s_pairs_staggered(quad, speed):
    ctl, roll = simulate(quad, "gallop", speed, 60.0)
    _assert_runs(roll, speed)
    tds, los = footfalls(roll, 20.0)
    lead_f, trail_f = ctl.pairs[0]
    lead_r, trail_r = ctl.pairs[1]
    stance = np.mean([b - a for f in range(4) for a, b in stances(tds[f], los[f])])
    for lead, trail in ((lead_f, trail_f), (lead_r, trail_r)):
        lag = np.array([np.min(tds[trail][tds[trail] >= a] - a) for a in tds[lead] if np.any(tds[trail] >= a)])
        lag = lag[lag < 0.5 * stance + 0.1]
        assert len(lag) > 50 and np.max(lag) < stance  # the trailing foot lands within the leader's stance
        assert np.median(lag) > 0.0 and np.mean(lag > 0.0) > 0.75  # ...and after it


@pytest.mark.slow
def test_trot_bound_gallop_transitions(quad):
    speed = 1.4  # the top of the gallop's range
    ctl, roll = simulate(quad, "trot", speed, 60.0, schedule=[(20.0, "bound", speed), (40.0, "gallop", speed)])
    _assert_runs(roll, speed)
    assert [g for _, g in ctl.events] == ["trot", "bound", "gallop"]
    (_, t_bound), (_, t_gallop) = [(g, t) for t, g in ctl.events[1:]]
    assert 20.0 <= t_bound < 20.5 and 40.0 <= t_gallop < 40.5
    tick = ctl.control_dt
    for t0, t1, pairs in ((12.0, 20.0, ((FL, RR), (FR, RL))), (32.0, 40.0, ((FL, FR), (RL, RR)))):
        tds, _ = footfalls(roll, t0, t1)
        for p, q in pairs:
            assert np.max(nearest_lag(tds[p], tds[q])) <= 2.5 * tick
        assert abs(mean_speed(roll, t0, t1) - speed) <= 0.1 * speed
    lead = [(p[0], p[1], True) for p in ctl.pairs]  # the gallop's pairs, leader first
    for t_switch, pairs in ((t_bound, ((FL, FR, False), (RL, RR, False))), (t_gallop, lead)):
        n = strides_to_settle(roll, t_switch, speed, pairs, tick, t_switch + 19.0)
        assert n is not None and n <= 25


@pytest.mark.slow
def test_path_steering_octagon(quad):
    side, speed = 5.0, 1.5
    corners = [(0.0, 0.0)]
    for k in range(7):
        x, y = corners[-1]
        corners.append((x + side * math.cos(k * math.pi / 4), y + side * math.sin(k * math.pi / 4)))
    path = WaypointPath(np.array(corners), loop=True)
    ctl, roll = simulate(quad, "trot", speed, 60.0, path=path)
    assert roll.fall is None, str(roll.fall)
    xy = roll.clip.qpos[:, :2]
    off = distance_to_path(path, xy)
    assert off.mean() < 0.8 and off.max() < 1.5
    travelled = np.sum(np.linalg.norm(np.diff(xy, axis=0), axis=1))
    assert travelled > 2.0 * path.length  # two laps and more
    _, _, yaw = attitude(roll.clip.qpos)
    assert np.ptp(np.unwrap(yaw)) > 4 * math.pi  # it turned all the way round, twice
