"""A picture sheet of vibration modes: each mode's two extreme poses side by side.

Every mode is shown at ±a along its shape, with the amplitude a chosen per
mode so that the largest joint rotation is ``max_rotation`` (25° by default):
modes are mass-normalized, so equal modal coordinates would show light limbs
swinging wildly beside a barely moving trunk. All tiles share one camera,
framed on the rest pose, so the poses are comparable across modes.
"""
from __future__ import annotations

import os
from typing import Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from gaitforge.creatures.character import Character
from gaitforge.io.images import save_png
from gaitforge.io.render import StillRenderer, View, frame_character

_BACKGROUND = 255
_LABEL_HEIGHT = 22  # px above each mode's pair of tiles
_GAP = 6  # px between cells


def mode_amplitudes(character: Character, basis, max_rotation: float = np.radians(25.0)) -> np.ndarray:
    """Per mode, the modal coordinate (k,) at which the largest rotation of any
    non-root hinge or ball joint is ``max_rotation`` [rad]; modes that rotate no
    joint (pure slides) get the one that moves a slide by 0.1 m."""
    m = character.model
    U = np.asarray(basis.shapes, float)
    rot, slide = np.zeros(U.shape[1]), np.zeros(U.shape[1])
    for j in character.joints.values():
        if m.body_parentid[character.body_id(j.body)] == 0:
            continue
        norm = np.linalg.norm(U[j.dof], axis=0)
        if j.kind == "slide":
            slide = np.maximum(slide, norm)
        elif j.kind in ("hinge", "ball", "gimbal"):
            rot = np.maximum(rot, norm)
    with np.errstate(divide="ignore"):
        amp = np.where(rot > 0, max_rotation / np.where(rot > 0, rot, 1.0),
                       0.1 / np.where(slide > 0, slide, 1.0))
    return amp


def extreme_poses(basis, index: int, amplitude: float) -> tuple[np.ndarray, np.ndarray]:
    """The poses (nq,) at −amplitude and +amplitude along mode ``index``."""
    coords = np.zeros(np.asarray(basis.shapes).shape[1])
    coords[index] = amplitude
    return basis.displace(-coords), basis.displace(coords)


def _label(text: str, width: int) -> np.ndarray:
    img = Image.new("RGB", (width, _LABEL_HEIGHT), (_BACKGROUND,) * 3)
    ImageDraw.Draw(img).text((4, 3), text, fill=(20, 20, 20), font=ImageFont.load_default(size=14))
    return np.asarray(img)


def render_mode_sheet(character: Character, basis, labels: Sequence[str] | None = None, *,
                      modes: Sequence[int] | None = None, tile: tuple[int, int] = (320, 240),
                      columns: int = 2, max_rotation: float = np.radians(25.0),
                      azimuth: float = 120.0, elevation: float = -15.0) -> np.ndarray:
    """The sheet (H, W, 3) uint8: ``columns`` modes per row, each a labelled
    pair of tiles (``tile`` = (width, height) px) at −a and +a.

    labels: one caption per mode of ``modes`` (default: index and frequency).
    """
    modes = list(range(np.asarray(basis.shapes).shape[1])) if modes is None else list(modes)
    if not modes:
        raise ValueError("no modes to draw")
    if labels is None:
        labels = [f"mode {i}: {basis.frequencies[i]:.2f} Hz" for i in modes]
    w, h = tile
    amps = mode_amplitudes(character, basis, max_rotation)
    base = frame_character(character, basis.rest_qpos, azimuth, elevation)
    view = View(base.lookat, base.distance * 1.1, base.azimuth, base.elevation)  # room for the swing
    cell_w, cell_h = 2 * w + _GAP, h + _LABEL_HEIGHT
    rows = -(-len(modes) // columns)
    sheet = np.full((rows * cell_h + (rows + 1) * _GAP, columns * cell_w + (columns + 1) * _GAP, 3),
                    _BACKGROUND, np.uint8)
    with StillRenderer(character, w, h) as renderer:
        for n, (i, text) in enumerate(zip(modes, labels)):
            top = _GAP + (n // columns) * (cell_h + _GAP)
            left = _GAP + (n % columns) * (cell_w + _GAP)
            sheet[top:top + _LABEL_HEIGHT, left:left + cell_w] = _label(text, cell_w)
            for k, q in enumerate(extreme_poses(basis, i, float(amps[i]))):
                x = left + k * (w + _GAP)
                sheet[top + _LABEL_HEIGHT:top + cell_h, x:x + w] = renderer.render(q, view)
    return sheet


def save_mode_sheet(path: str | os.PathLike, character: Character, basis,
                    labels: Sequence[str] | None = None, **kwargs) -> np.ndarray:
    """Render the sheet (see :func:`render_mode_sheet`) and write it as PNG
    (atomically); returns the image."""
    image = render_mode_sheet(character, basis, labels, **kwargs)
    save_png(path, image)
    return image
