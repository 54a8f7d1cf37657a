"""The balance feedback's closed loop linearized (``control.modal.linearize``):
for each creature, standing 3 s under the feedback from rest, the Jacobian
of one feedback period (8 physics steps) and its eigenvalues — the largest
|λ| other than the three of the scene's symmetries, with the feedback, with
none (springs alone, at the same state) and with the feedback's sign
flipped; and the slowest decay with the feedback as a time constant [s].

    PYTHONPATH=. .venv/bin/python benchmarks/balance_linear.py
"""
from __future__ import annotations

import dataclasses
import math
import warnings

import mujoco


def settled(name: str):
    """(character, model, data, controller, modes): ``name`` after 3 s under the feedback."""
    from gaitforge.control.modal.balance import BalanceController, BalanceGains, balance_modes
    from gaitforge.control.modal.linearize import settle
    from gaitforge.creatures import registry
    from gaitforge.creatures.character import Character

    c = Character.from_spec(registry.build(name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the gorilla's stance constraints are partly redundant: said elsewhere
        modes = balance_modes(c)
    ctl = BalanceController(c, modes, BalanceGains())
    m, d = settle(c, ctl, 3.0)
    return c, m, d, ctl, modes


def main() -> None:
    from gaitforge.control.modal.balance import OFF, BalanceController, BalanceGains
    from gaitforge.control.modal.linearize import period_jacobian, spectral_radius

    print("| creature | DOFs | period ms | largest modulus, feedback | none | sign flipped | slowest decay s |")
    print("|---|---|---|---|---|---|---|")
    for name in ("human", "dog", "gorilla"):
        c, m, d, ctl, modes = settled(name)
        steps = ctl._every
        radius = {}
        for label, ctrl in (("feedback", ctl), ("none", BalanceController(c, modes, OFF)),
                            ("flipped", BalanceController(c, dataclasses.replace(modes, B_pinv=-modes.B_pinv),
                                                          BalanceGains()))):
            if ctrl is not ctl:
                ctrl.reset(m, mujoco.MjData(m))
                ctrl._last_support = ctl._last_support
            radius[label] = spectral_radius(period_jacobian(m, d, ctrl, steps), neutral=3)
        period = steps * m.opt.timestep
        tau = -period / math.log(radius["feedback"]) if radius["feedback"] < 1.0 else math.inf
        print(f"| {name} | {m.nv} | {1000 * period:g} | {radius['feedback']:.6f} | {radius['none']:.6f} | "
              f"{radius['flipped']:.3f} | {tau:.0f} |")


if __name__ == "__main__":
    main()
