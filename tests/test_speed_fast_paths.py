"""The faster kinematics behind ``suggest_at_speed`` (issue 9 item 6) give the
numbers the plain versions give: forward kinematics of many frames
(``Character.world_points``), joint rotations in one numpy pass
(``gait_features.joint_rotations`` / ``peak_rotation``), the right Jacobians of
the modal IK, and the walk candidates that skip the unpinned check whose
result was thrown away."""
import importlib

import mujoco
import numpy as np
import pytest

from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.modal import compute_modes
from gaitforge.motion import gait_features as gfe
from gaitforge.motion import ik_kernels, speed
from gaitforge.motion.recipe import GaitTerm

modal_ik = importlib.import_module("gaitforge.motion.modal_ik")  # the package re-exports a function of that name


@pytest.fixture(scope="module", params=["dog", "human"])
def creature(request):
    c = Character.from_spec(registry.build(request.param))
    return c, compute_modes(c, count=20)


def _plain_world_points(character, qpos, bodies, local):
    """One fresh MjData, frame by frame: x = xpos + R · local."""
    d = mujoco.MjData(character.model)
    ids = [character.body_id(b) for b in bodies]
    out = []
    for q in np.atleast_2d(qpos):
        d.qpos[:] = q
        mujoco.mj_kinematics(character.model, d)
        out.append([d.xpos[i] + d.xmat[i].reshape(3, 3) @ p for i, p in zip(ids, local)])
    return np.array(out)


def test_world_points_match_frame_by_frame_kinematics(creature):
    c, _ = creature
    rng = np.random.default_rng(7)
    q = c.rest_qpos + 0.3 * rng.standard_normal((40, c.nq))
    for n in (1, 3, 9):
        pick = rng.choice(len(c.bodies), n)          # repeats allowed, any order
        bodies = [c.bodies[i] for i in pick]
        local = rng.uniform(-0.2, 0.2, (n, 3))
        want = _plain_world_points(c, q, bodies, local)
        np.testing.assert_allclose(c.world_points(q, bodies, local), want, rtol=0, atol=1e-14)
        np.testing.assert_allclose(c.world_points(q[5], bodies, local), want[5], rtol=0, atol=1e-14)


def _plain_groups(character):
    return [j.dof for j in character.joints.values() if j.kind in ("hinge", "ball", "gimbal")]


def test_joint_rotations_match_per_joint_norms(creature):
    c, basis = creature
    rng = np.random.default_rng(3)
    shapes = rng.standard_normal((c.nv, 12))
    want = [max(float(np.linalg.norm(s[g])) for g in _plain_groups(c)) for s in shapes.T]
    np.testing.assert_allclose(gfe.joint_rotations(c, shapes), want, rtol=1e-15, atol=0)
    terms = [GaitTerm(mode=m, amplitude=0.3, frequency=f, phase=0.7 * m, offset=0.01 * m)
             for m, f in ((0, 1.2), (3, 2.4), (7, 1.2), (11, 3.6))]
    t = np.linspace(0.0, 1 / 1.2, 128, endpoint=False)[:, None]
    a = np.array([[x.amplitude, x.frequency, x.phase, x.offset] for x in terms]).T
    dq = (a[0] * np.sin(2 * np.pi * a[1] * t + a[2]) + a[3]) @ basis.shapes[:, [x.mode for x in terms]].T
    want_peak = max(float(np.linalg.norm(dq[:, g], axis=1).max()) for g in _plain_groups(c))
    assert gfe.peak_rotation(c, basis, terms) == pytest.approx(want_peak, rel=1e-15, abs=0)


def test_right_jacobians_are_the_exponential_maps():
    """J_r(v) = I − (1 − cos θ)/θ² [v]× + (θ − sin θ)/θ³ [v]×², [v]× x = v × x,
    from tiny angles (the series) to large ones."""
    rng = np.random.default_rng(5)
    v = rng.standard_normal((200, 3)) * 10.0 ** rng.uniform(-7, 0.4, (200, 1))
    J = modal_ik._right_jacobians(v)
    x = rng.standard_normal(3)
    for vi, Ji in zip(v, J):
        th = np.linalg.norm(vi)
        K = np.cross(np.eye(3), vi).T * -1.0          # columns v × e_k
        np.testing.assert_allclose(K @ x, np.cross(vi, x), atol=1e-15)
        a = 0.5 - th * th / 24 if th < 1e-4 else (1 - np.cos(th)) / th ** 2
        b = 1 / 6 - th * th / 120 if th < 1e-4 else (th - np.sin(th)) / th ** 3
        np.testing.assert_allclose(Ji, np.eye(3) - a * K + b * K @ K, rtol=0, atol=1e-14)


