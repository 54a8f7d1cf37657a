"""Modal analysis core: analytic oracles, the two formulations against each
other, residuals, symmetry, repeated frequencies, damping, the result type."""
from __future__ import annotations

import dataclasses
import math
import warnings

import mujoco
import numpy as np
import pytest

from gaitforge.creatures import Character, Constraint, Inertial, build_builtin, builtin_names
from gaitforge.errors import GaitforgeError
from gaitforge.modal import METHODS, ModalBasis, compute_modes, mirror_matrix, rayleigh
from gaitforge.modal.constraints import anchor_all, constraint_jacobian
from modal_specs import dumbbell, frequency_groups, max_subspace_angle, pendulum, quadruped, zoo

_CACHE: dict[str, Character] = {}


def character(name: str) -> Character:
    """Built-in or ad-hoc creature by name, compiled once per test session."""
    if name not in _CACHE:
        specs = {"zoo_free": lambda: zoo("free"), "zoo_planar": lambda: zoo("planar"),
                 "zoo_fixed": lambda: zoo("fixed"), "quadruped": quadruped}
        _CACHE[name] = Character.from_spec(specs[name]() if name in specs else build_builtin(name))
    return _CACHE[name]


ALL = list(builtin_names()) + ["zoo_free", "zoo_planar", "zoo_fixed", "quadruped"]


# ------------------------------------------------------------------ oracles
@pytest.mark.parametrize("method", METHODS)
def test_spring_pendulum_frequency_is_sqrt_k_over_inertia(method):
    k, mass, length, inertia = 3.0, 2.0, 0.5, (0.01, 0.02, 0.03)
    basis = compute_modes(Character.from_spec(pendulum(k, mass, length, inertia)), method=method)
    assert basis.n_rigid == 0 and basis.count == 1
    expected = math.sqrt(k / (inertia[1] + mass * length * length)) / (2 * math.pi)
    assert basis.frequencies[0] == pytest.approx(expected, rel=1e-9)
    assert basis.eigenvalues[0] == pytest.approx((2 * math.pi * expected) ** 2, rel=1e-9)


@pytest.mark.parametrize("method", METHODS)
def test_two_free_bodies_joined_by_a_hinge_spring(method):
    """Planar reduction with the hinge point eliminated (zero momentum):
    M = [[J1 + μd1², μd1d2], [μd1d2, J2 + μd2²]], μ = m1m2/(m1+m2), K = k(1,−1)(1,−1)ᵀ,
    so λ = k (1,−1) M⁻¹ (1,−1)ᵀ."""
    k, m1, J1, d1, m2, J2, d2 = 2.0, 1.0, 0.02, 0.3, 0.5, 0.004, 0.1
    basis = compute_modes(Character.from_spec(dumbbell(k, m1, J1, d1, m2, J2, d2)), method=method)
    mu = m1 * m2 / (m1 + m2)
    M = np.array([[J1 + mu * d1 * d1, mu * d1 * d2], [mu * d1 * d2, J2 + mu * d2 * d2]])
    v = np.array([1.0, -1.0])
    assert basis.n_rigid == 6 and basis.count == 1
    assert basis.eigenvalues[0] == pytest.approx(k * v @ np.linalg.solve(M, v), rel=1e-9)


def test_hinge_through_both_centres_gives_sqrt_k_times_inverse_inertias():
    """With the hinge through both centres of mass the inertias about the joint
    are the centroidal ones and f = √(k (1/I1 + 1/I2)) / 2π."""
    basis = compute_modes(Character.from_spec(dumbbell(k=2.0, J1=0.02, d1=0.0, J2=0.004, d2=0.0)))
    assert basis.frequencies[0] == pytest.approx(math.sqrt(2.0 * (1 / 0.02 + 1 / 0.004)) / (2 * math.pi),
                                                 rel=1e-9)


# ------------------------------------------------------- two formulations
def _agree(a: ModalBasis, b: ModalBasis) -> None:
    assert (a.n_rigid, a.count) == (b.n_rigid, b.count)
    np.testing.assert_allclose(b.frequencies, a.frequencies, rtol=1e-6)
    for group in frequency_groups(a.frequencies):
        assert max_subspace_angle(a.shapes[:, group], b.shapes[:, group]) < 1e-6
    assert max_subspace_angle(a.rigid_shapes, b.rigid_shapes) < 1e-6


