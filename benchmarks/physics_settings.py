"""The physics each simulated controller integrates with, as tables for the
docs (docs/physics.md, docs/modal_physics.md; ``docs/figures.py`` checks
that the pages still match this output).

``runners``: every registry runner's default gait, run for 0.05 s, and the
physics record its rollout carries (read back from the model MuJoCo was
given, so it is what ran, not what a module says) with its joint limits.
``modal``: the settings of each creature with modal gaits
(``control/modal/physics.py: PHYSICS``) and its joint limits in N m.

    PYTHONPATH=. .venv/bin/python benchmarks/physics_settings.py runners
    PYTHONPATH=. .venv/bin/python benchmarks/physics_settings.py modal
"""
from __future__ import annotations

import argparse


def _ms(seconds: float) -> str:
    return f"{1000 * seconds:.4g}"


def _limits(run) -> tuple[str, str]:
    """(torque limit, speed limit) of a run as text: the limit report the
    rollout carries, or the modal run's own limits (its detail record)."""
    report = run.rollout.limits
    if report is not None:
        return f"{report.limits.torque:g} m g L", f"{report.limits.speed:g}"
    lim = getattr(run.detail, "limits", None)
    if lim is None:
        return "none declared", "—"
    return f"{lim.torque / lim.mgl:g} m g L", f"{lim.speed:g}"


def runners_table() -> list[str]:
    """One Markdown row per registry runner (its default gait)."""
    import gaitforge as gf

    rows = ["| runner | gait | family | step ms | integrator | solver | contact time constant ms, damping ratio "
            "| solimp (d0–dwidth / width mm) | friction | torque limit | speed limit rad/s |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for e in gf.runners():
        run = gf.run(e.key, e.gait, seconds=0.05)
        p = run.rollout.physics
        torque, speed = _limits(run)
        d0, dwidth, width = p.solimp[:3]
        rows.append(f"| {e.key} | {e.gait} | {e.family} | {_ms(p.timestep)} | {p.integrator} | {p.solver} "
                    f"| {_ms(p.solref[0])}, {p.solref[1]:g} | {d0:g}–{dwidth:g} / {1000 * width:g} "
                    f"| {p.friction:g} | {torque} | {speed} |")
    return rows


def modal_table() -> list[str]:
    """One Markdown row per creature with modal gaits."""
    import gaitforge as gf
    from gaitforge.control.modal.physics import PHYSICS, limits

    rows = ["| creature | step ms | integrator | contact time constant ms, damping ratio "
            "| solimp (d0–dwidth / width mm) | L m | drive torque limit | speed limit rad/s |",
            "|---|---|---|---|---|---|---|---|"]
    for name, phys in PHYSICS.items():
        lim = limits(gf.creature(name), phys)
        d0, dwidth, width = phys.solimp[:3]
        rows.append(f"| {name} | {_ms(phys.timestep)} | {phys.integrator} | {_ms(phys.solref[0])}, "
                    f"{phys.solref[1]:g} | {d0:g}–{dwidth:g} / {1000 * width:g} | {lim.length:.3g} "
                    f"| {phys.torque_limit:g} m g L = {lim.torque:.3g} N m | {phys.speed_limit:g} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table", choices=("runners", "modal"))
    args = parser.parse_args()
    print("\n".join(runners_table() if args.table == "runners" else modal_table()))


if __name__ == "__main__":
    main()
