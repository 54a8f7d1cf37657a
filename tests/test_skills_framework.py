"""The pieces of the quadruped skills controller, each against an
independent oracle: gait graphs, analytic limb IK (checked by MuJoCo's own
forward kinematics), Jacobian-transpose torques and gravity compensation
(checked by finite differences of positions and potential energy), the
inverted-pendulum step (energy conservation) and the wrench distribution."""
from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from gaitforge.control.skills import limbs as L
from gaitforge.control.skills import quat as Q
from gaitforge.control.skills.gaitgraph import LIMBS, Gait, GaitGraph
from gaitforge.control.skills.gaits import DIAGONAL, TROT, graph
from gaitforge.control.skills.placement import ipm_offset, swing_height
from gaitforge.control.skills.support import distribute
from gaitforge.control.skills.vforce import VirtualForces
from gaitforge.creatures.character import Character
from gaitforge.creatures.registry import build
from gaitforge.errors import GaitforgeError

G = 9.81


@pytest.fixture(scope="module", params=["gorilla", "dog"])
def creature(request):
    return Character.from_spec(build(request.param))


# ----------------------------------------------------------------- gait graphs
def test_gait_graph_swing_windows_wrap_around_the_cycle():
    g = GaitGraph((0.9, 0.0, 0.25, 0.5), (0.2, 0.0, 0.25, 0.4))
    p = g.swing_progress(0.95)
    assert p[0] == pytest.approx(0.25)  # 0.05 into a 0.2 swing that began at 0.9
    assert p[1] == -1.0  # never swings
    assert p[2] == -1.0 and p[3] == -1.0  # 0.95 is past their windows
    assert g.swing_progress(0.05)[0] == pytest.approx(0.75)  # wrapped past 1.0
    assert g.swing_progress(0.15)[0] == -1.0
    np.testing.assert_allclose(g.duty(), [0.8, 1.0, 0.75, 0.6])


def test_diagonal_sequence_lands_hind_then_opposite_fore():
    g = graph(DIAGONAL, 0.22)
    td = [(lift + s) % 1.0 for lift, s in zip(g.lift, g.swing)]
    order = [LIMBS[i] for i in np.argsort(td)]
    assert order == ["rear_left", "front_right", "rear_right", "front_left"]
    # slow: never two limbs in swing at once; a trot swings diagonal pairs
    for phase in np.linspace(0, 1, 200, endpoint=False):
        assert (g.swing_progress(phase) >= 0).sum() <= 1
    t = graph(TROT, 0.3)
    for phase in np.linspace(0, 1, 200, endpoint=False):
        s = t.swing_progress(phase) >= 0
        assert s[0] == s[3] and s[1] == s[2]


def test_gait_mixes_slow_and_fast_by_speed():
    slow, fast = graph(DIAGONAL, 0.2), graph(DIAGONAL, 0.4)
    gait = Gait("w", slow, fast, period=(1.4, 1.0), speeds=(0.1, 0.6))
    assert gait.graph(0.0).swing == slow.swing and gait.graph(9.0).swing == fast.swing
    assert gait.graph(0.35).swing[0] == pytest.approx(0.3)
    assert gait.stride(0.35) == pytest.approx(1.2)
    # lift phases mix on the circle: 0.95 and 0.05 meet at 0.0, not 0.5
    a = GaitGraph((0.95,) * 4, (0.1,) * 4)
    b = GaitGraph((0.05,) * 4, (0.1,) * 4)
    assert a.mix(b, 0.5).lift[0] == pytest.approx(0.0, abs=1e-12) or a.mix(b, 0.5).lift[0] == pytest.approx(1.0)


def test_gait_graph_rejects_bad_swing():
    with pytest.raises(GaitforgeError, match="swing fractions must lie in"):
        GaitGraph((0, 0, 0, 0), (0.5, 1.0, 0.2, 0.2))


# ----------------------------------------------------------------- limb IK
def _fk_distal(character, limb, ball, knee, distal_angles=None):
    """World position of the limb's distal joint with the root at rest and
    the limb's joints set (MuJoCo's forward kinematics)."""
    m = character.model
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    d.qpos[limb.qpos[0]:limb.qpos[0] + 4] = ball
    if limb.balls[0]:
        d.qpos[limb.qpos[1]:limb.qpos[1] + 4] = Q.from_axis_angle(limb.knee_axis, knee)
    else:
        d.qpos[limb.qpos[1]] = knee
    mujoco.mj_kinematics(m, d)
    return d, d.xpos[limb.bodies[2]].copy(), d.xpos[limb.frame].copy()


