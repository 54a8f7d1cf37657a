"""Kinematic gaits on imported skeletons (issue 4, item 6): the dog and the
CMU humanoid that the dm_control wheel ships are imported, their modes come
in mirror classes, ``suggest`` gives the dog a trot and the humanoid a walk,
the grounded clips pass footfall analysis and export as BVH (read back with
the independent ``bvh`` package) and GLB. Also the mirror map's tolerance
on small MJCF bipeds that are mirror images only up to a fraction of a
millimetre. The dm_control tests are skipped without it (only its MJCF files
are used)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from bvh import Bvh
from pygltflib import GLTF2

from gaitforge.errors import GaitforgeError
from gaitforge.io.clipfiles import Y_UP, save_motion
from gaitforge.io.import_mjcf import load_character_from_mjcf
from gaitforge.modal import compute_modes, mirror_matrix
from gaitforge.modal.describe import ANTISYMMETRIC, SYMMETRIC, describe_modes
from gaitforge.motion.footfall import detect_footfalls
from gaitforge.motion.heuristics import POOL, suggest
from gaitforge.motion.metrics import PHASE_TOL, classify_gait, gait_metrics
from gaitforge.motion.synthesis import synthesize


def _suite() -> Path | None:
    spec = importlib.util.find_spec("dm_control")
    return Path(next(iter(spec.submodule_search_locations))) / "suite" if spec else None


needs_dm_control = pytest.mark.skipif(_suite() is None, reason="dm_control is not installed "
                                      "(pip install dm_control; only its MJCF files are used)")


def _gap(a: float, b: float) -> float:
    """Distance between two phases [cycles], in [0, 0.5]."""
    return abs((a - b + 0.5) % 1.0 - 0.5)


@pytest.fixture(scope="module")
def dog():
    c = load_character_from_mjcf(_suite() / "dog.xml")
    return c, compute_modes(c, count=POOL)


@pytest.fixture(scope="module")
def human():
    c = load_character_from_mjcf(_suite() / "humanoid_CMU.xml")
    return c, compute_modes(c, count=POOL)


def _gait(c, basis, gait: str, strides: float = 6.0):
    """The suggested recipe, its grounded clip (60 frames/s) and the clip's gait metrics."""
    recipe = suggest(c, gait, basis)
    f = min(t.frequency for t in recipe.terms)
    clip = synthesize(c, basis, recipe, strides / f, 60.0, grounded=True)
    return recipe, clip, gait_metrics(c, clip, detect_footfalls(c, clip))


def _exports_read_back(c, clip, tmp_path: Path) -> None:
    """BVH through the ``bvh`` package: every body a joint, every frame, and
    the root's track where the clip puts the root body; GLB: one node per body
    and one animation as long as the clip."""
    bodies = [c.model.body(b).name for b in range(1, c.model.nbody)]
    save_motion(c, clip, tmp_path / "clip.bvh")
    mocap = Bvh((tmp_path / "clip.bvh").read_text())
    assert mocap.get_joints_names() == bodies
    assert mocap.nframes == clip.n_frames and mocap.frame_time == pytest.approx(1 / 60, abs=1e-8)
    root = np.array(mocap.frames_joint_channels(bodies[0], ["Xposition", "Yposition", "Zposition"]), float)
    frames = np.arange(0, clip.n_frames, 10)
    expected = np.array([c.make_data(clip.qpos[t]).xpos[1] for t in frames]) @ Y_UP.T
    np.testing.assert_allclose(root[frames], expected, atol=2e-6)  # 6 decimals in the file
    save_motion(c, clip, tmp_path / "clip.glb")
    doc = GLTF2().load_binary(str(tmp_path / "clip.glb"))
    assert [n.name for n in doc.nodes] == bodies and len(doc.animations) == 1
    times = doc.accessors[doc.animations[0].samplers[0].input]
    assert times.count == clip.n_frames and times.max[0] == pytest.approx(clip.times[-1], rel=1e-6)


# ------------------------------------------------------------ the dog
@needs_dm_control
def test_dog_modes_come_in_mirror_classes(dog):
    c, basis = dog
    assert (c.nv, round(c.mass, 3)) == (79, 10.241)
    P = mirror_matrix(c)
    np.testing.assert_array_equal(P @ P, np.eye(c.nv))
    def partner(joint: str) -> str:
        column = P[:, c.joints[joint].dof.start]
        return c.model.joint(int(c.model.dof_jntid[np.argmax(np.abs(column))])).name
    assert [partner(j) for j in ("hip_L_extend", "knee_R", "L_3_bend")] == ["hip_R_extend", "knee_L", "L_3_bend"]
    descs = describe_modes(c, basis)
    assert all(d.symmetry in (SYMMETRIC, ANTISYMMETRIC) for d in descs)
    assert all(min(d.symmetric_share, 1 - d.symmetric_share) < 1e-3 for d in descs)
    first = {d.name: d.symmetry for d in descs[:6]}
    assert first["alternating legs"] == ANTISYMMETRIC and first["jumping jack"] == SYMMETRIC


