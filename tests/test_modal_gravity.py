"""Gravity in the modal analysis: the analytic Hessian against MuJoCo's own
gravity forces and potential energy, pendulum oracles, supports through
constraints against minimal coordinates, free fall, unstable modes."""
from __future__ import annotations

import math
import warnings

import mujoco
import numpy as np
import pytest

from gaitforge.creatures import Bone, Character, Constraint, CreatureSpec, Inertial, Joint, build_builtin
from gaitforge.creatures.builders.kit import capsule, quat_axis_angle
from gaitforge.modal import METHODS, compute_modes
from gaitforge.modal.gravity import gravity_gradient_hessian
from modal_specs import G, blob, pendulum, pendulum_frequency, quadruped, zoo

CREATURES = {"zoo_free": lambda: zoo("free"), "zoo_planar": lambda: zoo("planar"), "quadruped": quadruped}


def _state(ch, q):
    d = mujoco.MjData(ch.model)
    d.qpos[:] = q
    mujoco.mj_forward(ch.model, d)  # qvel = 0: qfrc_bias is gravity alone
    return d


def _pose(ch, at_rest: bool) -> np.ndarray:
    q = ch.rest_qpos.copy()
    if not at_rest:
        mujoco.mj_integratePos(ch.model, q, 0.3 * np.random.default_rng(3).standard_normal(ch.nv), 1.0)
    return q


def _potential(ch, q) -> float:
    d = mujoco.MjData(ch.model)
    d.qpos[:] = q
    mujoco.mj_kinematics(ch.model, d)
    return float(-ch.model.body_mass @ d.xipos @ ch.model.opt.gravity)


@pytest.mark.parametrize("name", list(CREATURES))
@pytest.mark.parametrize("at_rest", [True, False])
def test_gravity_hessian_matches_mujoco_forces_and_energy(name, at_rest):
    ch = Character.from_spec(CREATURES[name]())
    q0 = _pose(ch, at_rest)
    grad, H = gravity_gradient_hessian(ch.model, _state(ch, q0))
    np.testing.assert_allclose(grad, _state(ch, q0).qfrc_bias, atol=1e-12)
    np.testing.assert_array_equal(H, H.T)
    # (1) symmetrized central differences of MuJoCo's gravity force qfrc_bias
    h, cols = 1e-6, []
    for k in range(ch.nv):
        pair = []
        for s in (h, -h):
            q = q0.copy()
            mujoco.mj_integratePos(ch.model, q, np.eye(ch.nv)[k], s)
            pair.append(_state(ch, q).qfrc_bias.copy())
        cols.append((pair[0] - pair[1]) / (2 * h))
    D = np.array(cols).T
    scale = np.abs(H).max()
    np.testing.assert_allclose(H, 0.5 * (D + D.T), atol=1e-6 * scale)
    # (2) second differences of the potential energy along random direction pairs
    rng = np.random.default_rng(11)
    h = 1e-4
    for _ in range(4):
        u, w = rng.standard_normal((2, ch.nv))
        vals = []
        for a, b in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
            q = q0.copy()
            mujoco.mj_integratePos(ch.model, q, a * h * u + b * h * w, 1.0)
            vals.append(_potential(ch, q))
        fd = (vals[0] - vals[1] - vals[2] + vals[3]) / (4 * h * h)
        assert fd == pytest.approx(u @ H @ w, abs=1e-5 * scale * np.linalg.norm(u) * np.linalg.norm(w))


@pytest.mark.parametrize("method", METHODS)
def test_sprung_pendulum_under_gravity(method):
    ch = Character.from_spec(pendulum(k=3.0, mass=2.0, length=0.5, inertia=(0.01, 0.02, 0.03)))
    basis = compute_modes(ch, gravity=True, method=method)
    assert basis.gravity is True
    assert basis.frequencies[0] == pytest.approx(pendulum_frequency(3.0, 2.0 * G * 0.5, 0.02 + 0.5), rel=1e-9)


def test_point_mass_pendulum_is_sqrt_g_over_l():
    # Inertia (0, 0, 0) compiles to 1e-9 kg m², negligible against m l² = 0.5 kg m².
    basis = compute_modes(Character.from_spec(pendulum(k=0.0, mass=2.0, length=0.5, inertia=(0, 0, 0))), gravity=True)
    assert basis.frequencies[0] == pytest.approx(math.sqrt(G / 0.5) / (2 * math.pi), rel=1e-8)


def test_rigid_body_pendulum_is_sqrt_mgd_over_pivot_inertia():
    basis = compute_modes(Character.from_spec(pendulum(k=0.0, mass=1.5, length=0.3, inertia=(0.03, 0.05, 0.04))),
                          gravity=True)
    assert basis.frequencies[0] == pytest.approx(pendulum_frequency(0.0, 1.5 * G * 0.3, 0.05 + 1.5 * 0.09), rel=1e-9)