def test_ik_reaches_targets_exactly(creature):
    rng = np.random.default_rng(7)
    for limb in L.find_limbs(creature).values():
        for _ in range(20):
            direction = rng.normal(size=3)
            direction[2] = -abs(direction[2]) - 1.0  # mostly downward, as a leg reaches
            direction /= np.linalg.norm(direction)
            target = limb.hip + direction * rng.uniform(0.55, 0.97) * limb.reach
            ball, knee = L.solve(limb, target, 0.0)
            _, distal, frame = _fk_distal(creature, limb, ball, knee)
            np.testing.assert_allclose(distal - frame, target, atol=1e-9)


def test_ik_beyond_reach_points_the_straight_limb_at_the_target(creature):
    for limb in L.find_limbs(creature).values():
        target = limb.hip + np.array([0.3, 0.0, -1.0]) * 3.0
        ball, knee = L.solve(limb, target, 0.0)
        _, distal, frame = _fk_distal(creature, limb, ball, knee)
        v = distal - frame - limb.hip
        u = target - limb.hip
        assert np.linalg.norm(v) == pytest.approx(max(np.linalg.norm(L.distal_point(limb, k))
                                                      for k in np.linspace(-math.pi, math.pi, 2001)), rel=1e-4)
        assert np.dot(v, u) / (np.linalg.norm(v) * np.linalg.norm(u)) == pytest.approx(1.0, abs=1e-9)


def test_ik_is_continuous_and_keeps_its_branch(creature):
    for limb in L.find_limbs(creature).values():
        prev = L.knee_angle(limb, 0.8 * limb.reach, 0.5)  # bent, away from the straight-limb singularity
        start = L.distal_point(limb, prev)
        first = None
        for s in np.linspace(0.0, 1.0, 400):  # a swing-like arc: shorten, lift, move forward
            target = limb.hip + start * (1.0 - 0.2 * math.sin(math.pi * s)) + np.array([0.15 * s, 0.0, 0.0])
            ball, knee = L.solve(limb, target, prev)
            assert abs(knee - prev) < 0.05  # no jump between neighbouring targets
            if first is None and abs(knee) > 1e-3:
                first = math.copysign(1.0, knee)
            prev = knee
        assert first is not None


def test_ik_has_two_knee_solutions_and_takes_the_nearer(creature):
    for limb in L.find_limbs(creature).values():
        length = 0.85 * limb.reach
        a, b = L.knee_angle(limb, length, 1.5), L.knee_angle(limb, length, -1.5)
        assert abs(a - b) > 0.1  # the limb can bend either way
        for k in (a, b):
            assert np.linalg.norm(L.distal_point(limb, k)) == pytest.approx(length, rel=1e-9)
            assert L.knee_angle(limb, length, k + 0.05) == pytest.approx(k, abs=1e-12)


def test_hold_orientation_levels_a_link():
    parent = Q.euler_zyx(0.3, 0.4, 0.0)
    axis = np.array([0.0, 1.0, 0.0])
    angle = L.hold_orientation(parent, axis, Q.from_axis_angle((0, 0, 1), 0.3))
    child = Q.mul(parent, Q.from_axis_angle(axis, angle))
    x = Q.rotate(child, np.array([1.0, 0.0, 0.0]))
    assert x[2] == pytest.approx(0.0, abs=1e-12)


# ----------------------------------------------------------------- virtual forces
def _random_pose(character, seed):
    m = character.model
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    rng = np.random.default_rng(seed)
    v = rng.normal(scale=0.2, size=m.nv)
    v[:6] = 0.0
    mujoco.mj_integratePos(m, d.qpos, v, 1.0)
    mujoco.mj_forward(m, d)
    return d


def _perturbed(character, qpos, dof, eps):
    m = character.model
    d = mujoco.MjData(m)
    d.qpos[:] = qpos
    v = np.zeros(m.nv)
    v[dof] = eps
    mujoco.mj_integratePos(m, d.qpos, v, 1.0)
    mujoco.mj_kinematics(m, d)
    mujoco.mj_comPos(m, d)
    return d


