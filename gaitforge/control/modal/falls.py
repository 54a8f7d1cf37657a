"""When a physically simulated creature has fallen: its root body too low
or its trunk tilted too far (the fall check of modal gait optimization)."""
from __future__ import annotations

import math
from typing import Callable

import mujoco
import numpy as np

from gaitforge.errors import GaitforgeError


def _z_axis(q: np.ndarray) -> np.ndarray:
    """The body z axis (3,) in world axes of unit quaternion q (w, x, y, z)."""
    w, x, y, z = q
    return np.array([2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)])


def upright_check(character, min_height: float, max_tilt: float) -> Callable[[mujoco.MjData], str | None]:
    """A fall check ``check(data) -> reason | None`` for a character whose
    root is a free joint: fallen when the root's height is below
    ``min_height`` [m] or its z axis is more than ``max_tilt`` [rad] from
    its direction at the rest pose."""
    m = character.model
    if m.njnt == 0 or int(m.jnt_type[0]) != int(mujoco.mjtJoint.mjJNT_FREE):
        raise GaitforgeError(f"the fall check needs a free-floating root, {character.name} has none")
    a = int(m.jnt_qposadr[0])
    rest = _z_axis(np.asarray(character.rest_qpos[a + 3:a + 7], float))
    cos_max = math.cos(max_tilt)

    def check(data: mujoco.MjData) -> str | None:
        q = data.qpos
        h = float(q[a + 2])
        if h < min_height:
            return f"root height {h:.3f} m below {min_height:g} m"
        c = float(_z_axis(q[a + 3:a + 7]) @ rest)
        if c < cos_max:
            return (f"trunk tilted {math.degrees(math.acos(max(-1.0, min(1.0, c)))):.0f} deg, "
                    f"more than {math.degrees(max_tilt):.0f} deg")
        return None

    return check