@needs_dm_control
def test_dog_trots_and_exports(dog, tmp_path):
    c, basis = dog
    recipe, clip, m = _gait(c, basis, "trot")
    assert recipe.creature == "dog" and recipe.terms
    phase = {(m.limbs[n], m.sides[n]): m.phase[n] for n in m.feet}
    # Diagonal pairs land together, the two diagonals half a cycle apart.
    assert _gap(phase["front", "left"], phase["rear", "right"]) <= PHASE_TOL
    assert _gap(phase["front", "right"], phase["rear", "left"]) <= PHASE_TOL
    assert _gap(phase["front", "left"], phase["rear", "left"]) >= 0.5 - PHASE_TOL
    assert classify_gait(m) == "trot"
    assert all(d > 0 for d in m.duty_factor.values()) and m.n_strides >= 3
    _exports_read_back(c, clip, tmp_path)


# ---------------------------------------------------------- the humanoid
@needs_dm_control
def test_humanoid_modes_come_in_mirror_classes(human):
    c, basis = human
    assert (c.nv, round(c.mass, 3)) == (62, 51.846)
    descs = describe_modes(c, basis)
    assert all(d.symmetry in (SYMMETRIC, ANTISYMMETRIC) for d in descs)
    assert {d.name for d in descs[:4]} >= {"alternating legs", "jumping jack"}


@needs_dm_control
def test_humanoid_walks_and_exports(human, tmp_path):
    c, basis = human
    recipe, clip, m = _gait(c, basis, "walk")
    assert recipe.creature == "humanoid_CMU" and sorted(m.feet) == ["left_foot", "right_foot"]
    assert all(d > 0.5 for d in m.duty_factor.values())  # a walk: each foot down most of the time
    assert _gap(m.phase["left_foot"], m.phase["right_foot"]) >= 0.5 - PHASE_TOL  # feet alternate
    assert classify_gait(m) == "walk" and m.flight_fraction == 0.0 and m.n_strides >= 3
    _exports_read_back(c, clip, tmp_path)


# ------------------------------------------------------ mirror tolerance
BIPED = """<mujoco model="{name}">
  <worldbody>
    <body name="pelvis" pos="0 0 0.5"><freejoint/><geom type="box" size="0.1 0.12 0.05" mass="3"/>
      <body name="left_thigh" pos="0 {left_y} -0.05"><joint axis="{left_axis}"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.2" size="0.03" mass="{left_mass}"/>
        <body name="left_foot" pos="0 0 -0.2"><joint axis="0 1 0"/><geom size="0.04" mass="0.1"/></body>
      </body>
      <body name="right_thigh" pos="0 -0.08 -0.05"><joint axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.2" size="0.03" mass="0.5"/>
        <body name="right_foot" pos="0 0 -0.2"><joint axis="0 1 0"/><geom size="0.04" mass="0.1"/></body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def _biped(tmp_path, name="biped", left_y=0.08, left_axis="0 1 0", left_mass=0.5):
    path = tmp_path / f"{name}.xml"
    path.write_text(BIPED.format(name=name, left_y=left_y, left_axis=left_axis, left_mass=left_mass))
    return load_character_from_mjcf(path, face_x=False)


def test_mirror_map_allows_sub_millimetre_mismatches(tmp_path):
    c = _biped(tmp_path, left_y=0.0803)  # the left leg 0.3 mm further out
    P = mirror_matrix(c)
    np.testing.assert_array_equal(P @ P, np.eye(c.nv))
    left, right = c.joints["joint1"].dof.start, c.joints["joint3"].dof.start
    assert P[right, left] == 1.0 and P[left, right] == 1.0  # hinges about y keep their sign
    descs = describe_modes(c, compute_modes(c))
    assert all(d.symmetry in (SYMMETRIC, ANTISYMMETRIC) for d in descs)
    with pytest.raises(GaitforgeError):
        mirror_matrix(c, tol=1e-6)  # exact matching refuses it


@pytest.mark.parametrize("change, message", [
    ({"left_y": 0.1}, ("body 'pelvis' has no mirror image (no center body with role pelvis at its reflected "
                       "position)")),  # the centre of mass moved: the pelvis left the mirror plane
    ({"left_mass": 0.51}, "bodies 'left_thigh' and 'right_thigh' differ in mass (0.51 kg and 0.5 kg)"),
    ({"left_axis": "0 1 0.05"}, ("the axis of joint 'joint1' has no mirrored counterpart (joint 'joint3' is "
                                 "2.86° off)")),
])
def test_mirror_map_names_what_breaks_the_symmetry(tmp_path, change, message):
    c = _biped(tmp_path, **change)
    with pytest.raises(GaitforgeError) as err:
        mirror_matrix(c)
    assert str(err.value) == f"biped is not mirror-symmetric{' at rest' if 'image' in message else ''}: {message}"