@pytest.mark.parametrize("method", METHODS)
def test_pinned_free_body_swings_about_the_pin(method):
    """A free box pinned 0.2 m above its centre: the pin's reaction force gives
    the stiffness (constraint-force curvature); spin about the vertical stays rigid."""
    ch = Character.from_spec(blob())
    d = 0.2
    pin = Constraint("pin", "pin", "body", point=(0.0, 0.0, d))
    basis = compute_modes(ch, gravity=True, constraints=[pin], method=method)
    m = ch.model.body_mass[1]
    Ixx, Iyy = 1.2 * (0.05 ** 2 + 0.03 ** 2) / 3, 1.2 * (0.1 ** 2 + 0.03 ** 2) / 3  # box, half sizes 0.1, 0.05, 0.03
    expected = sorted(pendulum_frequency(0.0, m * G * d, inertia + m * d * d) for inertia in (Ixx, Iyy))
    assert basis.n_rigid == 1
    np.testing.assert_allclose(basis.frequencies, expected, rtol=1e-9)
    assert np.all(compute_modes(ch, constraints=[pin]).n_rigid == 3)  # without gravity all three swing freely


def _hanging_chain(hung_by_ball: bool) -> CreatureSpec:
    """A 6-link chain hanging straight down from (0, 0, 2): either a ball joint
    on a base welded to the world, or a free root whose frame sits mid-link
    (so the pin at its top end curves in the root's coordinates)."""
    down = quat_axis_angle((0, 1, 0), math.pi / 2)  # bone x axis points down
    link = (capsule((0, 0, 0), (0.1, 0, 0), 0.015),)
    if hung_by_ball:
        bones = [Bone("base", None, (), Joint("fixed"), pos=(0, 0, 2), inertial=Inertial(1e-3, inertia=(1e-6,) * 3)),
                 Bone("link0", "base", link, Joint("ball", stiffness=0.0), quat=down)]
        first = (0.1, 0, 0)
    else:
        bones = [Bone("link0", None, (capsule((-0.05, 0, 0), (0.05, 0, 0), 0.015),), Joint("free"),
                      pos=(0, 0, 1.95), quat=down)]
        first = (0.05, 0, 0)
    for i in range(1, 6):
        bones.append(Bone(f"link{i}", f"link{i - 1}", link,
                          Joint("hinge", axis=(0, 1, 0) if i % 2 else (0, 0, 1), stiffness=0.05),
                          pos=first if i == 1 else (0.1, 0, 0)))
    return CreatureSpec("chain", tuple(bones), ground_clearance=None)


@pytest.mark.parametrize("method", METHODS)
def test_support_by_a_pin_matches_support_by_a_joint(method):
    """At an equilibrium, holding the chain with a pin constraint (full-rank
    free root, constraint forces and their curvature) and hanging it from a
    ball joint (minimal coordinates, no constraint) are the same system."""
    pinned = compute_modes(Character.from_spec(_hanging_chain(False)), gravity=True,
                           constraints=["pin:link0@-0.05,0,0"], method=method)
    hung = compute_modes(Character.from_spec(_hanging_chain(True)), gravity=True, method=method)
    assert (pinned.n_rigid, pinned.count) == (hung.n_rigid, hung.count) == (1, 7)
    np.testing.assert_allclose(pinned.frequencies, hung.frequencies, rtol=1e-7)
    no_gravity = compute_modes(Character.from_spec(_hanging_chain(True)))
    assert no_gravity.n_rigid == 3  # without gravity nothing resists the swing about the pivot


def test_free_creature_falls_freely_and_gravity_changes_nothing():
    ch = Character.from_spec(build_builtin("worm"))
    with pytest.warns(UserWarning) as record:
        basis = compute_modes(ch, gravity=True)
    assert [str(r.message) for r in record] == [
        "worm: gravity does not change the modes: nothing holds the creature up, so it falls freely and in the "
        "falling frame gravity vanishes; pin a body to the world (e.g. 'pin:BODY') to support it"]
    np.testing.assert_array_equal(basis.frequencies, compute_modes(ch).frequencies)
    with pytest.warns(UserWarning, match="falls freely"):  # an orientation lock does not hold it up either
        compute_modes(ch, gravity=True, constraints=["lock:link0"])


def test_inverted_pendulum_is_reported_unstable():
    ch = Character.from_spec(pendulum(k=1.0, mass=2.0, length=-0.5, inertia=(0.01, 0.02, 0.03)))
    with pytest.warns(UserWarning) as record:
        basis = compute_modes(ch, gravity=True)
    assert [str(r.message) for r in record] == [
        "pendulum: 1 mode(s) are unstable under gravity (negative stiffness); their frequencies are reported negative"]
    lam = (1.0 - 2.0 * G * 0.5) / 0.52
    assert basis.eigenvalues[0] == pytest.approx(lam, rel=1e-9)
    assert basis.frequencies[0] == pytest.approx(-math.sqrt(-lam) / (2 * math.pi), rel=1e-9)
    assert basis.decay_rates[0] < 0  # it grows


def test_gravity_agrees_between_formulations_on_a_supported_creature():
    ch = Character.from_spec(zoo("free"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sagging pose may leave unstable modes
        a = compute_modes(ch, gravity=True, constraints=["pin:shin", "pin:hand"])
        b = compute_modes(ch, gravity=True, constraints=["pin:shin", "pin:hand"], method="full")
    np.testing.assert_allclose(b.frequencies, a.frequencies, rtol=1e-6)
    # without gravity, turning about the line through both pins costs nothing
    assert (a.n_rigid, compute_modes(ch, constraints=["pin:shin", "pin:hand"]).n_rigid) == (0, 1)