@pytest.mark.parametrize("name", ALL)
def test_generalized_and_full_coordinates_agree(name):
    ch = character(name)
    _agree(compute_modes(ch), compute_modes(ch, method="full"))


@pytest.mark.parametrize("constraints", [("pin:hand", "loop:head:shin~0,1,0"), ("lock:head",),
                                         ("loop:tail:hand",)])
def test_formulations_agree_with_extra_constraints(constraints):
    ch = character("zoo_free")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _agree(compute_modes(ch, constraints=constraints), compute_modes(ch, constraints=constraints, method="full"))


def test_formulations_agree_with_a_sprung_hinge_closure_and_scaled_springs():
    ch = character("zoo_free")
    c = Constraint("hold", "loop", "head", other="shin", point=(0.05, 0, 0), axis=(0, 1, 0), stiffness=0.8)
    a = compute_modes(ch, constraints=[c], stiffness_scale=2.5)
    _agree(a, compute_modes(ch, constraints=[c], stiffness_scale=2.5, method="full"))
    unsprung = compute_modes(ch, constraints=[dataclasses.replace(c, stiffness=0.0)], stiffness_scale=2.5)
    assert np.all(a.frequencies >= unsprung.frequencies - 1e-9) and not np.allclose(a.frequencies, unsprung.frequencies)


def test_stiffness_scale_scales_frequencies_by_its_square_root():
    ch = character("worm")
    np.testing.assert_allclose(compute_modes(ch, stiffness_scale=4.0).frequencies,
                               2.0 * compute_modes(ch).frequencies, rtol=1e-9)


# ----------------------------------------------------------- invariants
@pytest.mark.parametrize("name", ALL)
def test_residuals_orthonormality_and_admissibility(name):
    ch = character(name)
    basis = compute_modes(ch)
    M, K, N = basis.mass_matrix, basis.stiffness_matrix, basis.admissible
    phi = np.hstack([basis.rigid_shapes, basis.shapes])
    lam = np.r_[np.zeros(basis.n_rigid), basis.eigenvalues]
    assert basis.n_rigid + basis.count == (ch.nv if N is None else N.shape[1])
    np.testing.assert_allclose(phi.T @ M @ phi, np.eye(phi.shape[1]), atol=1e-9)
    residual = K @ phi - M @ phi * lam
    if N is not None:  # constraint forces Gᵀμ are outside the admissible space
        residual = N.T @ residual
    assert np.abs(residual).max() <= 1e-9 * max(np.abs(K).max(), 1.0) * max(1.0, np.abs(lam).max()) ** 0.5
    d = ch.make_data()
    G = constraint_jacobian(ch.model, d, anchor_all(ch, d, ch.constraints))
    assert np.abs(G @ phi).max(initial=0.0) < 1e-9
    assert np.all(np.diff(basis.frequencies) >= 0) and np.all(basis.frequencies > 0)


@pytest.mark.parametrize("name,rigid", [("worm", 6), ("loop", 6), ("zoo_planar", 3), ("zoo_fixed", 0)])
def test_rigid_mode_count(name, rigid):
    assert compute_modes(character(name)).n_rigid == rigid


def test_a_very_light_stiff_body_does_not_turn_slow_modes_rigid():
    """λ spans 11 decades here (a 1e-11 kg m² tip on a 1e4 N m/rad joint); rigid
    modes are counted on K̄'s null space, not by a threshold on λ."""
    spec = build_builtin("worm")
    tip = dataclasses.replace(spec.bones[-1], inertial=Inertial(1e-9, inertia=(1e-11, 1e-11, 1e-11)),
                              joint=dataclasses.replace(spec.bones[-1].joint, stiffness=1e4))
    basis = compute_modes(Character.from_spec(dataclasses.replace(spec, bones=spec.bones[:-1] + (tip,))))
    assert (basis.n_rigid, basis.count) == (6, 15)
    assert basis.eigenvalues[0] < 1e-10 * basis.eigenvalues[-1] and basis.frequencies[0] > 1.0


def test_loop_closure_leaves_19_dofs_and_frequencies_come_in_pairs():
    basis = compute_modes(character("loop"))
    assert basis.n_rigid + basis.count == 19
    assert [c.name for c in basis.constraints] == ["closure"]
    f = basis.frequencies
    pairs = np.abs(f[0:12:2] - f[1:12:2]) / f[1:12:2]
    assert np.all(pairs < 1e-6), pairs
    assert np.all(np.diff(f[1:12:2]) > 0.1 * f[1:12:2][:-1])  # distinct pairs, not one cluster


