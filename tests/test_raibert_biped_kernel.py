"""The compiled control tick of the RH91 biped (biped_kernel): each kernel's
compiled form against its interpreted original on inputs recorded from real
runs, rollouts with every kernel interpreted against the compiled ones, the
kernel state layout, the memory spans the ticks take, and the bookkeeping
left to Python (the phase machines and stance timers fed from the phase log)."""
from __future__ import annotations

import copy
import functools

import mujoco
import numpy as np
import pytest

from gaitforge.jit import JIT_ENABLED, buffer_window
from gaitforge.control.raibert import biped
from gaitforge.control.raibert.biped import kernel as K
from gaitforge.control.raibert.biped import servo as biped_servo
from gaitforge.control.raibert.biped import tick as biped_tick
from gaitforge.control.raibert.biped.base import PHASES
from gaitforge.control.paths import WaypointPath
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.sim import run

BIPED = Character.from_spec(registry.build("raibert_biped"))
SQUARE = WaypointPath([[0, 0], [4, 0], [4, 4], [0, 4]], loop=True)
CASES = {"run": ("run", 1.5, None), "path": ("run", 1.0, SQUARE),
         "together": ("gallop_together", 1.0, None), "alternate": ("gallop_alternate", 0.75, None)}
MODULES = (K, biped_servo, biped_tick)
# Every compiled kernel by name, and each (module, name) that refers to one:
# a kernel calls the others through its own module's names.
KERNELS = {name: f for mod in MODULES for name, f in vars(mod).items() if hasattr(f, "py_func")}
REFERENCES = [(mod, name) for mod in MODULES for name, f in vars(mod).items() if hasattr(f, "py_func")]
jit_only = pytest.mark.skipif(not JIT_ENABLED, reason="kernels are interpreted (GAITFORGE_NO_JIT)")


def rollout(case: str, seconds: float, spy=None):
    """qpos (T, nq) and state after each tick of ``CASES[case]`` (run by
    ``sim.run``, recording every tick), and the controller; ``spy(controller)``
    is called after its reset."""
    gait, speed, path = CASES[case]
    c = biped.make_controller(BIPED, gait, speed, path=path)
    if spy is not None:
        reset = c.reset

        def reset_then_spy(m, d):
            reset(m, d)
            spy(c)
        c.reset = reset_then_spy
    r = run(BIPED, c, seconds, record_fps=1.0 / c.control_dt, fall_check=None)
    # (sim.run records before each tick: the first frame is the start)
    return r.clip.qpos[1:], list(r.states[1:]), c


@functools.cache
def recorded(case: str) -> list[tuple]:
    """The arguments (t, flags, D, M, s: copies) of every tick-kernel call of
    a 3 s run, taken before the call."""
    calls = []

    def spy(c):
        real = c._kernel

        def recording(t, flags, D, M, s):
            calls.append((t, flags, D.copy(), M.copy(), s.copy()))
            return real(t, flags, D, M, s)
        c._kernel = recording
    rollout(case, 3.0, spy)
    return calls


def same(a, b, what):
    """Equal results: numbers to 1e-12, arrays elementwise (NaN == NaN)."""
    if a is None or b is None:
        assert a is b, what
    elif isinstance(a, tuple):
        assert len(a) == len(b), what
        for x, y in zip(a, b):
            same(x, y, what)
    else:
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=what)


def both(name, args, monkeypatch):
    """Result and arguments after ``name`` ran compiled, and the same
    interpreted (every kernel it calls interpreted too)."""
    def copy_args():
        return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)

    compiled_args = copy_args()
    compiled = KERNELS[name](*compiled_args)
    with monkeypatch.context() as mp:
        for mod, k in REFERENCES:
            mp.setattr(mod, k, getattr(mod, k).py_func)
        interp_args = copy_args()
        interp = KERNELS[name].py_func(*interp_args)
    return compiled, compiled_args, interp, interp_args


