"""Modal IK (Kry 2012 §4.2): the Jacobian by finite differences (points, centre
of mass, body orientations), reaching
targets that lie in the basis, optimality of the eigenvalue-weighted norm
(KKT condition, and against plain least norm), and stance-foot pinning on a
dog trot (skate, continuity)."""
import mujoco
import numpy as np
import pytest

from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError, UnknownNameError
from gaitforge.modal import compute_modes
from gaitforge.motion.clip import MotionClip
from gaitforge.motion.footfall import detect_footfalls, feet_of, foot_positions
from gaitforge.motion.metrics import classify_gait, gait_metrics
from gaitforge.motion.modal_ik import (CENTRE_OF_MASS, modal_columns, modal_ik, modal_jacobian, orientation_target,
                                       pin_stance_feet, rotation_vectors, solve_modal_ik, target_points)
from gaitforge.motion.grounding import centres_of_mass, touch_ground
from gaitforge.motion.synthesis import synthesize
from test_synthesis import dog_trot

FEET = ["front_left_foot", "front_right_foot", "rear_left_foot", "rear_right_foot"]


@pytest.fixture(scope="module")
def dog():
    return Character.from_spec(registry.build("dog"))


@pytest.fixture(scope="module")
def basis(dog):
    return compute_modes(dog, count=20)


def fd_jacobian(dog, basis, names, q0, c, rigid, eps=1e-6):
    cols = []
    for i in range(len(c)):
        e = np.zeros(len(c))
        e[i] = eps
        xp, _ = modal_jacobian(dog, basis, names, q0, c + e, rigid=rigid)
        xm, _ = modal_jacobian(dog, basis, names, q0, c - e, rigid=rigid)
        cols.append((xp - xm).reshape(-1) / (2 * eps))
    return np.array(cols).T


@pytest.mark.parametrize("rigid", [False, True])
def test_jacobian_matches_finite_differences(dog, basis, rigid):
    """Away from rest and from a bent start pose, where the exponential map's
    right Jacobian matters for the ball joints and the root."""
    rng = np.random.default_rng(3)
    k = basis.count + (basis.n_rigid if rigid else 0)
    q0 = basis.displace(rng.normal(scale=0.1, size=basis.count))
    c = rng.normal(scale=0.15, size=k)
    names = FEET + ["head"]
    x, A = modal_jacobian(dog, basis, names, q0, c, rigid=rigid)
    assert A.shape == (15, k)
    np.testing.assert_allclose(A, fd_jacobian(dog, basis, names, q0, c, rigid), rtol=0, atol=1e-8)
    # and the positions are those of the pose reached
    pose = q0.copy()
    phi, _ = modal_columns(basis, rigid=rigid)
    mujoco.mj_integratePos(dog.model, pose, phi @ c, 1.0)
    at = dog.contact_positions(pose)
    np.testing.assert_allclose(x[:4], [at[n] for n in FEET], atol=1e-14)


@pytest.mark.parametrize("rigid", [False, True])
def test_centre_of_mass_target_matches_finite_differences(dog, basis, rigid):
    """The centre-of-mass rows (MuJoCo's subtree Jacobian of the world body)
    against finite differences of the mass-weighted mean of the bodies'
    centres (grounding.centres_of_mass, computed apart), from a bent pose."""
    rng = np.random.default_rng(11)
    k = basis.count + (basis.n_rigid if rigid else 0)
    q0 = basis.displace(rng.normal(scale=0.1, size=basis.count))
    c = rng.normal(scale=0.15, size=k)
    names = [CENTRE_OF_MASS, "front_left_foot"]
    x, A = modal_jacobian(dog, basis, names, q0, c, rigid=rigid)
    np.testing.assert_allclose(A, fd_jacobian(dog, basis, names, q0, c, rigid), rtol=0, atol=1e-8)
    pose = q0.copy()
    phi, _ = modal_columns(basis, rigid=rigid)
    mujoco.mj_integratePos(dog.model, pose, phi @ c, 1.0)
    np.testing.assert_allclose(x[0], centres_of_mass(dog, pose[None])[0], atol=1e-14)
    # elastic modes are momentum-free: at rest they do not move the centre of mass at all
    _, A0 = modal_jacobian(dog, basis, [CENTRE_OF_MASS])
    assert np.abs(A0).max() < 1e-12