def test_walks_skip_the_unpinned_check_flying_gaits_keep_it(monkeypatch):
    """Planted walks were always checked pinned, so their unpinned check is not
    made; flying gaits still screen candidates on the unpinned clip."""
    c = Character.from_spec(registry.build("dog"))
    basis = compute_modes(c, count=20)
    made = []
    real = speed.check_at_speed

    def spy(*args, pinned=True, **kwargs):
        made.append((args[5], pinned))
        return real(*args, pinned=pinned, **kwargs)

    monkeypatch.setattr(speed, "check_at_speed", spy)
    speed.suggest_at_speed(c, "walk", basis, froude=0.1)
    assert made and all(p for g, p in made)
    made.clear()
    speed.suggest_at_speed(c, "bound", basis, froude=2.0)
    assert ("bound", False) in made


def test_ball_kernel_matches_the_right_jacobians():
    """The compiled ball-row kernel is J_r(v) Φ_b (einsum of ``_right_jacobians``)."""
    rng = np.random.default_rng(11)
    nv, k, nb = 40, 9, 8
    balls = rng.permutation(nv)[:3 * nb].reshape(nb, 3).astype(np.int64)
    phi = rng.standard_normal((nv, k))
    for size in (1e-6, 1e-2, 1.0, 3.0):
        dv = size * rng.standard_normal(nv)
        eff = phi.copy()
        ik_kernels.ball_columns(dv, balls, np.ascontiguousarray(phi[balls]), eff)
        want = phi.copy()
        want[balls] = np.einsum("nij,njk->nik", modal_ik._right_jacobians(dv[balls]), phi[balls])
        np.testing.assert_allclose(eff, want, rtol=0, atol=1e-14 * max(1.0, size))


def test_compiled_ik_step_is_the_least_norm_solution():
    """Where the goal rows are independent the compiled step is numpy's
    least-squares step; dependent rows, or more rows than modes, are left to
    numpy (the kernel says so)."""
    rng = np.random.default_rng(13)
    k = 12
    for trial in range(200):
        n = int(rng.integers(2, 10))
        A = rng.standard_normal((n, k)) * 10.0 ** rng.uniform(-3, 1)
        goal = rng.standard_normal(n)
        goal[rng.random(n) < 0.25] = np.nan
        x, c, scale = rng.standard_normal(n), rng.standard_normal(k), rng.uniform(0.01, 2.0, k)
        rows = np.isfinite(goal)
        step = np.empty(k)
        ok = ik_kernels.min_norm_step(A, np.flatnonzero(rows), goal, x, c, scale, step)
        want = scale * np.linalg.lstsq(A[rows] * scale, (goal - x)[rows] + A[rows] @ c, rcond=1e-10)[0] - c
        assert ok == bool(rows.any())
        if ok:
            np.testing.assert_allclose(step, want, rtol=0, atol=1e-12 * max(1.0, np.abs(want).max()))
    A = rng.standard_normal((4, k))
    A[1] = 2 * A[0]                                   # dependent rows
    assert not ik_kernels.min_norm_step(A, np.arange(4), np.zeros(4), np.zeros(4), np.zeros(k), np.ones(k),
                                       np.empty(k))
    tall = rng.standard_normal((k + 3, k))            # more goal rows than modes
    assert not ik_kernels.min_norm_step(tall, np.arange(k + 3), np.zeros(k + 3), np.zeros(k + 3), np.zeros(k),
                                       np.ones(k), np.empty(k))


def test_compiled_ik_helpers_match_numpy():
    rng = np.random.default_rng(17)
    xpos, xmat = rng.standard_normal((9, 3)), rng.standard_normal((9, 9))
    bodies, local = np.array([2, 7, 2, 5], np.int64), rng.standard_normal((4, 3))
    out = np.empty((4, 3))
    ik_kernels.body_points(xpos, xmat, bodies, local, out)
    want = xpos[bodies] + np.einsum("nij,nj->ni", xmat[bodies].reshape(-1, 3, 3), local)
    np.testing.assert_allclose(out, want, rtol=0, atol=1e-15)
    goal, x = rng.standard_normal(12), rng.standard_normal(12)
    goal[[1, 4]] = np.nan
    rows = np.isfinite(goal)
    assert ik_kernels.largest_miss(goal, x, np.flatnonzero(rows)) == np.abs(goal - x)[rows].max()
    assert ik_kernels.largest_miss(goal, x, np.zeros(0, np.int64)) == 0.0
    moved, c = 1e-9 * rng.standard_normal(7), rng.standard_normal(7)
    for tol in (1e-12, 1e-8, 1e-6):
        assert ik_kernels.settled(moved, c, tol) == (np.abs(moved).max() <= tol * (1 + np.abs(c).max()))
