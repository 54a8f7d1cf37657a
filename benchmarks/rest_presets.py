"""The studio's rest-pose presets (``gaitforge.studio.presets``) on every
built-in creature with contact points: the drop of the trunk asked (the
preset's share of its height over the contact points) and how close the
fit came to it, how far the trunk's orientation moved from the rest pose's,
and the highest contact point above the ground (every one should stay
down: a foot flat, heel and toe). A Markdown table; a few seconds.

    PYTHONPATH=. .venv/bin/python benchmarks/rest_presets.py
"""
from __future__ import annotations

import numpy as np

import gaitforge.api as gf
from gaitforge.creatures import registry
from gaitforge.studio import presets


def rows() -> list[str]:
    """The table's lines. Figures that the fit sets (to its 0.1 mm tolerance) are printed against
    bounds well above it, so that no rounding boundary makes them flicker between machines."""
    out = ["| creature | preset | trunk height at rest m | drop asked mm | drop reached within mm "
           "| trunk turned ° | highest contact point mm |",
           "|---|---|---|---|---|---|---|"]
    for name in sorted(registry.names()):
        ch = gf.creature(name)
        if not ch.contacts:
            continue
        basis = gf.modes(ch)
        m = ch.model
        sites = list(ch.contacts.values())
        bodies = [m.body(int(b)).name for b in m.site_bodyid[sites]]
        xpos0, xmat0 = (a[0] for a in ch.body_frames(ch.rest_qpos[None]))
        height = xpos0[1, 2] - float(np.mean(ch.world_points(ch.rest_qpos[None], bodies, m.site_pos[sites])[0, :, 2]))
        for preset, share in presets.PRESETS.items():
            if share == 0.0:
                continue
            q = presets.preset_pose(ch, basis, preset)
            xpos, xmat = (a[0] for a in ch.body_frames(q[None]))
            off = 1000.0 * abs(xpos0[1, 2] - xpos[1, 2] - share * height)
            turn = np.degrees(np.arccos(np.clip((np.trace(xmat0[1].T @ xmat[1]) - 1.0) / 2.0, -1.0, 1.0)))
            up = 1000.0 * float(ch.world_points(q[None], bodies, m.site_pos[sites])[0, :, 2].max())
            out.append(f"| {name} | {preset} | {xpos0[1, 2]:.3f} | {1000 * share * height:.1f} "
                       f"| {'0.5' if off < 0.5 else f'{off:.1f} (over 0.5)'} | {turn:.2f} | {max(up, 0.0):.0f} |")
    return out


if __name__ == "__main__":
    print("\n".join(rows()))
