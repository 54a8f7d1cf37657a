"""Kinematic synthesis (Kry09 Eq. 4): the batched pose integration against
MuJoCo's own, Eq. 4 against an independent per-frame evaluation, soft
joint limits against the paper's formula, and argument errors.

Also home of :func:`dog_trot`, the trot recipe the grounding and modal-IK
tests share.
"""
import dataclasses
import math

import mujoco
import numpy as np
import pytest

from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.modal import compute_modes
from gaitforge.modal.describe import describe_modes
from gaitforge.motion.recipe import GaitRecipe, GaitTerm
from gaitforge.motion.grounding import lowest_heights
from gaitforge.motion.synthesis import (JointLayout, layout, margin_frames, modal_coordinates, soft_limit_excess,
                                        synthesize)

FPS = 60.0


def dog_trot(character, basis, *, stride=0.06, lift=0.03, frequency=2.0) -> GaitRecipe:
    """A trot for the tests, built from what the modes do to the feet.

    ``describe_modes`` gives each mode's linear foot displacement (forward,
    lateral, vertical per unit coordinate). The wanted motion, as phasors at
    the gait frequency: each foot swings ±``stride`` [m] fore and aft and
    lifts ±``lift`` [m] a quarter cycle later (low while it moves back, so the
    body goes forward), diagonal feet together, the two diagonals half a
    cycle apart, no lateral motion. The complex modal amplitudes a are the
    eigenvalue-weighted least-norm solution of D a = r — the modal-IK
    criterion — and a term α sin(2π f̃ t + γ) with α = |a|, γ = arg a + π/2
    realizes each. Symmetric modes get no share (a trot is antisymmetric).
    Its feet move sinusoidally, so one diagonal is always in the lower half
    of its excursion: grounded, it never flies (test_grounding).
    """
    desc = describe_modes(character, basis)
    D = np.array([[getattr(d.feet[f], axis) for d in desc]
                  for f in range(len(desc[0].feet)) for axis in ("forward", "lateral", "vertical")])
    r = []
    for foot in desc[0].feet:
        sign = 1.0 if foot.name in ("rear left", "front right") else -1.0
        r += [sign * -1j * stride, 0.0, sign * lift]  # x = s·sin(ωt), z = h·cos(ωt)
    w_inv = 1.0 / basis.eigenvalues
    a = w_inv[:, None] * D.T @ np.linalg.solve((D * w_inv) @ D.T, np.array(r))
    terms = [GaitTerm(i, float(abs(x)), float(np.angle(x) + np.pi / 2), frequency)
             for i, x in enumerate(a) if abs(x) > 1e-6]
    return GaitRecipe("trot", character.name, tuple(terms), description="test trot fitted to foot phasors")


@pytest.fixture(scope="module")
def dog():
    return Character.from_spec(registry.build("dog"))


@pytest.fixture(scope="module")
def basis(dog):
    return compute_modes(dog, count=20)


def limited_dog(hinge=(-0.05, 0.05), cone=0.05):
    """The dog with ranges on its shin hinges and a cone on its thigh balls
    (limits change neither M nor K: its modes are the plain dog's)."""
    spec = registry.build("dog")
    bones = []
    for b in spec.bones:
        if b.name.endswith("_shin"):
            b = dataclasses.replace(b, joint=dataclasses.replace(b.joint, range=hinge))
        elif b.name.endswith("_thigh"):
            b = dataclasses.replace(b, joint=dataclasses.replace(b.joint, range=(0.0, cone)))
        bones.append(b)
    return Character.from_spec(dataclasses.replace(spec, bones=tuple(bones)))


