"""The modal family's hand-set gaits (``control.modal.presets``: the worm's
crawl, the loop's roll) as registry entries. A modal gait is driven along
vibration modes at their recipe's amplitudes, so it takes no commanded
speed, and it does not balance on legs, so it cannot be pushed."""
from __future__ import annotations

import mujoco

from gaitforge.control.entry import Entry, Measures, Run
from gaitforge.control.modal import presets
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character


def simulate(entry: Entry, speed: None, seconds: float, *, timestep=None, start=None, progress=None, perturb=None,
             gains: str = "ours"):
    """(character, rollout, ModalRollout) of the creature's hand-set gait
    under its modal physics (``control.modal.physics``; ``timestep`` [s]
    replaces its step, the contact model stays); ``start`` scales the
    friction and moves the start state (its speed nudge is 0: no speed is
    commanded)."""
    from gaitforge.control.modal import run_recipe
    from gaitforge.control.modal.physics import physics_for

    character = Character.from_spec(registry.build(entry.creature))
    initial = None
    if start is not None:
        start.apply_friction(character.model)
        d = mujoco.MjData(character.model)
        d.qpos[:] = character.rest_qpos
        start(character.model, d)
        initial = (d.qpos.copy(), d.qvel.copy())
    r = run_recipe(character, presets.hand_set(entry.creature), seconds, ramp=presets.RAMP,
                   physics=physics_for(character, timestep), initial=initial, progress=progress, perturb=perturb)
    return character, r.rollout, r


def measure(r: Run) -> Measures:
    """Travel, speed, work, cost of transport and cycle residual of the
    modal run, and its peaks against the joint limits."""
    from gaitforge.control.modal.measures import limits_report, summarize

    m = r.detail
    s = summarize(m, r.character.mass)  # cycles of the stride (the lowest frequency), not of a harmonic
    rows = (("travel (m)", f"{m.distance:.3f}"), ("body lengths", f"{s.body_lengths:.2f}"),
            ("dx (m)", f"{m.displacement[0]:+.3f}"), ("speed (m/s)", f"{s.speed:.3f}"), ("work (J)", f"{s.work:.3f}"),
            ("cost of transport", f"{s.cost_of_transport:.3g}"), ("cycle residual", f"{s.cycle_residual:.3g}"))
    return Measures(f"{r.character.name} {r.entry.gait if r.entry else ''}", rows, (limits_report(s, m.limits),))


def controller(entry: Entry, character, speed: None = None):
    """The ``ModalController`` of the creature's hand-set gait under its
    modal physics (its basis computed here)."""
    from gaitforge.control.modal import modal_controller
    from gaitforge.control.modal.physics import physics_for
    from gaitforge.motion.recipe import modes_for

    recipe = presets.hand_set(entry.creature)
    return modal_controller(character, modes_for(character, recipe), recipe, ramp=presets.RAMP,
                            physics=physics_for(character))


def entries() -> list[Entry]:
    out = []
    for creature in presets.names():
        recipe = presets.hand_set(creature)
        gait = recipe.name.removeprefix(f"{creature}_")
        out.append(Entry(creature, gait, "modal", creature, None, None, False, simulate, measure, default=True,
                         controller=controller))
    return out