def test_jacobian_transpose_torques_match_virtual_work(creature):
    """τ = −J_siteᵀ F: for each limb DOF, τ_k = −F · ∂x_site/∂q_k by finite differences (world frame)."""
    d = _random_pose(creature, 3)
    limbs = L.find_limbs(creature)
    vf = VirtualForces(creature.model, limbs)
    force = np.array([12.0, -7.0, 150.0])
    eps = 1e-6
    for name, limb in limbs.items():
        tau = np.zeros(creature.model.nv)
        vf.at_site(d, limb, force, tau)
        for k in vf.cols[name]:
            plus = _perturbed(creature, d.qpos, k, eps).site_xpos[limb.site]
            minus = _perturbed(creature, d.qpos, k, -eps).site_xpos[limb.site]
            assert tau[k] == pytest.approx(-force @ (plus - minus) / (2 * eps), rel=1e-5, abs=1e-6)
        assert np.count_nonzero(tau) <= len(vf.cols[name])  # only the limb's own joints


def test_gravity_compensation_is_the_gradient_of_the_limbs_potential_energy(creature):
    d = _random_pose(creature, 5)
    m = creature.model
    limbs = L.find_limbs(creature)
    vf = VirtualForces(m, limbs)
    eps = 1e-6

    def energy(data, limb):
        return sum(m.body_mass[b] * G * data.xipos[b][2] for b in limb.bodies)

    for name, limb in limbs.items():
        tau = np.zeros(m.nv)
        vf.gravity(d, limb, tau)
        for k in vf.cols[name]:
            grad = (energy(_perturbed(creature, d.qpos, k, eps), limb)
                    - energy(_perturbed(creature, d.qpos, k, -eps), limb)) / (2 * eps)
            assert tau[k] == pytest.approx(grad, rel=1e-5, abs=1e-6)


# ----------------------------------------------------------------- placement, wrench
@pytest.mark.parametrize("v, h", [(0.3, 0.7), (1.2, 0.5), (-0.4, 0.9), (0.0, 0.7)])
def test_inverted_pendulum_step_conserves_energy(v, h):
    d = ipm_offset(v, h)
    # ½ v² + g h = g h' with h' = √(h² + d²): the pendulum stops upright over the foot
    assert 0.5 * v * v + G * h == pytest.approx(G * math.hypot(h, d), rel=1e-12)
    assert math.copysign(1.0, d) == math.copysign(1.0, v) or v == 0.0


def test_swing_height_starts_and_ends_on_the_ground():
    assert swing_height(0.0, 0.1) == 0.0 and swing_height(1.0, 0.1) == 0.0
    assert swing_height(0.5, 0.1) == pytest.approx(0.1)


def test_wrench_distribution_shares_weight_and_reproduces_feasible_wrenches():
    feet = np.array([[0.3, 0.2, -0.7], [0.3, -0.2, -0.7], [-0.3, 0.2, -0.7], [-0.3, -0.2, -0.7]])
    f = distribute(feet, np.array([0.0, 0.0, 400.0]), np.zeros(3), regularize=1e-9)
    np.testing.assert_allclose(f[:, 2], 100.0, rtol=1e-6)
    force, torque = np.array([20.0, -10.0, 400.0]), np.array([5.0, -8.0, 3.0])
    f = distribute(feet, force, torque, regularize=1e-9)
    np.testing.assert_allclose(f.sum(axis=0), force, rtol=1e-6)
    np.testing.assert_allclose(np.cross(feet, f).sum(axis=0), torque, atol=1e-5)


def test_wrench_distribution_never_pulls_and_respects_friction():
    feet = np.array([[0.3, 0.2, -0.7], [-0.3, -0.2, -0.7]])
    f = distribute(feet, np.array([500.0, 0.0, 100.0]), np.array([0.0, 80.0, 0.0]), friction=0.5, min_push=1.0)
    assert (f[:, 2] >= 1.0).all()
    assert (np.hypot(f[:, 0], f[:, 1]) <= 0.5 * f[:, 2] + 1e-9).all()