def test_reaches_a_centre_of_mass_goal_with_the_feet_held(dog, basis):
    """Lower the centre of mass by 2 cm and move it 1 cm forward while two
    feet stay where they stand: the rigid modes carry the body, the elastic
    ones keep the feet; checked with the mass-weighted mean of the bodies'
    centres (grounding.centres_of_mass), not the IK's own rows."""
    rest = basis.rest_qpos
    feet = dog.contact_positions(rest)
    goal = centres_of_mass(dog, rest[None])[0] + [0.01, 0.0, -0.02]
    targets = {CENTRE_OF_MASS: goal, "front_left_foot": feet["front_left_foot"],
               "rear_right_foot": feet["rear_right_foot"]}
    res = solve_modal_ik(dog, basis, targets, rigid=True)
    assert res.converged
    np.testing.assert_allclose(centres_of_mass(dog, res.qpos[None])[0], goal, atol=1e-8)
    got = dog.contact_positions(res.qpos)
    for n in ("front_left_foot", "rear_right_foot"):
        np.testing.assert_allclose(got[n], feet[n], atol=1e-8)


def body_rotation(dog, pose, body):
    """World rotation matrix (3, 3) of ``body`` in ``pose``, by MuJoCo's forward kinematics."""
    d = mujoco.MjData(dog.model)
    d.qpos[:] = pose
    mujoco.mj_kinematics(dog.model, d)
    return d.xmat[dog.body_id(body)].reshape(3, 3).copy()


def rotation_matrix(v):
    """Rodrigues' formula: the rotation matrix of rotation vector v (3,), computed apart."""
    th = np.linalg.norm(v)
    K = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]]) / th
    return np.eye(3) + np.sin(th) * K + (1 - np.cos(th)) * K @ K


def test_rotation_vectors_invert_rodrigues():
    rng = np.random.default_rng(2)
    for v in [*rng.normal(scale=0.8, size=(5, 3)), np.array([1e-9, 0, 0]), np.array([0, 3.0, 0])]:  # angles < π
        q = np.empty(4)
        mujoco.mju_axisAngle2Quat(q, v / np.linalg.norm(v), np.linalg.norm(v))
        np.testing.assert_allclose(rotation_vectors(q), v, rtol=0, atol=1e-12)
        np.testing.assert_allclose(rotation_vectors(-q), v, rtol=0, atol=1e-12)   # either sign of q


@pytest.mark.parametrize("rigid", [False, True])
def test_orientation_target_matches_finite_differences(dog, basis, rigid):
    """The orientation rows (rotation vector of a body's world frame, through
    the left Jacobian of the exponential map) against finite differences, from
    a bent pose, for the root and a leg body; x is Rodrigues-consistent with
    MuJoCo's forward kinematics."""
    rng = np.random.default_rng(17)
    k = basis.count + (basis.n_rigid if rigid else 0)
    q0 = basis.displace(rng.normal(scale=0.1, size=basis.count))
    c = rng.normal(scale=0.15, size=k)
    leg = feet_of(dog)[0].body
    names = [orientation_target(dog.bodies[0]), "front_left_foot", orientation_target(leg)]
    x, A = modal_jacobian(dog, basis, names, q0, c, rigid=rigid)
    np.testing.assert_allclose(A, fd_jacobian(dog, basis, names, q0, c, rigid), rtol=0, atol=1e-7)
    pose = q0.copy()
    phi, _ = modal_columns(basis, rigid=rigid)
    mujoco.mj_integratePos(dog.model, pose, phi @ c, 1.0)
    np.testing.assert_allclose(rotation_matrix(x[0]), body_rotation(dog, pose, dog.bodies[0]), atol=1e-12)
    np.testing.assert_allclose(rotation_matrix(x[2]), body_rotation(dog, pose, leg), atol=1e-12)


