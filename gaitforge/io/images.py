"""Image files: PNG stills written atomically."""
from __future__ import annotations

import os

import imageio.v3 as iio
import numpy as np

from gaitforge.io.atomic import atomic_path


def save_png(path: str | os.PathLike, image: np.ndarray) -> None:
    """Write an RGB image (H, W, 3) uint8 as PNG, atomically."""
    with atomic_path(path, suffix=".png") as tmp:
        iio.imwrite(tmp, image, extension=".png")