def test_beats_count_footfalls_apart_around_the_cycle():
    from gaitforge.control.skills.gaitcheck import count_beats

    assert count_beats([0.0, 0.25, 0.5, 0.75]) == 4  # a four-beat walk
    assert count_beats([0.0, 0.02, 0.5, 0.53]) == 2  # a trot: two pairs
    assert count_beats([0.98, 0.03, 0.5, 0.5]) == 2  # a pair straddling the cycle's start
    assert count_beats([0.0, 0.0, 0.0, 0.0]) == 1  # a pronk


def test_compiled_limb_pose_matches_the_python_reference(creature):
    """Two formulations of the limb pose (MuJoCo's quaternion routines in
    Python; the compiled kernel) write the same joint references."""
    from gaitforge.control.skills.kernels import pack, solve_limb
    from gaitforge.control.skills.pose import PoseSolver

    m = creature.model
    order = list(L.find_limbs(creature).values())
    spine, front_first = L.spine_path(creature, order[0].frame, order[2].frame)
    reference = PoseSolver(m, order, spine, front_first, 0.5)
    rng = np.random.default_rng(11)
    spring = m.qpos_spring.copy()
    try:
        for limb in order:
            for _ in range(5):
                foot = np.array([0.3, 0.1, 0.0]) + rng.normal(scale=0.1, size=3)
                frame_pos = np.array([0.2, 0.0, 0.7]) + rng.normal(scale=0.05, size=3)
                frame_q = Q.euler_zyx(*rng.normal(scale=0.2, size=3))
                level = Q.from_axis_angle((0, 0, 1), float(rng.normal()))
                m.qpos_spring[:] = 0.0
                k1 = reference.limb(limb, foot, frame_pos, frame_q, level, 0.3)
                expected = m.qpos_spring.copy()
                m.qpos_spring[:] = 0.0
                k2 = solve_limb(m.qpos_spring, *pack(limb), foot, frame_pos, frame_q, level, 0.3)
                assert k2 == pytest.approx(k1, abs=1e-12)
                np.testing.assert_allclose(m.qpos_spring, expected, atol=1e-12)
    finally:
        m.qpos_spring[:] = spring


def test_command_schedules_are_checked_and_speed_changes_are_ramped():
    from gaitforge.control.skills.commands import Command, Commander

    with pytest.raises(GaitforgeError, match="^a command schedule starts at t = 0$"):
        Commander([Command(1.0, "trot", 0.3)], accel=0.3)
    with pytest.raises(GaitforgeError, match="^command times must increase$"):
        Commander([Command(0.0, "trot", 0.3), Command(2.0, "stand", 0.0), Command(2.0, "trot", 0.1)], accel=0.3)
    c = Commander([Command(0.0, "stand", 0.0), Command(1.0, "trot", 0.3)], accel=0.5, turn_rate=0.2)
    c.reset(0.0)
    out = [c.update(k * 0.01, 0.01, (0.0, 0.0)) for k in range(200)]
    assert out[50][0] == "stand" and out[150][0] == "trot"
    speeds = [s for _, s, _ in out]
    assert max(np.diff(speeds)) <= 0.5 * 0.01 + 1e-12  # never faster than the acceleration bound
    assert speeds[-1] == pytest.approx(0.3) and out[-1][2] == pytest.approx(0.2 * 2.0)


def test_a_path_ends_with_a_stop_that_holds():
    from gaitforge.control.paths import WaypointPath
    from gaitforge.control.skills.commands import Command, Commander

    c = Commander([Command(0.0, "ds_walk", 0.3)], accel=10.0, path=WaypointPath(np.array([[0.0, 0.0], [2.0, 0.0]])))
    c.reset(0.0)
    _, speed, heading = c.update(0.0, 0.01, (1.9, 0.0))  # inside the stop radius: slowing down
    assert 0.0 < speed < 0.3 and heading == pytest.approx(0.0)
    _, speed, _ = c.update(0.01, 0.01, (1.99, 0.0))  # at the end: stop
    assert speed == 0.0 and c.arrived
    # Drifting past the end afterwards neither restarts the walk nor turns the creature round.
    for k in range(100):
        _, speed, h = c.update(0.02 + 0.01 * k, 0.01, (2.3, 0.2))
        assert speed == 0.0 and h == heading