def test_holds_the_root_orientation_while_moving_a_foot(dog, basis):
    """Move a front foot 3 cm forward and 2 cm up while the root body keeps
    a given orientation (its rest one turned 5° about z) and the other feet
    stay: checked with MuJoCo's forward kinematics, not the IK's rows."""
    rest = basis.rest_qpos
    feet = dog.contact_positions(rest)
    root = dog.bodies[0]
    want = rotation_matrix(np.radians([0.0, 0.0, 5.0])) @ body_rotation(dog, rest, root)
    q = np.empty(4)
    mujoco.mju_mat2Quat(q, want.reshape(-1))
    targets = {orientation_target(root): rotation_vectors(q),
               "front_left_foot": feet["front_left_foot"] + [0.03, 0, 0.02]}
    targets.update({n: feet[n] for n in ("front_right_foot", "rear_left_foot", "rear_right_foot")})
    res = solve_modal_ik(dog, basis, targets, rigid=True)
    assert res.converged
    np.testing.assert_allclose(body_rotation(dog, res.qpos, root), want, rtol=0, atol=1e-6)
    got = dog.contact_positions(res.qpos)
    for n, x in targets.items():
        if n in got:
            np.testing.assert_allclose(got[n], x, rtol=0, atol=1e-6)
    # without the orientation goal the same foot move turns the root
    free = solve_modal_ik(dog, basis, {n: x for n, x in targets.items() if n in got}, rigid=True)
    assert free.converged
    assert np.abs(body_rotation(dog, free.qpos, root) - want).max() > 1e-4


def test_unknown_orientation_body_is_refused(dog, basis):
    with pytest.raises(UnknownNameError):
        modal_jacobian(dog, basis, [orientation_target("no_such_body")])


def reachable(dog, basis, k=8, seed=5):
    """Two feet's positions in a pose made of the first k modes: reachable."""
    c_true = np.zeros(basis.count)
    c_true[:k] = np.random.default_rng(seed).normal(scale=0.05, size=k)
    pose = basis.displace(c_true)
    pos = dog.contact_positions(pose)
    return {n: pos[n] for n in ("front_left_foot", "rear_right_foot")}, c_true[:k]


def test_reaches_targets_in_the_basis(dog, basis):
    targets, c_true = reachable(dog, basis)
    res = solve_modal_ik(dog, basis, targets, modes=8)
    assert res.converged and res.residual <= 1e-9
    got = dog.contact_positions(res.qpos)
    for n, x in targets.items():
        np.testing.assert_allclose(got[n], x, rtol=0, atol=1e-6)
    lam = basis.eigenvalues[:8]
    # c_true reaches the targets too, so the minimum can only be lower
    assert lam @ res.coords ** 2 < lam @ c_true ** 2
    np.testing.assert_array_equal(modal_ik(dog, basis, targets, modes=8), res.qpos)


def test_eigenvalue_weighting_is_optimal(dog, basis):
    targets, _ = reachable(dog, basis)
    lam = basis.eigenvalues[:8]
    w = solve_modal_ik(dog, basis, targets, modes=8)
    u = solve_modal_ik(dog, basis, targets, modes=8, weights="uniform")
    assert u.converged and u.residual <= 1e-9
    assert lam @ w.coords ** 2 < lam @ u.coords ** 2
    assert np.sum(u.coords ** 2) < np.sum(w.coords ** 2)  # each is least in its own norm
    # KKT: W c lies in the row space of the constraint Jacobian at the solution
    _, A = modal_jacobian(dog, basis, list(targets), None, w.coords, modes=8)
    g = lam * w.coords
    proj = A.T @ np.linalg.lstsq(A.T, g, rcond=None)[0]
    assert np.linalg.norm(g - proj) < 1e-7 * np.linalg.norm(g)
    same = solve_modal_ik(dog, basis, targets, modes=8, weights=np.r_[lam])
    np.testing.assert_allclose(same.coords, w.coords, atol=1e-12)


def test_free_axes_and_body_targets(dog, basis):
    start = dog.contact_positions(basis.rest_qpos)["front_left_foot"]
    goal = np.array([np.nan, np.nan, start[2] + 0.02])  # only lift it 2 cm
    res = solve_modal_ik(dog, basis, {"front_left_foot": goal})
    assert res.converged
    assert dog.contact_positions(res.qpos)["front_left_foot"][2] == pytest.approx(start[2] + 0.02, abs=1e-9)
    # a body target is its contact point's mean, or its origin without one
    (b, p), = target_points(dog, ["head"])
    assert b == dog.body_id("head") and np.all(p == 0)
    (b, p), = target_points(dog, ["front_left_paw"])
    np.testing.assert_allclose(p, dog.model.site_pos[dog.contacts["front_left_foot"]])


