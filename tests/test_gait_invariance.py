"""The suggested gait may not depend on what the eigenproblem leaves open or
on last-bit differences between machines (another BLAS kernel, another CPU).

For every built-in creature and gait, every preset and both imported
dm_control models: flipping the signs of a random subset of modes, or
perturbing every joint's stiffness by 1e-9 relative, gives the same gait
class and the same motion (qpos within 1e-6 over a grounded clip). Rotations
inside groups of (nearly) equal frequencies are covered at the modal level
in ``test_modal_canonical.py``.
"""
import copy
import dataclasses

import numpy as np
import pytest
from modal_specs import character_named

from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.modal import compute_modes
from gaitforge.motion import heuristics, presets
from gaitforge.motion.footfall import detect_footfalls
from gaitforge.motion.metrics import classify_gait, gait_metrics
from gaitforge.motion.synthesis import synthesize

pytestmark = pytest.mark.slow
QPOS_TOL = 1e-6
GAITED = ("dog", "human", "human_run", "gorilla")  # built-ins with labelled feet and knees
CASES = [(name, gait) for name in GAITED
         for gait in heuristics.gaits_for(Character.from_spec(registry.build(name)))]
IMPORTED = [("dog.xml", "trot"), ("humanoid_CMU.xml", "walk")]


def perturbed(c: Character, rel: float = 1e-9, seed: int = 0) -> Character:
    """``c`` with every joint's stiffness scaled by 1 + rel·u, u uniform in [−1, 1] (seeded)."""
    m = copy.copy(c.model)
    m.jnt_stiffness[:] = m.jnt_stiffness * (1.0 + rel * np.random.default_rng(seed).uniform(-1, 1, m.njnt))
    return Character(m, c.rest_qpos, name=c.name, labels=c.labels, joints=c.joints, constraints=c.constraints,
                     spec=c.spec, mjspec=c.mjspec)


def flipped(basis, seed: int = 0):
    """``basis`` with the signs of a random half of its modes flipped (seeded)."""
    flip = np.where(np.random.default_rng(seed).random(basis.count) < 0.5, -1.0, 1.0)
    assert (flip < 0).any() and (flip > 0).any()
    return dataclasses.replace(basis, shapes=basis.shapes * flip)


def _outcome(c, basis, make):
    """(recipe, grounded qpos over 1.5 s, gait class of a 4-stride clip)."""
    recipe = make(c, basis)
    qpos = synthesize(c, basis, recipe, 1.5, 60.0).qpos
    f = min(t.frequency for t in recipe.terms if t.frequency > 0)
    clip = synthesize(c, basis, recipe, 4.0 / f, 60.0)
    try:
        cls = classify_gait(gait_metrics(c, clip, detect_footfalls(c, clip)))
    except Exception as err:  # a gait the metrics cannot measure must fail the same way
        cls = f"error: {err}"
    return recipe, qpos, cls


def _same(a, b):
    (ra, qa, ca), (rb, qb, cb) = a, b
    assert ca == cb
    assert np.abs(qa - qb).max() <= QPOS_TOL
    assert len(ra.terms) == len(rb.terms)


def _check(c, basis_of, make):
    base = _outcome(c, basis_of(c), make)
    _same(base, _outcome(c, flipped(basis_of(c)), make))
    pc = perturbed(c)
    _same(base, _outcome(pc, basis_of(pc), make))


@pytest.mark.parametrize("name,gait", CASES + IMPORTED)
def test_suggested_gait_ignores_signs_and_tiny_stiffness_changes(name, gait):
    c = character_named(name)
    _check(c, lambda ch: compute_modes(ch, count=heuristics.POOL), lambda ch, b: heuristics.suggest(ch, gait, b))


@pytest.mark.parametrize("name", presets.names())
def test_presets_ignore_signs_and_tiny_stiffness_changes(name):
    p = presets.get(name)
    c = presets.character(p)
    _check(c, lambda ch: presets.basis(p, ch), lambda ch, b: presets.build(name, ch, b))


def test_flipping_a_mode_shifts_its_phase_by_half_a_cycle():
    c = character_named("dog")
    basis = compute_modes(c, count=heuristics.POOL)
    r0 = heuristics.suggest(c, "trot", basis)
    flip = np.ones(basis.count)
    flip[r0.terms[0].mode] = -1.0
    r1 = heuristics.suggest(c, "trot", dataclasses.replace(basis, shapes=basis.shapes * flip))
    for a, b in zip(r0.terms, r1.terms):
        assert (a.mode, a.frequency) == (b.mode, b.frequency)
        assert b.amplitude == pytest.approx(a.amplitude, rel=1e-9)
        shift = np.pi if a.mode == r0.terms[0].mode else 0.0
        assert np.angle(np.exp(1j * (b.phase - a.phase - shift))) == pytest.approx(0.0, abs=1e-9)