def test_late_reach_follows_the_speed_between_the_gaits_slow_and_fast_sets():
    from gaitforge.control.skills.gorilla import GAITS as GORILLA

    walk = GORILLA["ds_walk"]
    lo, hi = walk.speeds
    assert walk.reach(0.0) == walk.reach(lo) == walk.late_reach[0]
    assert walk.reach(hi) == walk.reach(hi + 1.0) == walk.late_reach[1]
    assert walk.reach((lo + hi) / 2) == pytest.approx(sum(walk.late_reach) / 2)


def test_a_foot_in_the_runner_includes_the_bodies_below_it():
    from gaitforge.sim.runner import _foot_of_body, foot_bodies

    gorilla = Character.from_spec(build("gorilla"))
    m = gorilla.model
    feet = foot_bodies(gorilla)
    owner = _foot_of_body(m, list(feet.values()))
    names = list(feet)
    assert names[owner[m.body("toes_left").id]] == "rear_left_foot"  # toes touching: the foot is down
    assert names[owner[m.body("fingers_right").id]] == "front_right_knuckle"
    assert m.body("shank_left").id not in owner and m.body("pelvis").id not in owner


def test_stance_softness_follows_the_gaits_speed_knots():
    g = Gait("trot", graph(TROT, 0.35), graph(TROT, 0.45), period=(0.6, 0.3), speeds=(0.4, 2.0),
             stance_kp=((1.0, 0.05), (1.2, 0.15)))
    assert g.stance_softness(0.4, 0.5) == 0.05  # below the first knot: held
    assert g.stance_softness(1.1, 0.5) == pytest.approx(0.10)
    assert g.stance_softness(-1.3, 0.5) == 0.15  # beyond the last knot, either direction
    plain = Gait("walk", graph(TROT, 0.35), graph(TROT, 0.45), period=(0.6, 0.3), speeds=(0.4, 2.0))
    assert plain.stance_softness(1.3, 0.05) == 0.05  # no knots: the creature's


def test_two_feet_on_a_line_cannot_turn_the_body_about_it():
    """A trot's diagonal pair (or a pace's lateral pair) as point feet: the
    torque they give about their support line is (r_0 × F)·u, fixed by the
    net force F whatever the roll torque asked for; the least-squares share
    only buys part of a roll demand with a sideways force."""
    feet = np.array([[0.23, 0.10, -0.43], [-0.36, -0.10, -0.43]])  # the dog's FL and RR feet from its mass centre
    u = (feet[1] - feet[0]) / np.linalg.norm(feet[1] - feet[0])
    mg = 31.4 * 9.81
    results = []
    for roll in (0.0, 20.0):
        f = distribute(feet, np.array([0.0, 0.0, mg]), np.array([roll, 0.0, 0.0]), regularize=0.02)
        F = f.sum(axis=0)
        torque = sum(np.cross(r, fi) for r, fi in zip(feet, f))
        assert torque @ u == pytest.approx(np.cross(feet[0], F) @ u, abs=1e-9)
        results.append((F, torque))
    (F0, T0), (F1, T1) = results
    assert 0.0 < T1[0] - T0[0] < 0.5 * 20.0  # less than half the asked-for 20 N m of roll
    assert abs(F1[1] - F0[1]) > 1.0  # paid for with a sideways force [N]


def test_stride_knots_replace_the_period_line_in_both_formulations():
    """``Gait.stride`` (numpy) and the compiled tick's ``gait_graph`` agree
    on the dog trot's stride knots: unchanged up to 1 m/s, quicker beyond."""
    from gaitforge.control.skills import tick as T
    from gaitforge.control.skills.dog import GAITS as DOG

    trot = DOG["trot"]
    G = T.pack_gait(trot)
    lift, swing = np.empty(4), np.empty(4)
    for v in np.linspace(0.0, 2.5, 51):
        assert T.gait_graph(G, v, lift, swing) == trot.stride(v)  # bit for bit
        if v <= 1.0:  # the former straight line from (0.4 m/s, 0.6 s) to (2 m/s, 0.45 s), bit for bit
            w = trot.weight(v)
            assert trot.stride(v) == (1 - w) * 0.6 + w * 0.45
    assert trot.stride(1.4) == pytest.approx(0.4125) and trot.stride(2.0) == pytest.approx(0.3)


