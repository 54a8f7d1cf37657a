"""Canonical mode shapes (``gaitforge.modal.canonical``): whatever sign or
rotation inside a group of (nearly) equal frequencies the eigensolver
returns, the modes come out the same; a tiny stiffness change moves them
only a little; ties in the sign rule are broken by DOF order."""
import copy

import numpy as np
import pytest
from modal_specs import character_named
from scipy.stats import ortho_group

from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.modal import canonical, compute_modes
from gaitforge.modal.symmetry import mirror_of

NAMES = registry.names() + ["dog.xml", "humanoid_CMU.xml"]


def test_sign_rule_breaks_mirror_ties_by_dof_order():
    U = np.array([[0.5, -0.7, 0.1], [-0.5, 0.7, 0.9], [0.2, 0.1, 0.0]])
    out = canonical.signs(U)
    np.testing.assert_array_equal(out[:, 0], U[:, 0])      # |0.5| ties: the first entry decides
    np.testing.assert_array_equal(out[:, 1], -U[:, 1])
    np.testing.assert_array_equal(out[:, 2], U[:, 2])      # a clear largest entry
    np.testing.assert_array_equal(canonical.signs(-U), out)
    nearly = U.copy()
    nearly[1, 0] *= 1 + 1e-9                               # a last-bit difference is still a tie
    np.testing.assert_allclose(canonical.signs(nearly)[:, 0], U[:, 0], rtol=1e-8)


def test_groups_by_relative_spread():
    lam = np.array([1.0, 1.0 + 1e-12, 2.0, 2.003, 2.0035, 5.0])
    assert [g.tolist() for g in canonical.groups(lam, 1e-8)] == [[0, 1], [2], [3], [4], [5]]
    assert [g.tolist() for g in canonical.groups(lam, 1e-3)] == [[0, 1], [2], [3, 4], [5]]


@pytest.mark.parametrize("name", NAMES)
def test_rotations_and_sign_flips_inside_clusters_are_undone(name):
    c = character_named(name)
    basis = compute_modes(c)
    M, K, P = basis.mass_matrix, basis.stiffness_matrix, mirror_of(c)
    rng = np.random.default_rng(7)
    U = basis.shapes * np.where(rng.random(basis.count) < 0.5, -1.0, 1.0)
    rotated = 0
    for g in canonical.groups(basis.eigenvalues, canonical.CLUSTER_RTOL):
        if len(g) > 1:
            U[:, g] = U[:, g] @ ortho_group.rvs(len(g), random_state=rng)
            rotated += 1
    lam, shapes = canonical.canonicalize(basis.eigenvalues, U, M, K, P)
    scale = np.abs(basis.shapes).max()
    assert np.abs(shapes - basis.shapes).max() <= 1e-8 * scale
    np.testing.assert_allclose(lam, basis.eigenvalues, rtol=1e-9)
    if name in ("loop", "raibert_quadruped", "human_run", "humanoid_CMU.xml"):
        assert rotated  # these have (nearly) equal frequencies: the test rotated something
    R = basis.rigid_shapes @ ortho_group.rvs(basis.n_rigid, random_state=rng) if basis.n_rigid > 1 \
        else basis.rigid_shapes
    again = canonical.signs(canonical.canonical_group(R, M, P))
    assert np.abs(again - basis.rigid_shapes).max() <= 1e-8 * max(np.abs(R).max(), 1.0)


@pytest.mark.parametrize("name", ["loop", "raibert_quadruped", "human_run", "dog", "human"])
def test_tiny_asymmetric_stiffness_change_moves_modes_a_little(name):
    c = character_named(name)
    m = copy.copy(c.model)
    m.jnt_stiffness[:] = m.jnt_stiffness * (1.0 + 1e-9 * np.random.default_rng(3).uniform(-1, 1, m.njnt))
    pc = Character(m, c.rest_qpos, name=c.name, labels=c.labels, joints=c.joints, constraints=c.constraints,
                   spec=c.spec, mjspec=c.mjspec)
    a, b = compute_modes(c), compute_modes(pc)
    assert np.abs(a.shapes - b.shapes).max() <= 1e-6 * np.abs(a.shapes).max()


def test_equal_frequencies_of_a_mirror_creature_are_mirror_images_of_themselves():
    c = character_named("loop")
    basis, P = compute_modes(c), mirror_of(c)
    assert P is not None
    pairs = [g for g in canonical.groups(basis.eigenvalues, canonical.DEGENERATE_RTOL) if len(g) == 2]
    assert len(pairs) >= 3
    for g in pairs:
        parity = [float(u @ basis.mass_matrix @ P @ u) for u in basis.shapes[:, g].T]
        np.testing.assert_allclose(np.abs(parity), 1.0, atol=1e-9)   # each symmetric or antisymmetric,
        assert parity[0] >= parity[1] - 1e-9                           # symmetric first
        assert basis.eigenvalues[g[0]] == basis.eigenvalues[g[1]]
