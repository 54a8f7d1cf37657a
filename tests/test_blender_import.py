"""Exported BVH and GLB files open in Blender (runs only where a `blender`
binary is installed, e.g. Debian's `apt-get install blender python3-numpy`)."""
import shutil
import subprocess
import textwrap

import pytest

from gaitforge.cli.main import main
from gaitforge.creatures import registry

BLENDER = shutil.which("blender")

SCRIPT = textwrap.dedent("""
    import builtins, sys
    _open = builtins.open
    def _compat_open(file, mode="r", *a, **k):  # Blender 3.4's BVH importer asks for the removed 'rU'
        return _open(file, mode.replace("U", ""), *a, **k)
    builtins.open = _compat_open
    import numpy
    if not hasattr(numpy, "bool"):
        numpy.bool = bool  # Blender 3.4's glTF importer predates numpy 1.24
    import bpy
    bvh, glb = sys.argv[sys.argv.index("--") + 1:]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_anim.bvh(filepath=bvh)
    arm = [o for o in bpy.data.objects if o.type == "ARMATURE"][0]
    print("BVH", len(arm.data.bones), len(arm.animation_data.action.fcurves))
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=glb)
    print("GLB", sum(o.type == "MESH" for o in bpy.data.objects), len(bpy.data.actions))
""")


@pytest.mark.slow
@pytest.mark.skipif(BLENDER is None, reason="blender is not installed")
def test_dog_trot_opens_in_blender(tmp_path):
    bvh, glb, script = tmp_path / "trot.bvh", tmp_path / "trot.glb", tmp_path / "check.py"
    for out in (bvh, glb):
        assert main(["animate", "dog", "--gait", "trot", "--seconds", "1", "--no-pin", "-o", str(out)]) == 0
    script.write_text(SCRIPT)
    proc = subprocess.run([BLENDER, "-b", "--factory-startup", "--python", str(script), "--", str(bvh), str(glb)],
                          capture_output=True, text=True, timeout=300)
    lines = {ln.split()[0]: ln.split()[1:] for ln in proc.stdout.splitlines() if ln.startswith(("BVH", "GLB"))}
    bodies = len(registry.build("dog").bones)
    assert lines["BVH"][0] == str(bodies), proc.stdout + proc.stderr
    assert int(lines["BVH"][1]) > 0  # animated channels
    assert lines["GLB"][0] == str(bodies)  # one mesh per bone
    assert int(lines["GLB"][1]) > 0