def check(name, args, monkeypatch):
    compiled, ca, interp, ia = both(name, args, monkeypatch)
    same(compiled, interp, f"{name}: result")
    for i, (x, y) in enumerate(zip(ca, ia)):
        if isinstance(x, np.ndarray):
            same(x, y, f"{name}: argument {i} after the call")


# ------------------------------------------------------------------ layout
def test_kernel_state_slots_are_the_layout_offsets():
    # core.layout lays the fields out in order (no overlaps by construction);
    # every slot constant is its field's offset, and the state is SIZE long.
    for name in K.LAYOUT.fields:
        assert getattr(K, name.upper()) == K.LAYOUT[name], name
    assert K.SIZE == K.LAYOUT.size == sum(f.size for f in K.LAYOUT.fields.values())
    assert K.LAYOUT.fields["log_t"].size == K.QCAP and K.LAYOUT.fields["leg"].size == 2 * K.LEG_STRIDE
    assert max(K.HIP_Y, K.HIP_Q, K.HIP_D, K.HIP_JNT, K.SLIDE_Q, K.SLIDE_D, K.FOOT) < K.LEG_STRIDE
    assert [PHASES.index(p) for p in PHASES] == [K.FLIGHT, K.LOADING, K.COMPRESSION, K.THRUST, K.UNLOADING]


def test_spans_alias_mujocos_arrays_and_refuse_other_layouts():
    m = copy.copy(BIPED.model)
    d = mujoco.MjData(m)
    D, (oq, og) = buffer_window((d.qpos, d.geom_xpos), d.nbuffer)
    D[oq + 2] = 1.25
    assert d.qpos[2] == 1.25
    mujoco.mj_kinematics(m, d)
    np.testing.assert_array_equal(D[og:og + 3 * m.ngeom].reshape(m.ngeom, 3), d.geom_xpos)
    with pytest.raises(GaitforgeError, match=r"^buffer window: the arrays span \d+ bytes, misaligned or beyond "
                                             rf"the {d.nbuffer}-byte buffer$"):
        buffer_window((d.qpos, m.qpos_spring), d.nbuffer)  # two buffers: the window would cover foreign memory
    with pytest.raises(GaitforgeError, match=r"^buffer window: an array is int32"):
        buffer_window((d.qpos, d.contact.geom), d.nbuffer)  # not float64


# ------------------------------------------------- compiled vs interpreted
@jit_only
@pytest.mark.parametrize("case", list(CASES))
def test_tick_kernels_compiled_equal_interpreted_on_recorded_calls(case, monkeypatch):
    calls = recorded(case)
    tick = biped_tick.run_tick if CASES[case][0] == "run" else biped_tick.gallop_tick
    name = tick.__name__
    codes = set()
    for call in calls:
        check(name, call, monkeypatch)
        codes.add(tick(*(a.copy() if isinstance(a, np.ndarray) else a for a in call)))
    # the recorded calls cover a plain tick, the velocity, flush and (path) steering requests
    assert {K.DONE, K.NEED_VEL + K.SENSE, K.NEED_VEL + K.ACT, K.FLUSH} <= codes
    assert (K.EVENT in codes or K.EVENT + 1 in codes) == (case == "path")


def views(call):
    """The MuJoCo arrays and state of a recorded call (copies)."""
    t, _, D, M, s = call
    D, M, s = D.copy(), M.copy(), s.copy()
    return t, biped_tick.views(D, M, s), s