# ------------------------------------------------------------ pose integration
@pytest.mark.parametrize("name", ["dog", "raibert_quadruped", "raibert_biped", "kangaroo", "human"])
def test_batched_integration_matches_mujoco(name):
    """Free, ball, hinge, slide and planar roots; rotations beyond π included."""
    ch = Character.from_spec(registry.build(name))
    rng = np.random.default_rng(7)
    dv = rng.normal(scale=2.0, size=(40, ch.nv))
    q0 = ch.rest_qpos.copy()
    got = JointLayout(ch.model).integrate(q0, dv)
    want = np.tile(q0, (len(dv), 1))
    for q, v in zip(want, dv):
        mujoco.mj_integratePos(ch.model, q, v, 1.0)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-14)
    tiny = JointLayout(ch.model).integrate(q0, dv * 1e-9)  # the small-angle series branch
    ref = np.tile(q0, (len(dv), 1))
    for q, v in zip(ref, dv * 1e-9):
        mujoco.mj_integratePos(ch.model, q, v, 1.0)
    np.testing.assert_allclose(tiny, ref, rtol=0, atol=1e-15)


def test_layout_is_cached_per_character(dog):
    assert layout(dog) is layout(dog)
    kinds = [j.kind for j in dog.joints.values()]
    assert len(layout(dog).quat_q) == kinds.count("ball") + 1 == 23  # the free root's orientation too
    assert len(layout(dog).lin_q) == kinds.count("hinge") + 3 == 11


# ----------------------------------------------------------------------- Eq. 4
def test_eq4_against_per_frame_evaluation(dog, basis):
    """Every frame equals rest ⊕ Σ_i [α_i sin(2π f̃_i t + γ_i) + β_i] φ_i,
    evaluated term by term with ModalBasis.displace (mj_integratePos)."""
    r = GaitRecipe("mix", "dog", (GaitTerm(3, 0.05, 0.3, 2.0), GaitTerm(7, 0.02, -1.0, 4.0, offset=0.01),
                                  GaitTerm(3, 0.01, 0.0, 6.0), GaitTerm(0, 0.0, 0.0, 0.0, offset=-0.03)))
    clip = synthesize(dog, basis, r, 1.5, FPS, grounded=False)
    assert clip.n_frames == 90 and clip.fps == FPS and clip.character_name == "dog"
    for i in (0, 1, 17, 89):
        t = i / FPS
        c = np.zeros(basis.count)
        for term in r.terms:
            c[term.mode] += term.amplitude * math.sin(2 * math.pi * term.frequency * t + term.phase) + term.offset
        np.testing.assert_allclose(clip.qpos[i], basis.displace(c), rtol=0, atol=1e-13)


def test_modal_coordinates_and_periodicity(dog, basis):
    r = GaitRecipe("t", "dog", (GaitTerm(4, 0.1, 0.5, 2.0), GaitTerm(6, 0.05, 0.0, 4.0, offset=0.2)))
    c = modal_coordinates(r, np.array([0.0, 0.125, 0.5]))
    np.testing.assert_allclose(c, [[0.1 * math.sin(0.5), 0.2], [0.1 * math.sin(math.pi / 2 + 0.5), 0.2],
                                   [0.1 * math.sin(2 * math.pi + 0.5), 0.2]], atol=1e-15)
    clip = synthesize(dog, basis, r, 1.0, FPS, grounded=False)  # two whole cycles at 2 Hz
    assert clip.n_frames == 60
    loop = synthesize(dog, basis, r, 1.5, FPS, grounded=False)
    np.testing.assert_allclose(loop.qpos[30], loop.qpos[0], atol=1e-12)  # one period later
    np.testing.assert_allclose(loop.qpos[:60], clip.qpos, atol=0)


# ---------------------------------------------------------------- soft limits
def test_soft_limit_function():
    d = np.array([1e-9, 0.01, 0.1, 1.0, 100.0])
    delta = np.radians(10)
    e = soft_limit_excess(d, delta)
    np.testing.assert_allclose(e, d - d ** 2 / (d + delta), rtol=1e-12)  # Kry09 §4.2: reduced by d²/(d+Δ)
    assert np.all(e < delta) and np.all(np.diff(e) > 0)
    assert e[0] == pytest.approx(1e-9, rel=1e-6)  # slope 1 at the limit: no pop
    assert np.all(soft_limit_excess(d, 0.0) == 0.0)


