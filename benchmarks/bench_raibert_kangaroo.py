"""Speed of the RH91 kangaroo controllers against raw MuJoCo stepping.

For each case the controlled run is timed, then the same physics is replayed
without any Python in between: the state recorded at every control tick is
restored and ``mj_step(nstep)`` is timed from it, so both sides step through
the same contacts. Printed: real-time factor of the controlled run, and the
ratio controlled / raw per physics step (target ≤ 1.3). Also printed: the
cost of the runner alone (a controller that does nothing, creature floating
without gravity, no contacts), and the foot model's stability when its force
is held for several physics steps instead of renewed every step.

    MUJOCO_GL=egl .venv/bin/python benchmarks/bench_raibert_kangaroo.py
"""
from __future__ import annotations

import copy
import time

import mujoco
import numpy as np

from gaitforge.control.raibert import kangaroo as K
from gaitforge.control.raibert.footmodel import hop_on_foot_model
from gaitforge.creatures.builders.raibert import raibert_kangaroo
from gaitforge.creatures.character import Character
from gaitforge.sim.runner import run

SPEC = mujoco.mjtState.mjSTATE_INTEGRATION


class Recorder:
    """Wraps a controller and keeps the full MuJoCo state after each tick's control."""

    def __init__(self, inner):
        self.inner, self.states = inner, []

    @property
    def state(self):
        return self.inner.state

    def reset(self, m, d):
        self.inner.reset(m, d)

    def compute(self, m, d):
        self.inner.compute(m, d)
        s = np.zeros(mujoco.mj_stateSize(m, SPEC))
        mujoco.mj_getState(m, d, s, SPEC)
        self.states.append(s)


class Idle:
    state = "idle"

    def reset(self, m, d):
        d.qpos[1] += 1.0

    def compute(self, m, d):
        pass


def raw_seconds(model, states, nstep) -> float:
    d = mujoco.MjData(model)
    total = 0.0
    for s in states:
        mujoco.mj_setState(model, d, s, SPEC)
        t0 = time.perf_counter()
        mujoco.mj_step(model, d, nstep=nstep)
        total += time.perf_counter() - t0
    return total


def compare(label, character, make, seconds, control_dt, model, fall_check) -> None:
    r = run(character, make(), seconds, control_dt=control_dt, record_fps=50, fall_check=fall_check, model=model)
    rec = Recorder(make())
    run(character, rec, seconds, control_dt=control_dt, record_fps=50, fall_check=fall_check, model=model)
    m = copy.copy(model)
    rec.inner.reset(m, mujoco.MjData(m))  # the controller's model edits (gains, contacts) for the replay
    nstep = int(round(control_dt / model.opt.timestep))
    raw = raw_seconds(m, rec.states, nstep)
    steps = len(rec.states) * nstep
    print(f"{label:34s} {seconds / r.wall_time:8.1f}x real time  controlled {r.wall_time / steps * 1e6:6.1f} us/step"
          f"  raw {raw / steps * 1e6:6.1f} us/step  ratio {r.wall_time / raw:5.2f}  (fall: {r.fall})")


def main() -> None:
    roo = Character.from_spec(raibert_kangaroo())
    g = K.KangarooGains()
    model = copy.copy(roo.model)
    model.opt.timestep = g.timestep
    print(f"physics step {g.timestep * 1e3:.1f} ms, control every {g.control_dt * 1e3:.0f} ms")
    for speed in (1.0, 2.5, 4.5):
        compare(f"hop {speed} m/s (MuJoCo contact)", roo, lambda s=speed: K.make_controller(roo, "hop", s),
                20.0, g.control_dt, model, K.fall_check(roo))

    idle = copy.copy(roo.model)
    idle.opt.gravity[:] = 0.0
    idle.opt.timestep = g.timestep
    for dt in (g.timestep, g.control_dt):  # every physics step, and the controller's own interval
        compare(f"runner alone, tick {dt * 1e3:.0f} ms", roo, Idle, 10.0, dt, idle, None)

    _, _, m, dt = hop_on_foot_model(roo, 3.0)

    def make_fm():
        return hop_on_foot_model(roo, 3.0)[0]

    compare("hop 3.0 m/s on the paw-pad model", roo, make_fm, 5.0, dt, m, K.fall_check(roo))

    print("foot model with the force held for n physics steps of 0.5 ms (kangaroo, 2 m/s, 5 s):")
    for every in (1, 2, 4, 12):
        c, fm, m, dt = hop_on_foot_model(roo, 2.0)
        c.inner_every //= every
        r = run(roo, c, 5.0, control_dt=dt * every, record_fps=50, fall_check=K.fall_check(roo), model=m)
        _, f, _ = fm.history()
        print(f"  held {every * dt * 1e3:4.1f} ms: fall {r.fall}; largest pad force {f[:, 0, 2].max():9.0f} N"
              f" (weight {roo.mass * 9.81:.0f} N)")


if __name__ == "__main__":
    main()
