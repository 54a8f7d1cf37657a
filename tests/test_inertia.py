"""Our mass properties against MuJoCo's own inertia-from-geometry (an
independent formulation) and against textbook formulas."""
import mujoco
import numpy as np
import pytest

from gaitforge.creatures.builders.kit import box, capsule, ellipsoid, quat_axis_angle, sphere
from gaitforge.creatures.inertia import combine, shape_mass_properties
from gaitforge.creatures.spec_parts import shape_volume
from gaitforge.creatures.spec import Bone

SHAPES = {
    "box": box((0.3, 0.1, 0.05), pos=(0.1, -0.2, 0.3), quat=quat_axis_angle((1, 2, 3), 0.7)),
    "capsule": capsule((0.1, 0.0, 0.0), (0.3, 0.2, -0.4), 0.07),
    "sphere": sphere(0.11, pos=(0.0, 0.5, 0.0)),
    "ellipsoid": ellipsoid((0.2, 0.1, 0.05), pos=(0.3, 0, 0), quat=quat_axis_angle((0, 0, 1), 0.4)),
}


def _mujoco_body_inertia(shape, density):
    spec = mujoco.MjSpec()
    body = spec.worldbody.add_body(name="b")
    body.add_freejoint()
    g = body.add_geom(type={"box": mujoco.mjtGeom.mjGEOM_BOX, "capsule": mujoco.mjtGeom.mjGEOM_CAPSULE,
                            "sphere": mujoco.mjtGeom.mjGEOM_SPHERE,
                            "ellipsoid": mujoco.mjtGeom.mjGEOM_ELLIPSOID}[shape.kind])
    if shape.kind == "capsule":
        g.size, g.fromto = [shape.radius, 0, 0], shape.fromto
    else:
        g.pos, g.quat = shape.pos, shape.quat
        g.size = {"box": shape.half_sizes, "sphere": (shape.radius, 0, 0), "ellipsoid": shape.radii}[shape.kind]
    g.density = density
    m = spec.compile()
    return m.body_mass[1], m.body_ipos[1], m.body_inertia[1]


@pytest.mark.parametrize("kind", sorted(SHAPES))
def test_matches_mujoco_inertia_from_geometry(kind):
    shape = SHAPES[kind]
    mp = shape_mass_properties(shape, 1000.0)
    mass, ipos, principal = _mujoco_body_inertia(shape, 1000.0)
    assert mp.mass == pytest.approx(mass, rel=1e-9)
    np.testing.assert_allclose(mp.com, ipos, atol=1e-12)
    np.testing.assert_allclose(np.sort(np.linalg.eigvalsh(mp.inertia)), np.sort(principal), rtol=1e-9)


def test_cuboid_formula_of_wang():
    # I_x = m (b^2 + c^2) / 12 for a solid cuboid with side lengths a, b, c.
    a, b, c, rho = 0.6, 0.2, 0.1, 500.0
    mp = shape_mass_properties(box((a / 2, b / 2, c / 2)), rho)
    m = rho * a * b * c
    np.testing.assert_allclose(np.diag(mp.inertia), m / 12 * np.array([b * b + c * c, a * a + c * c, a * a + b * b]))


def test_volume_consistent_with_mass():
    for s in SHAPES.values():
        assert shape_mass_properties(s, 1.0).mass == pytest.approx(shape_volume(s))


def test_parallel_axis_combination():
    s1, s2 = sphere(0.1, pos=(-0.5, 0, 0)), sphere(0.1, pos=(0.5, 0, 0))
    mp = combine([shape_mass_properties(s1, 1000.0), shape_mass_properties(s2, 1000.0)])
    m1 = shape_mass_properties(s1, 1000.0).mass
    assert mp.com == pytest.approx(np.zeros(3))
    assert mp.inertia[1, 1] == pytest.approx(2 * (0.4 * m1 * 0.01 + m1 * 0.25))
    assert mp.inertia[0, 0] == pytest.approx(2 * 0.4 * m1 * 0.01)


def test_bone_mass_override_keeps_shape_of_inertia():
    from gaitforge.creatures.inertia import bone_mass_properties
    shapes = (SHAPES["box"],)
    free = bone_mass_properties(Bone("b", None, shapes))
    fixed = bone_mass_properties(Bone("b", None, shapes, mass=2.0))
    assert fixed.mass == 2.0
    np.testing.assert_allclose(fixed.inertia, free.inertia * 2.0 / free.mass)
