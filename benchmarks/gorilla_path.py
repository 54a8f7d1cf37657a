"""The gorilla's waypoint path (tests/test_skills_gaits.py) under a gain set:
whether it falls, how far its mass centre strays from the path after 5 s
and how far from the end it stops. Run it under several OpenBLAS kernels
to see whether the result depends on the CPU's arithmetic:

    for k in Haswell SkylakeX SandyBridge; do
        OPENBLAS_CORETYPE=$k .venv/bin/python benchmarks/gorilla_path.py ours ours-10ms; done
"""
from __future__ import annotations

import os
import sys

import mujoco
import numpy as np

from gaitforge.control.paths import WaypointPath, distance_to_path
from gaitforge.control.skills import catalog


def main(gain_sets: list[str]) -> None:
    path = WaypointPath(np.array([[0.4, 0.0], [3.4, 0.0], [3.4, 3.0]]), speed=0.3)
    for gains in gain_sets:
        character, rollout = catalog.simulate("gorilla", "ds_walk", 0.3, 60.0, path=path, gains=gains,
                                              stop_on_fall=False)
        m, d = character.model, mujoco.MjData(character.model)
        com = []
        for q in rollout.clip.qpos[::10]:
            d.qpos[:] = q
            mujoco.mj_kinematics(m, d)
            mujoco.mj_comPos(m, d)
            com.append(d.subtree_com[1][:2].copy())
        com = np.array(com)
        late = rollout.times[::10] > 5.0
        print(f"{os.environ.get('OPENBLAS_CORETYPE', 'default kernel')}, {gains}: "
              f"{rollout.fall or 'held 60 s'}; off the path by up to {distance_to_path(path, com[late]).max():.2f} m, "
              f"stops {np.linalg.norm(com[-1] - path.waypoints[-1]):.2f} m from its end", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["ours"])
