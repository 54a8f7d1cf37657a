"""Offscreen pictures of characters with MuJoCo's renderer.

Set ``MUJOCO_GL=egl`` (the CLI does) before ``mujoco`` is first imported to
render without a display or GPU. Math never calls into this module.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import mujoco
import numpy as np

from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError


@dataclass(frozen=True)
class View:
    """A camera looking at a point: azimuth/elevation in degrees (MuJoCo's
    convention: azimuth 90 looks along +y, i.e. at the creature's left side
    from the right... see ``frame_character``), distance in metres."""

    lookat: tuple[float, float, float]
    distance: float
    azimuth: float = 120.0
    elevation: float = -15.0


def frame_character(character: Character, qpos: np.ndarray | None = None,
                    azimuth: float = 120.0, elevation: float = -15.0) -> View:
    """A view that fits the whole creature at ``qpos`` (default rest)."""
    q = character.rest_qpos if qpos is None else qpos
    d = character.make_data(q)
    body_pos = d.xpos[1:]
    lo, hi = body_pos.min(axis=0), body_pos.max(axis=0)
    low, high = character.extent(q)
    lo[2], hi[2] = low, high
    centre = 0.5 * (lo + hi)
    size = float(np.max(hi - lo))
    return View(tuple(centre), max(2.0 * size, 0.3), azimuth, elevation)


class StillRenderer:
    """Renders RGB frames (H, W, 3) uint8 of one character; reuse it for many frames."""

    def __init__(self, character: Character, width: int = 640, height: int = 480):
        model = character.model
        # The offscreen buffer must be at least as large as the frame.
        model.vis.global_.offwidth = max(model.vis.global_.offwidth, width)
        model.vis.global_.offheight = max(model.vis.global_.offheight, height)
        try:
            self._renderer = mujoco.Renderer(model, height, width)
        except Exception as exc:  # noqa: BLE001 - GL setup failures come in many types
            backend = os.environ.get("MUJOCO_GL", "(unset)")
            raise GaitforgeError(f"cannot start the offscreen renderer (MUJOCO_GL={backend}): {exc}") from None
        self.character = character
        self._data = mujoco.MjData(model)
        self._camera = mujoco.MjvCamera()

    def render(self, qpos: np.ndarray, view: View) -> np.ndarray:
        """One frame of the character at ``qpos`` (nq,) seen from ``view``."""
        self._data.qpos[:] = qpos
        mujoco.mj_forward(self.character.model, self._data)
        cam = self._camera
        cam.type = mujoco.mjtCamera.mjCAMERA_FREE
        cam.lookat[:] = view.lookat
        cam.distance, cam.azimuth, cam.elevation = view.distance, view.azimuth, view.elevation
        self._renderer.update_scene(self._data, cam)
        return self._renderer.render().copy()

    def close(self) -> None:
        self._renderer.close()

    def __enter__(self) -> "StillRenderer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def render_still(character: Character, qpos: np.ndarray | None = None, *, width: int = 640,
                 height: int = 480, azimuth: float = 120.0, elevation: float = -15.0) -> np.ndarray:
    """A single framed picture (H, W, 3) uint8 of the character at ``qpos`` (default rest)."""
    q = character.rest_qpos if qpos is None else qpos
    with StillRenderer(character, width, height) as r:
        return r.render(q, frame_character(character, q, azimuth, elevation))