def test_soft_limits_on_hinges_and_cones(basis):
    free, lim = Character.from_spec(registry.build("dog")), limited_dog()
    b = compute_modes(lim, count=20)
    np.testing.assert_allclose(b.shapes, basis.shapes, atol=1e-9)  # limits do not change the modes
    r = GaitRecipe("big", "dog", (GaitTerm(4, 0.4, 0.0, 1.0), GaitTerm(3, 0.3, 1.0, 1.0)))
    delta = np.radians(10)
    raw = synthesize(free, b, r, 1.0, FPS, grounded=False).qpos
    got = synthesize(lim, b, r, 1.0, FPS, grounded=False, soft_limit=delta).qpos
    hard = synthesize(lim, b, r, 1.0, FPS, grounded=False, soft_limit=0.0).qpos
    for name in ("front_left_forearm", "rear_left_shin", "rear_right_shin"):
        j = lim.joints[name].qpos.start
        x, y = raw[:, j], got[:, j]
        if name.endswith("_shin"):
            over, under = x - 0.05, -0.05 - x
            assert over.max() > 0.1 and under.max() > 0.1  # the test drives it well past both limits
            want = np.where(over > 0, 0.05 + over * delta / (over + delta),
                            np.where(under > 0, -0.05 - under * delta / (under + delta), x))
            np.testing.assert_allclose(y, want, atol=1e-14)
            assert np.all(np.abs(y) < 0.05 + delta)
            np.testing.assert_allclose(hard[:, j], np.clip(x, -0.05, 0.05), atol=1e-15)
        else:
            np.testing.assert_array_equal(y, x)  # unlimited joints untouched

    def angle(q):
        return 2 * np.arctan2(np.linalg.norm(q[:, 1:], axis=1), np.abs(q[:, 0]))

    for name in ("rear_left_thigh", "rear_right_thigh"):
        s = lim.joints[name].qpos
        a_raw, a_got = angle(raw[:, s]), angle(got[:, s])
        excess = a_raw - 0.05
        assert excess.max() > 0.2
        want = np.where(excess > 0, 0.05 + excess * delta / (excess + delta), a_raw)
        np.testing.assert_allclose(a_got, want, atol=1e-12)
        np.testing.assert_allclose(angle(hard[:, s]), np.minimum(a_raw, 0.05), atol=1e-12)
        # the rotation axis is kept
        axis_raw = raw[:, s][:, 1:] * np.sign(raw[:, s][:, :1])
        axis_got = got[:, s][:, 1:] * np.sign(got[:, s][:, :1])
        cos = np.einsum("ti,ti->t", axis_raw, axis_got) / np.linalg.norm(axis_raw, axis=1) / np.linalg.norm(
            axis_got, axis=1)
        np.testing.assert_allclose(cos, 1.0, atol=1e-12)
        np.testing.assert_allclose(np.linalg.norm(got[:, s], axis=1), 1.0, atol=1e-14)


def test_soft_limits_on_slides():
    ch = Character.from_spec(registry.build("raibert_biped"))
    b = compute_modes(ch, count=6)
    j = ch.joints["left_lower_leg"].qpos.start
    lo, hi = ch.model.jnt_range[ch.model.joint("left_lower_leg").id]
    k = int(np.argmax(np.abs(b.shapes[ch.joints["left_lower_leg"].dof.start])))
    r = GaitRecipe("hop", "raibert_biped", (GaitTerm(k, 40.0, 0.0, 1.0),))
    raw = b.displace(modal_coordinates(r, np.arange(60) / FPS)[:, [0]] * np.eye(b.count)[k])[:, j]
    got = synthesize(ch, b, r, 1.0, FPS, grounded=False, soft_limit_slide=0.02).qpos[:, j]
    assert raw.max() > hi + 0.02 and raw.min() < lo - 0.02
    want = np.where(raw > hi, hi + (raw - hi) * 0.02 / (raw - hi + 0.02),
                    np.where(raw < lo, lo - (lo - raw) * 0.02 / (lo - raw + 0.02), raw))
    np.testing.assert_allclose(got, want, atol=1e-14)