@pytest.mark.parametrize("key, gains", [("gorilla", "ours"), ("dog", "ours"), ("gorilla", "ours-10ms")])
def test_physics_per_creature_keeps_the_servos_damping(key, gains):
    """prepare_model sets each creature's integrator, solver and step; under
    the discrete integrator (the gorilla's former 10 ms step, its gain set
    ours-10ms) the dampers give back the h·K that its implicit step adds, so
    every servo's effective damping is kd_time × K under either."""
    import dataclasses

    from gaitforge.control.skills import catalog
    from gaitforge.control.skills.controller import INTEGRATORS, SOLVERS
    from gaitforge.sim.controller import run_settings

    character = Character.from_spec(build(key))
    ctrl = catalog.RUNNERS[key].make(character, "stand", 0.0, gains=gains)
    p = catalog.params(key, gains)
    m = run_settings(ctrl, character.model).model
    assert m.opt.integrator == INTEGRATORS[p.integrator] and m.opt.solver == SOLVERS[p.solver]
    assert m.opt.timestep == p.timestep
    added = m.opt.timestep if p.integrator == "discrete" else 0.0
    K = m.jnt_stiffness[m.dof_jntid]
    servo = K > 0
    np.testing.assert_allclose(m.dof_damping[servo] + added * K[servo], p.kd_time * K[servo], rtol=1e-12)
    assert (gains == "ours-10ms") == (added > 0)
    too_long = dataclasses.replace(p, integrator="discrete", timestep=p.kd_time)
    with pytest.raises(GaitforgeError) as err:
        type(ctrl)(character, too_long, ctrl.commander).prepare_model(m)
    assert str(err.value) == (f"timestep {p.kd_time} s must be positive (and below kd_time {p.kd_time} s under "
                              "the discrete integrator)")


@pytest.mark.parametrize("formulation", ["compute", "compute_reference"])
def test_a_gait_with_its_own_contacts_sets_them_while_it_runs(formulation):
    """A gait's ``contact_timeconst`` replaces the creature's while that gait
    runs, in the compiled tick and the Python reference alike; a gait without
    one gets the creature's back (the dog's 8 ms, its gallop given 7 ms here)."""
    import dataclasses

    from gaitforge.control.skills import catalog, dog
    from gaitforge.control.skills.commands import Command, Commander
    from gaitforge.control.skills.controller import SkillController
    from gaitforge.sim.controller import run_settings

    own, gallop = catalog.PARAMS["dog"].contact_timeconst, 0.007
    gaits = dict(dog.GAITS, gallop=dataclasses.replace(dog.GAITS["gallop"], contact_timeconst=gallop))
    assert gaits["trot"].contact_timeconst == 0.0 < gallop < own
    params = dataclasses.replace(catalog.PARAMS["dog"], gaits=gaits)
    character = Character.from_spec(build("dog"))
    ctrl = SkillController(character, params, Commander([Command(0.0, "trot", 0.5)], catalog.ACCEL["dog"]))
    m = run_settings(ctrl, character.model).model
    d = mujoco.MjData(m)
    ctrl.reset(m, d)
    np.testing.assert_array_equal(m.geom_solref[:, 0], own)
    seen = []
    for gait, speed in (("gallop", 1.3), ("trot", 0.5), ("gallop", 1.3)):
        ctrl.command(gait, speed, 0.0)
        getattr(ctrl, formulation)(m, d)
        d.time += ctrl.control_dt
        assert set(m.geom_solref[:, 0]) == {gallop if gait == "gallop" else own}
        seen.append(float(m.pair_solref[0, 0]) if m.npair else None)
    assert m.npair == 0 or seen == [gallop, own, gallop]
    # a run that starts in a gait with its own contacts is prepared with them
    starts = SkillController(character, params, Commander([Command(0.0, "gallop", 1.3)], catalog.ACCEL["dog"]))
    assert set(run_settings(starts, character.model).model.geom_solref[:, 0]) == {gallop}
    # a creature on its model's own contacts (0) gets exactly those back after such a gait
    bare = dataclasses.replace(params, contact_timeconst=0.0)
    back = SkillController(character, bare, Commander([Command(0.0, "gallop", 1.3)], catalog.ACCEL["dog"]))
    m = run_settings(back, character.model).model
    d = mujoco.MjData(m)
    back.reset(m, d)
    back.command("trot", 0.5, 0.0)
    getattr(back, formulation)(m, d)
    np.testing.assert_array_equal(m.geom_solref[:, 0], character.model.geom_solref[:, 0])