def test_errors(dog, basis):
    with pytest.raises(UnknownNameError) as err:
        modal_ik(dog, basis, {"tail_tip": np.zeros(3)})
    assert str(err.value) == ("unknown IK target 'tail_tip' in dog (contact points: rear_left_foot, "
                              "rear_right_foot, front_left_foot, front_right_foot; or any body name)")
    for kwargs, message in [
        (dict(modes=21), "modes must be between 1 and 20 (the elastic modes computed), got 21"),
        (dict(weights="soft"), "unknown weights 'soft' (choose eigenvalues, uniform, or give an array)"),
        (dict(weights=np.ones(3)), "weights must be 20 positive numbers (one per mode used), got 3"),
        (dict(weights=-np.ones(20)), "weights must be positive finite numbers"),
        (dict(qpos_start=np.zeros(5)), "qpos_start must have shape (103,), got (5,)"),
        (dict(damping=-1.0), "damping must be a non-negative number, got -1.0"),
    ]:
        with pytest.raises(GaitforgeError) as err:
            modal_ik(dog, basis, {"head": np.zeros(3)}, **kwargs)
        assert str(err.value) == message


@pytest.fixture(scope="module")
def trot(dog, basis):
    return synthesize(dog, basis, dog_trot(dog, basis), 4.0)


@pytest.fixture(scope="module")
def pinned(dog, basis, trot):
    return pin_stance_feet(dog, basis, trot)


def test_pinning_removes_skate(dog, trot, pinned):
    before = gait_metrics(dog, trot, detect_footfalls(dog, trot))
    after = gait_metrics(dog, pinned, detect_footfalls(dog, pinned))
    assert before.foot_skate > 0.05  # what grounding alone leaves on this trot (~14 %)
    assert after.foot_skate < 0.01 < 0.05
    assert classify_gait(after) == "trot"
    assert after.speed == pytest.approx(before.speed, rel=0.02)


def test_pinned_feet_hold_their_touchdown_position(dog, trot, pinned):
    ff = detect_footfalls(dog, trot)
    P = foot_positions(dog, pinned.qpos, feet_of(dog))
    runs = 0
    for i in range(len(ff.names)):
        c = ff.contact[:, i]
        starts = np.flatnonzero(c & ~np.r_[False, c[:-1]])
        for s in starts:
            e = s + int(np.argmin(c[s:])) if not c[s:].all() else len(c)
            np.testing.assert_allclose(P[s:e, i, :2], np.broadcast_to(P[s, i, :2], (e - s, 2)), atol=2e-6)
            runs += 1
    assert runs >= 30


def test_pinning_adds_no_pops(dog, trot, pinned):
    """Pinning starts where the corrected foot is and leaves heights free, so
    the joints' frame-to-frame accelerations stay close to the original's."""
    def peak(q):
        return np.abs(np.diff(q[:, 7:], 2, axis=0)).max()

    assert peak(pinned.qpos) < 1.25 * peak(trot.qpos)
    assert np.abs(pinned.qpos[:, 2] - trot.qpos[:, 2]).max() < 0.005  # root height barely moved


def test_synthesize_pin_feet(dog, basis, pinned):
    """synthesize(pin_feet=True) pins (keeping the steadied head and root
    heading, motion.steady.kept_chains), then puts the lowest foot back on
    z = 0 (a uniform vertical shift per frame: the horizontal pins still hold)."""
    from gaitforge.motion.steady import kept_chains

    clip = synthesize(dog, basis, dog_trot(dog, basis), 4.0, pin_feet=True)
    pinned = pin_stance_feet(dog, basis, synthesize(dog, basis, dog_trot(dog, basis), 4.0), keep=kept_chains(dog))
    np.testing.assert_array_equal(clip.qpos, touch_ground(dog, pinned.qpos))
    P = foot_positions(dog, clip.qpos, feet_of(dog))
    np.testing.assert_allclose(P[..., 2].min(axis=1), 0.0, atol=1e-12)
    np.testing.assert_allclose(P[..., :2], foot_positions(dog, pinned.qpos, feet_of(dog))[..., :2], atol=1e-12)


def test_on_the_ground_extends_the_hold_to_a_foot_still_down():
    """plant_feet's schedule: a landing foot already on the ground is held from
    then (at most half the swing before), a paw lifting off is held while
    still low (at most half the swing after); a foot with a sole is not."""
    from gaitforge.motion.plant import _on_the_ground

    stance = np.zeros((20, 2), bool)
    stance[6:12] = True
    low = np.zeros((20, 2), bool)
    low[2:6] = True                                     # down 4 frames before its planned stance...
    low[12:15] = True                                   # ...and 3 after it
    low[0:2, 1] = True
    C, held = _on_the_ground(stance, low, np.array([True, False]))
    assert C[:, 0].tolist() == [False] * 3 + [True] * 9 + [False] * 8   # 3 = half of the 6 frames of swing before
    assert held[:, 0].tolist() == [False] * 12 + [True] * 3 + [False] * 5
    assert C[:, 1].tolist() == C[:, 0].tolist() and not held[:, 1].any()   # a sole rolls off its toe