# -------------------------------------------------------------- flight option
def test_flight_option(dog, basis):
    """Flight changes nothing where a foot is always low (the sinusoidal test
    trot); a hop flies by default and stays down with flight=False."""
    trot = dog_trot(dog, basis)
    np.testing.assert_allclose(synthesize(dog, basis, trot, 2.0, FPS).qpos,
                               synthesize(dog, basis, trot, 2.0, FPS, flight=False).qpos, atol=1e-12)
    # the mode moving all four feet up and down together most (a squat): feet
    # that move together are all in their upper half half the time
    squat = max(describe_modes(dog, basis), key=lambda d: abs(sum(f.vertical for f in d.feet)) * (
        min(f.vertical for f in d.feet) * max(f.vertical for f in d.feet) > 0))
    lift = np.mean([abs(f.vertical) for f in squat.feet])
    hop = GaitRecipe("hop", "dog", (GaitTerm(squat.index, 0.02 / lift, 0.0, 2.0),))  # feet ±2 cm
    assert (lowest_heights(dog, synthesize(dog, basis, hop, 2.0, FPS).qpos) > 1e-3).any()
    np.testing.assert_allclose(lowest_heights(dog, synthesize(dog, basis, hop, 2.0, FPS, flight=False).qpos), 0.0,
                               atol=1e-12)


def test_margin_frames():
    r = GaitRecipe("t", "dog", (GaitTerm(0, 0.1, 0.0, 2.0), GaitTerm(1, 0.1, 0.0, 4.0),
                                GaitTerm(2, 0.0, 0.0, 0.0, 0.1)))
    assert margin_frames(r, 60.0) == 30                   # one period of the slowest moving term
    assert margin_frames(GaitRecipe("s", "dog", (GaitTerm(0, 0.1, 0.0, 0.01),)), 60.0) == 600  # at most 10 s
    assert margin_frames(GaitRecipe("p", "dog", (GaitTerm(0, 0.0, 0.0, 0.0, 0.1),)), 60.0) == 0  # a posture


# --------------------------------------------------------------------- errors
def test_synthesis_errors(dog, basis):
    r = GaitRecipe("trot", "dog", (GaitTerm(25, 0.1, 0.0, 2.0),))
    with pytest.raises(GaitforgeError) as err:
        synthesize(dog, basis, r, 1.0)
    assert str(err.value) == "recipe 'trot' names mode 25 but only 20 elastic modes were computed"
    ok = GaitRecipe("trot", "dog", (GaitTerm(2, 0.1, 0.0, 2.0),))
    for kwargs, message in [
        (dict(seconds=0.0), "seconds must be a positive finite number, got 0.0"),
        (dict(seconds=1.0, fps=float("inf")), "fps must be a positive finite number, got inf"),
        (dict(seconds=1.0, soft_limit=-0.1), "soft_limit must be a non-negative finite number, got -0.1"),
        (dict(seconds=1.0, grounded=False, pin_feet=True),
         "pin_feet needs grounded=True: feet are pinned where they touch the ground"),
    ]:
        with pytest.raises(GaitforgeError) as err:
            synthesize(dog, basis, ok, **kwargs)
        assert str(err.value) == message


def test_dog_trot_recipe_is_antisymmetric(dog, basis):
    r = dog_trot(dog, basis)
    names = {d.index: d.symmetry for d in describe_modes(dog, basis)}
    assert r.terms and all(names[t.mode] == "antisymmetric" for t in r.terms)
