"""The live footfall diagram as an image: one row per foot, dark where the
foot is down, over the clip's duration, with a cursor at the time shown
(pure numpy; the page shows it as a PNG)."""
from __future__ import annotations

import numpy as np

WIDTH, ROW, GAP = 360, 14, 4  # [px] image width, row height, gap between rows
DOWN, UP, CURSOR = (40, 40, 48), (232, 232, 236), (220, 40, 40)


def diagram(contact: np.ndarray, cursor: float | None) -> np.ndarray:
    """An RGB image (H, WIDTH, 3) uint8 of ``contact`` (T, F) bool, frames
    along the width; ``cursor`` ∈ [0, 1) the fraction of the clip shown now."""
    contact = np.asarray(contact, bool)
    T, F = contact.shape
    height = max(1, F * (ROW + GAP) - GAP) if F else ROW
    img = np.full((height, WIDTH, 3), 255, np.uint8)
    if T and F:
        cols = np.minimum((np.arange(WIDTH) * T) // WIDTH, T - 1)
        for f in range(F):
            row = np.where(contact[cols, f][:, None], np.array(DOWN)[None, :], np.array(UP)[None, :])  # (WIDTH, 3)
            y = f * (ROW + GAP)
            img[y:y + ROW] = row[None].astype(np.uint8)
    if cursor is not None:
        x = int(min(max(cursor, 0.0), 0.999) * WIDTH)
        img[:, max(0, x - 1):x + 1] = CURSOR
    return img