@pytest.mark.parametrize("knee_axis", [(0.0, 1.0, 0.0), (0.0, -1.0, 0.0)])
def test_symmetric_creature_modes_are_symmetric_or_antisymmetric(knee_axis):
    ch = Character.from_spec(quadruped(knee_axis))
    P = mirror_matrix(ch)
    basis = compute_modes(ch)
    np.testing.assert_allclose(P.T @ basis.mass_matrix @ P, basis.mass_matrix, atol=1e-12)
    np.testing.assert_allclose(P.T @ basis.stiffness_matrix @ P, basis.stiffness_matrix, atol=1e-12)
    parity = []
    for group in frequency_groups(basis.frequencies):
        S = basis.shapes[:, group]
        assert max_subspace_angle(S, P @ S) < 1e-6  # each eigenspace maps onto itself
        if len(group) == 1:
            parity.append(float(S[:, 0] @ basis.mass_matrix @ P @ S[:, 0]))
    assert np.allclose(np.abs(parity), 1.0, atol=1e-9)
    assert {round(p) for p in parity} == {-1, 1}


@pytest.mark.parametrize("name", builtin_names())
def test_builtin_eigenspaces_map_onto_themselves_under_mirroring(name):
    ch = character(name)
    try:
        P = mirror_matrix(ch)
    except GaitforgeError as err:  # an asymmetric creature has nothing to check here
        pytest.skip(str(err))
    basis = compute_modes(ch)
    for group in frequency_groups(basis.frequencies):
        assert max_subspace_angle(basis.shapes[:, group], P @ basis.shapes[:, group]) < 1e-6


def test_mirror_matrix_signs_for_hinges_about_x_y_z():
    ch = Character.from_spec(quadruped((0.0, -1.0, 0.0)))
    P = mirror_matrix(ch)
    dof = {name: ch.joints[name].dof.start for name in ch.joints}
    assert P[dof["right_hip"], dof["left_hip"]] == pytest.approx(-1.0)       # about x: flips
    assert P[dof["right_thigh"], dof["left_thigh"]] == pytest.approx(1.0)    # about y: keeps
    assert P[dof["right_shin"], dof["left_shin"]] == pytest.approx(-1.0)     # right axis is −y
    assert P[dof["tail"], dof["tail"]] == pytest.approx(-1.0)                # about z: flips
    assert P[dof["neck"], dof["neck"]] == pytest.approx(1.0)
    np.testing.assert_allclose(P @ P, np.eye(ch.nv), atol=1e-12)


def test_mirror_matrix_rejects_an_asymmetric_creature():
    with pytest.raises(GaitforgeError) as err:
        mirror_matrix(character("zoo_free"))
    assert str(err.value) == ("zoo_free is not mirror-symmetric at rest: body 'trunk' has no mirror image "
                              "(no center body with role trunk at its reflected position)")


# --------------------------------------------------------------- damping
def test_rayleigh_damping_formulas():
    basis = compute_modes(character("worm"), rayleigh=(0.4, 0.005))
    w = 2 * math.pi * basis.frequencies
    zeta = 0.4 / (2 * w) + 0.005 * w / 2
    under = zeta < 1
    assert under[:3].all() and not under.all()  # both regimes appear
    np.testing.assert_allclose(basis.decay_rates[under], (zeta * w)[under], rtol=1e-12)
    np.testing.assert_allclose(basis.damped_frequencies[under],
                               basis.frequencies[under] * np.sqrt(1 - zeta[under] ** 2), rtol=1e-12)
    assert np.all(basis.damped_frequencies[~under] == 0)
    w_o, z_o = w[~under], zeta[~under]
    np.testing.assert_allclose(basis.decay_rates[~under], w_o * (z_o - np.sqrt(z_o ** 2 - 1)), rtol=1e-9)
    assert basis.damping == (0.4, 0.005)
    undamped = compute_modes(character("worm"))
    np.testing.assert_array_equal(undamped.damped_frequencies, undamped.frequencies)
    np.testing.assert_array_equal(undamped.decay_rates, np.zeros(undamped.count))


