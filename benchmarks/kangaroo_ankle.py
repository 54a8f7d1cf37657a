"""How fast may the kangaroo's ankle set point move? For each pair of rates
(in flight, in stance) [rad/s] and each speed, ``--starts`` perturbed starts
(``sim.starts.StartNoise``) of the hop for ``--seconds``: how many held,
and the worst start's peak ankle drive (× 3 m g L) and peak ankle speed
(× 40 rad/s), with the joint that set the overall peaks.

    .venv/bin/python benchmarks/kangaroo_ankle.py [--rates 1000/1000,20/20,30/30,40/40,40/20] [--speeds 0.5,4.5,5.25]
        [--starts 10] [--seconds 20]

The falls of a slow flight rate come while the run's commanded speed ramps
through about 4.3 m/s (from 1.5 m/s at 0.5 m/s²), so 20 s shows them.
"""
from __future__ import annotations

import argparse
import warnings


def peaks(rates: tuple[float, float], speed: float, seeds: range, seconds: float):
    """(held, worst ankle drive, worst ankle speed, peak joints) of the starts
    ``seeds``: the ankle's peaks of every physics step, as fractions of its
    limits, before any clip (``Rollout.limits``)."""
    from gaitforge.control.raibert import catalog
    from gaitforge.sim.starts import PerturbedStart, StartNoise
    from gaitforge.sim.runner import run

    held, drive, omega, joints = 0, 0.0, 0.0, set()
    for seed in seeds:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ch, ctrl, m, _ = catalog.prepare("kangaroo", "hop", speed, ankle_rate=rates[0],
                                             ankle_thrust_rate=rates[1])
        start = PerturbedStart(StartNoise(), seed, speed)
        start.apply_friction(m)
        r = run(ch, ctrl, seconds, model=m, initial=start)
        held += r.fall is None
        drive = max(drive, r.limits.joints["foot"][0])
        omega = max(omega, r.limits.joints["foot"][1])
        joints.add(f"{r.limits.torque_joint}/{r.limits.speed_joint}")
    return held, drive, omega, sorted(joints)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rates", default="1000/1000,20/20,30/30,40/40,40/20")
    ap.add_argument("--speeds", default="0.5,2.875,4.5,5.25")
    ap.add_argument("--starts", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=20.0)
    args = ap.parse_args(argv)
    print("| flight rad/s | stance rad/s | speed m/s | held | ankle τ / 3 m g L | ankle ω / 40 rad/s "
          "| peak joints τ/ω |")
    print("|---|---|---|---|---|---|---|", flush=True)
    for pair in args.rates.split(","):
        rates = tuple(float(v) for v in pair.split("/"))
        for v in (float(s) for s in args.speeds.split(",")):
            held, drive, omega, joints = peaks(rates, v, range(1, args.starts + 1), args.seconds)  # type: ignore[arg-type]
            print(f"| {rates[0]:g} | {rates[1]:g} | {v:g} | {held}/{args.starts} | {drive:.2f} | {omega:.2f} | "
                  f"{', '.join(joints)} |", flush=True)


if __name__ == "__main__":
    main()
