"""Do the measured balance limits (docs/guides/balance.md) hold under half
the physics step and perturbed starts? For each creature and push direction
it replays two forces read from ``gaitforge balance NAME --json FILE``: the
largest push survived with feedback (which should still be survived) and the
first force that failed without feedback (which should still fail), each at
the creature's own step, at half of it, and from two perturbed starts
(``sim.starts.StartNoise``: joints ± 0.01 rad, friction × 0.8–1.2).

    PYTHONPATH=. python benchmarks/balance_checks.py human.json dog.json gorilla.json
    PYTHONPATH=. python benchmarks/balance_checks.py --test-pushes
    PYTHONPATH=. python benchmarks/balance_checks.py --replay gorilla lateral feedback 539.1 585.3

(``--replay NAME DIRECTION GAINS F...``: those forces [N], each in the four
variants.)

(``--test-pushes``: the four pushes of tests/test_balance.py — human forward
and dog lateral, 15 % of body weight, without and with feedback — at the
step and at half of it; run it again under another CPU's arithmetic, e.g.
``OPENBLAS_CORETYPE=SkylakeX NUMBA_CPU_NAME=generic``.) Prints one line per
(creature, direction, force, variant): survived or not, and the root's peak
tilt [°].
"""
from __future__ import annotations

import json
import sys

from gaitforge.control.modal.physics import physics_for
from gaitforge.control.modal.standing import DIRECTIONS, DirectedPush, standing_case
from gaitforge.sim.push import judge, push_body, reference_height


def verdict(creature: str, gains: str, force: float, direction: str, *, timestep=None, seed=None):
    """The judged run of one push (the protocol of ``control.modal.standing``)."""
    case = standing_case(creature, gains, timestep=timestep, start_seed=seed)
    end = case.settle + case.duration
    character, base = case.simulate(end + case.after)
    reference = reference_height(character, base, end, end + case.after)
    push = DirectedPush(push_body(character), force, DIRECTIONS[direction], case.settle, case.duration)
    character, run = case.simulate(end + case.after, push)
    return judge(character, run, end, end + case.after, reference)


def main(paths: list[str]) -> None:
    for path in paths:
        table = json.load(open(path))
        name = table["creature"]
        dt = physics_for(name).timestep
        variants = {"dt": {}, "dt/2": {"timestep": dt / 2}, "start 1": {"seed": 1}, "start 2": {"seed": 2}}
        for direction in DIRECTIONS:
            checks = (("feedback", table["push_with_feedback_N"][direction], True),
                      ("none", table["first_failing_N"]["none"][direction], False))
            for gains, force, expect in checks:
                if force is None or force <= 0:
                    continue
                for label, kwargs in variants.items():
                    v = verdict(name, gains, force, direction, **kwargs)
                    mark = "as measured" if v.survived == expect else "DIFFERS"
                    print(f"{name:8s} {direction:8s} {gains:8s} {force:7.1f} N  {label:8s} "
                          f"{'survived' if v.survived else 'fell':8s} peak tilt {v.peak_tilt:6.1f}°  {mark}",
                          flush=True)


def test_pushes() -> None:
    from gaitforge.creatures import registry
    from gaitforge.creatures.character import Character

    for name, direction in (("human", "forward"), ("dog", "lateral")):
        force = round(0.15 * Character.from_spec(registry.build(name)).mass * 9.81, 1)
        for gains in ("none", "feedback"):
            for label, dt in (("dt", None), ("dt/2", physics_for(name).timestep / 2)):
                v = verdict(name, gains, force, direction, timestep=dt)
                print(f"{name:8s} {direction:8s} {gains:8s} {force:7.1f} N  {label:8s} "
                      f"{'survived' if v.survived else 'fell':8s} peak tilt {v.peak_tilt:6.1f}°", flush=True)


def replay(name: str, direction: str, gains: str, forces: list[float]) -> None:
    dt = physics_for(name).timestep
    variants = {"dt": {}, "dt/2": {"timestep": dt / 2}, "start 1": {"seed": 1}, "start 2": {"seed": 2}}
    for force in forces:
        for label, kwargs in variants.items():
            v = verdict(name, gains, force, direction, **kwargs)
            print(f"{name:8s} {direction:8s} {gains:8s} {force:7.1f} N  {label:8s} "
                  f"{'survived' if v.survived else 'fell':8s} peak tilt {v.peak_tilt:6.1f}°", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--replay"]:
        replay(sys.argv[2], sys.argv[3], sys.argv[4], [float(f) for f in sys.argv[5:]])
    elif sys.argv[1:] == ["--test-pushes"]:
        test_pushes()
    else:
        main(sys.argv[1:])
