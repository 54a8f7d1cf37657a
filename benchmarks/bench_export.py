"""Export and render timings for a 4 s dog trot at 60 fps (240 frames), each
beside a baseline measured in the same run:

- BVH / GLB / NPZ / CSV against writing the bare qpos array with ``np.save``;
- rendering frames (``StillRenderer``) and writing MP4 against MuJoCo's own
  ``mj_forward`` of the same frames (the kinematics every renderer needs).

    MUJOCO_GL=egl .venv/bin/python benchmarks/bench_export.py
"""
from __future__ import annotations

import os
import tempfile
import time

os.environ.setdefault("MUJOCO_GL", "egl")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

from gaitforge.creatures import registry  # noqa: E402
from gaitforge.creatures.character import Character  # noqa: E402
from gaitforge.io.clipfiles import save_motion  # noqa: E402
from gaitforge.io.render import StillRenderer, frame_character  # noqa: E402
from gaitforge.modal import compute_modes  # noqa: E402
from gaitforge.motion.heuristics import suggest  # noqa: E402
from gaitforge.motion.synthesis import synthesize  # noqa: E402


def best(fn, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    dog = Character.from_spec(registry.build("dog"))
    basis = compute_modes(dog, count=20)
    clip = synthesize(dog, basis, suggest(dog, "trot", basis), 4.0, 60.0)
    out = tempfile.mkdtemp()
    base = best(lambda: np.save(os.path.join(out, "q.npy"), clip.qpos))
    print(f"{clip.n_frames} frames; baseline np.save of qpos: {base * 1e3:.2f} ms")
    for ext in (".bvh", ".glb", ".npz", ".csv"):
        t = best(lambda: save_motion(dog, clip, os.path.join(out, "trot" + ext)))
        print(f"{ext:5s} {t * 1e3:8.1f} ms  {t / base:8.1f}x baseline  {clip.n_frames / t:10.0f} frames/s")
    d = mujoco.MjData(dog.model)

    def kinematics():
        for q in clip.qpos:
            d.qpos[:] = q
            mujoco.mj_forward(dog.model, d)
    kin = best(kinematics)
    for w, h in ((320, 240), (640, 480)):
        with StillRenderer(dog, w, h) as r:
            view = frame_character(dog)
            t = best(lambda: [r.render(q, view) for q in clip.qpos], repeats=1)
        print(f"render {w}x{h}: {clip.n_frames / t:6.1f} frames/s ({t / kin:6.1f}x mj_forward of the frames)")
    t = best(lambda: save_motion(dog, clip, os.path.join(out, "trot.mp4")), repeats=1)
    print(f"mp4 640x480 end to end: {clip.n_frames / t:6.1f} frames/s")


if __name__ == "__main__":
    main()