def test_settled_solve_stops_at_the_least_squares_compromise(dog, basis):
    """Out of reach (a foot 1 m below the body) the settling solve stops where
    the miss stops falling, and within reach it meets the goal with the same
    weighted norm as the plain solve (within 1e-6) in no more iterations."""
    import importlib

    mik = importlib.import_module("gaitforge.motion.modal_ik")
    phi, w = modal_columns(basis, None)
    feet = feet_of(dog)
    prob = mik._Problem(dog, phi, [(dog.body_id(f.body), np.array(f.point)) for f in feet])
    x0 = foot_positions(dog, dog.rest_qpos[None], feet)[0]
    c0 = np.zeros(phi.shape[1])
    goal = x0.copy()
    goal[0] += [0.03, 0.0, 0.02]
    plain = mik._solve(prob, goal.reshape(-1), dog.rest_qpos, w, c0, tol=1e-6, max_iter=50, damping=0.0)
    settled = mik._solve(prob, goal.reshape(-1), dog.rest_qpos, w, c0, tol=1e-6, max_iter=50, damping=0.0,
                         settle=True)
    assert settled.converged and settled.iterations <= plain.iterations
    assert np.sum(w * settled.coords ** 2) == pytest.approx(np.sum(w * plain.coords ** 2), rel=1e-6)
    far = x0.copy()
    far[0, 2] -= 1.0
    res = mik._solve(prob, far.reshape(-1), dog.rest_qpos, w, c0, tol=1e-6, max_iter=50, damping=0.0, settle=True)
    assert not res.converged and res.iterations < 50 and np.isfinite(res.coords).all()


def _still_clip(dog, basis, frames=3):
    """The rest pose held for a few frames, with no foot down."""
    clip = MotionClip(60.0, np.repeat(basis.rest_qpos[None], frames, axis=0), dog.name)
    ff = detect_footfalls(dog, clip)
    return clip, type(ff)(ff.times, np.zeros_like(ff.contact), ff.names)


def test_soft_goals_yield_to_held_targets(dog, basis):
    """A soft goal is met where the held targets leave room and never pulls
    them off: the root held where it stands, a foot moves most of the way
    (damped) to a soft goal 2 cm forward with the root in place (to 1e-6 m); with the
    same foot also held where it stands, the hold wins exactly."""
    clip, ff = _still_clip(dog, basis)
    T = clip.n_frames
    root = dog.bodies[0]
    here = {n: np.repeat(p[None], T, axis=0) for n, p in dog.contact_positions(basis.rest_qpos).items()}
    root_here = dog.world_points(clip.qpos, [root], np.zeros((1, 3)))[:, 0]
    ahead = here["front_left_foot"] + [0.02, 0.0, 0.0]
    free = np.full((T, 3), np.nan)
    ahead_x = free.copy()
    ahead_x[:, 0] = ahead[:, 0]

    out = pin_stance_feet(dog, basis, clip, footfalls=ff, hold={root: root_here, "front_left_foot": free},
                          soft={"front_left_foot": ahead_x}, translate=True).qpos
    np.testing.assert_allclose(dog.world_points(out, [root], np.zeros((1, 3)))[:, 0], root_here, atol=1e-6)
    moved = dog.contact_positions(out[-1])["front_left_foot"][0] - here["front_left_foot"][-1, 0]
    assert 0.018 <= moved <= 0.02 + 1e-9                   # most of the way: the soft rows are damped

    held_x = free.copy()
    held_x[:, 0] = here["front_left_foot"][:, 0]
    out = pin_stance_feet(dog, basis, clip, footfalls=ff, hold={root: root_here, "front_left_foot": held_x},
                          soft={"front_left_foot": ahead_x}, translate=True).qpos
    np.testing.assert_allclose(dog.contact_positions(out[-1])["front_left_foot"][0], here["front_left_foot"][-1, 0],
                               atol=1e-6)


