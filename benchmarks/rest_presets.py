"""The studio's rest-pose presets (``gaitforge.studio.presets``) on every
built-in creature with contact points: how far the trunk went down against
the share asked, how far its orientation moved from the rest pose's, and the
highest contact point above the ground (every one should stay down: a foot
flat, heel and toe). A Markdown table; a few seconds.

    PYTHONPATH=. .venv/bin/python benchmarks/rest_presets.py
"""
from __future__ import annotations

import numpy as np

import gaitforge.api as gf
from gaitforge.creatures import registry
from gaitforge.studio import presets


def rows() -> list[str]:
    out = ["| creature | preset | trunk height m | drop / asked | trunk turned ° | highest contact point mm |",
           "|---|---|---|---|---|---|"]
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
            drop = xpos0[1, 2] - xpos[1, 2]
            turn = np.degrees(np.arccos(np.clip((np.trace(xmat0[1].T @ xmat[1]) - 1.0) / 2.0, -1.0, 1.0)))
            up = 1000.0 * float(ch.world_points(q[None], bodies, m.site_pos[sites])[0, :, 2].max())
            out.append(f"| {name} | {preset} | {xpos0[1, 2]:.3f} → {xpos[1, 2]:.3f} | {drop / (share * height):.3f} "
                       f"| {turn:.2f} | {max(up, 0.0):.1f} |")
    return out


if __name__ == "__main__":
    print("\n".join(rows()))