@jit_only
@pytest.mark.parametrize("case", ["run", "together"])
def test_helper_kernels_compiled_equal_interpreted(case, monkeypatch):
    calls = recorded(case)[::15]  # about 20 states along the run
    gallop = case != "run"
    for call in calls:
        t, (qpos, qvel, gxpos, com, comvel, qfrc, spring, stiff, damp), s = views(call)
        check("views", (call[2], call[3], call[4]), monkeypatch)
        check("trunk_matrix", (qpos,), monkeypatch)
        R = K.trunk_matrix(qpos)
        check("flight_com", (t, com, comvel, s), monkeypatch)
        check("slew", (spring, s), monkeypatch)
        for use in ((True, False), (False, True), (True, True)):
            check("posture", (qpos, qvel, com, spring, stiff, damp, qfrc, s) + use, monkeypatch)
        for i in (0, 1):
            check("aim_foot", (i, qpos, spring, s, R, com[0, 0], com[0, 1], comvel[0, 0], comvel[0, 1], 0.2, 0.83),
                  monkeypatch)
            check("zero_hip", (i, stiff, damp, qfrc, s), monkeypatch)
            check("thrust", (i, 0.5, qpos, gxpos, com, comvel, spring, s), monkeypatch)
            check("learn", (i if not gallop else -1, t, qpos, com, s), monkeypatch)
            check("touchdown", (i, t, qpos, com, stiff, damp, qfrc, s), monkeypatch)
            check("liftoff", (i, t, qpos, spring, stiff, damp, qfrc, s), monkeypatch)
            for fresh in (0, 1):
                check("leg_step", (i, t, fresh, qpos, qvel, gxpos, com, comvel, spring, stiff, damp, qfrc, s),
                      monkeypatch)
    for ph in range(5):
        for touching in (False, True):
            for length, rate in ((0.80, -0.1), (0.82, 0.1), (0.829, 0.0)):
                check("next_phase", (ph, touching, length, rate, 0.83, 0.003, 0.98), monkeypatch)


@jit_only
@pytest.mark.parametrize("case", list(CASES))
def test_rollout_is_unchanged_with_every_kernel_interpreted(case, monkeypatch):
    q_compiled, states_compiled, _ = rollout(case, 3.0)
    for mod, name in REFERENCES:
        monkeypatch.setattr(mod, name, getattr(mod, name).py_func)
    q_interp, states_interp, c = rollout(case, 3.0)
    assert c._kernel is getattr(biped_tick, c._kernel.__name__) and not hasattr(c._kernel, "py_func")
    assert np.abs(q_compiled - q_interp).max() < 1e-9
    assert states_compiled == states_interp


# ------------------------------------------------------ Python bookkeeping
@pytest.mark.parametrize("case", ["run", "together"])
def test_phase_machines_and_timers_follow_the_kernel(case):
    _, states, c = rollout(case, 6.0)
    s = c.kstate
    # six seconds make more phase changes than the log holds: it was flushed on the way
    assert 0 < s[K.LOG_N] <= K.QCAP
    machines, timers = c.machines()
    assert s[K.LOG_N] == 0
    for slot, m in enumerate(machines):
        assert m.phase is PHASES[int(s[K.PHASE + slot])]
        assert m.steps == sum(p is PHASES[K.FLIGHT] for _, p in m.history)
    if case == "run":
        # every phase the states show, in order (a tick changes the phase at most once)
        shown = [st.split(":")[2] for st in states]
        changes = [b for a, b in zip(["flight"] + shown, shown) if a != b]
        assert [p.value for _, p in machines[0].history] == changes
        assert len(changes) > K.QCAP
    # the kernel's stance predictions are the timers' (from the same touchdown and liftoff times)
    for i in (0, 1):
        timer = timers[i if case != "run" else 0]
        assert s[K.STANCE + i] == timer.predicted_stance
        assert timer.last_stance is not None and 0.1 < timer.last_stance < 0.4


def test_a_tick_usually_stays_compiled():
    calls = []
    rollout("together", 3.0, spy=lambda c: setattr(c, "_resume", _counting(c._resume, calls)))
    # Python serves the kernel only for the velocity at thrusts and liftoffs and
    # for full logs: about one tick in ten of a gallop.
    assert 0 < len(calls) < 0.15 * 300


def _counting(f, calls):
    def counted(*args):
        calls.append(args)
        return f(*args)
    return counted