def test_soft_goal_errors(dog, basis):
    clip, ff = _still_clip(dog, basis)
    goal = np.zeros((clip.n_frames, 3))
    with pytest.raises(GaitforgeError, match=r"^pin_stance_feet: soft goals need a held target of the same name, "
                                             r"not \['front_left_foot'\]$"):
        pin_stance_feet(dog, basis, clip, footfalls=ff, soft={"front_left_foot": goal})
    with pytest.raises(GaitforgeError, match=r"^pin_stance_feet: soft goal 'front_left_foot' needs a \(3, 3\) array$"):
        pin_stance_feet(dog, basis, clip, footfalls=ff, hold={"front_left_foot": goal},
                        soft={"front_left_foot": goal[:2]})


@pytest.mark.parametrize("name", registry.names())
def test_compiled_jacobian_equals_mujocos(name):
    """Two formulations agree: the IK's compiled point Jacobians (MuJoCo's motion
    subspaces walked along each point's chain, times the coordinates' effect)
    equal ``mj_jac`` / ``mj_jacSubtreeCom`` times the same effect, to rounding, for
    every creature at random poses (points on every body, the centre of mass)."""
    from gaitforge.motion.ik_kernels import ball_columns
    from gaitforge.motion.modal_ik import _Problem

    c = Character.from_spec(registry.build(name))
    b = compute_modes(c, count=12)
    phi, _ = modal_columns(b)
    names = [CENTRE_OF_MASS] + list(c.labels)
    prob = _Problem(c, phi, target_points(c, names))
    rng = np.random.default_rng(3)
    for _ in range(3):
        coords = rng.normal(size=phi.shape[1]) * 0.3
        _, x, A = prob.evaluate(b.rest_qpos, coords)
        eff = phi.copy()
        ball_columns(phi @ coords, prob.qv, prob.phi_balls, eff)
        for i, body in enumerate(prob.ids):
            J = np.zeros((3, c.model.nv))
            if body < 0:
                mujoco.mj_jacSubtreeCom(c.model, prob.d, J, 0)
            else:
                mujoco.mj_jac(c.model, prob.d, J, None, x[i], body)
            np.testing.assert_allclose(A[3 * i:3 * i + 3], J @ eff, rtol=0, atol=1e-12 * max(1.0, np.abs(A).max()))


def _soft_reference(A, x, goal, soft, c, scale, damping):
    """The soft step in plain numpy: pseudo-inverse of the held rows, damped least
    squares of the soft rows in their null space (the k × k normal equations)."""
    hard, want = np.isfinite(goal), np.isfinite(soft)
    B1 = A[hard] * scale
    P1 = np.linalg.pinv(B1, rcond=1e-10)
    y = P1 @ ((goal - x)[hard] + A[hard] @ c)
    N = np.eye(len(c)) - P1 @ B1
    B2 = A[want] * scale @ N
    r2 = (soft - x)[want] + A[want] @ c - (A[want] * scale) @ y
    y = y + N @ np.linalg.solve(B2.T @ B2 + damping * np.eye(len(c)), B2.T @ r2)
    return scale * y - c


@pytest.mark.parametrize("case", ["independent", "dependent", "conflicting"])
def test_compiled_soft_step_matches_the_pseudo_inverse(case):
    """The compiled two-priority step (Gram–Schmidt on independent held rows, the
    singular value decomposition where they are dependent) equals the plain
    pseudo-inverse formulation it replaced, to 1e-9 of the step."""
    from gaitforge.motion.ik_kernels import soft_step

    rng = np.random.default_rng({"independent": 0, "dependent": 1, "conflicting": 2}[case])
    k, rows = 43, 18
    A = rng.normal(size=(rows, k))
    if case != "independent":   # row 5 repeats row 2: rank-deficient held rows
        A[5] = A[2]
    x, c, scale = rng.normal(size=rows), rng.normal(size=k) * 0.1, 1.0 / np.sqrt(rng.uniform(1, 100, k))
    goal = np.full(rows, np.nan)
    goal[:10] = rng.normal(size=10)
    if case == "dependent":     # consistent goals for the repeated row
        goal[5] = goal[2] - x[2] + x[5]
    soft = np.full(rows, np.nan)
    soft[10:16] = rng.normal(size=6)
    moved = np.empty(k)
    soft_step(A, x, goal, soft, np.flatnonzero(np.isfinite(goal)), np.flatnonzero(np.isfinite(soft)), c, scale,
               1e-4, moved)
    want = _soft_reference(A, x, goal, soft, c, scale, 1e-4)
    np.testing.assert_allclose(moved, want, rtol=0, atol=1e-9 * np.abs(want).max())