def test_rayleigh_damping_matches_a_mujoco_simulation():
    """A sprung pendulum with joint damping αI + βk decays in MuJoCo (RK4) at
    the predicted rate and rings at the predicted damped frequency."""
    alpha, beta, k = 0.3, 0.01, 30.0
    ch = Character.from_spec(pendulum(k=k))
    basis = compute_modes(ch, rayleigh=(alpha, beta))
    m = ch.model
    m.opt.gravity[:] = 0.0
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.timestep = 1e-4
    m.dof_damping[0] = alpha * basis.mass_matrix[0, 0] + beta * k
    d = mujoco.MjData(m)
    d.qpos[0] = 0.1
    angle = np.empty(50000)
    for i in range(len(angle)):
        mujoco.mj_step(m, d)
        angle[i] = d.qpos[0]
    peaks = np.flatnonzero((angle[1:-1] > angle[:-2]) & (angle[1:-1] >= angle[2:])) + 1
    t = (peaks + 1) * m.opt.timestep
    assert len(peaks) >= 3
    f_d = (len(peaks) - 1) / (t[-1] - t[0])
    decay = math.log(angle[peaks[0]] / angle[peaks[-1]]) / (t[-1] - t[0])
    assert basis.damped_frequencies[0] < 0.999 * basis.frequencies[0]  # damping is visible at this tolerance
    assert f_d == pytest.approx(basis.damped_frequencies[0], rel=1e-4)
    assert decay == pytest.approx(basis.decay_rates[0], rel=1e-4)


def test_rayleigh_function_handles_unstable_modes():
    fd, decay = rayleigh(np.array([-4.0]), 0.0, 0.0)
    assert fd[0] == 0.0 and decay[0] == pytest.approx(-2.0)  # grows as e^{2t}


# ---------------------------------------------------------- result type
def test_basis_records_its_inputs_and_is_frozen():
    ch = character("zoo_free")
    basis = compute_modes(ch, count=4, constraints=["lock:head"], stiffness_scale=1.5, rayleigh=(0.1, 0.0))
    assert basis.count == 4 and basis.shapes.shape == (ch.nv, 4) and basis.rigid_shapes.shape == (ch.nv, 3)
    assert basis.character_name == "zoo_free" and basis.method == "generalized" and basis.gravity is False
    assert basis.stiffness_scale == 1.5 and [c.name for c in basis.constraints] == ["lock:head"]
    np.testing.assert_array_equal(basis.rest_qpos, ch.rest_qpos)
    full = compute_modes(ch, constraints=["lock:head"], stiffness_scale=1.5)
    np.testing.assert_array_equal(basis.frequencies, full.frequencies[:4])
    with pytest.raises(ValueError):
        basis.frequencies[0] = 1.0
    with pytest.raises(AttributeError):
        basis.n_rigid = 2  # type: ignore[misc]


def test_displace_integrates_the_mode_shapes_from_rest():
    ch = character("zoo_free")  # free root and ball joints: qpos is not qvel
    basis = compute_modes(ch)
    coords = np.array([0.3, -0.2, 0.1])
    q = basis.displace(coords)
    dq = np.zeros(ch.nv)
    mujoco.mj_differentiatePos(ch.model, dq, 1.0, ch.rest_qpos, q)
    np.testing.assert_allclose(dq, basis.shapes[:, :3] @ coords, atol=1e-12)
    frames = basis.displace(np.vstack([coords, 2 * coords]))
    assert frames.shape == (2, ch.nq)
    np.testing.assert_allclose(frames[0], q)
    with pytest.raises(GaitforgeError, match=r"^got 12 modal coordinates, the basis has 11 modes$"):
        basis.displace(np.zeros(12))


@pytest.mark.parametrize("kwargs,message", [
    ({"method": "fem"}, "unknown modal method 'fem' (choose from generalized, full)"),
    ({"count": 0}, "count must be a positive integer or None, got 0"),
    ({"stiffness_scale": 0.0}, "stiffness_scale must be a positive finite number, got 0.0"),
    ({"rayleigh": (0.1, -1.0)}, "rayleigh beta must be a non-negative finite number, got -1.0"),
    ({"rayleigh": 0.1}, "rayleigh must be a pair (alpha, beta), got 0.1"),
])
def test_bad_arguments_are_rejected_with_clear_messages(kwargs, message):
    with pytest.raises(GaitforgeError) as err:
        compute_modes(character("worm"), **kwargs)
    assert str(err.value) == message
