"""The kangaroo's compiled tick (kangaroo_kernel, kangaroo_state): each kernel
against its interpreted original on inputs recorded from a run, a rollout
with every kernel interpreted, the MjData / MjModel windows, and the checks
that keep the kernel's copies of the PhaseMachine and StanceTimer honest."""
import copy
import re

import mujoco
import numpy as np
import pytest

from gaitforge.control.core.errors import InternalError
from gaitforge.jit import buffer_window, entry
from gaitforge.control.raibert import kangaroo as K
from gaitforge.control.raibert.kangaroo import actions as kangaroo_actions
from gaitforge.control.raibert.kangaroo import geometry as kangaroo_geometry
from gaitforge.control.raibert.kangaroo import hop as kangaroo_hop
from gaitforge.control.raibert.kangaroo import kernel as kk
from gaitforge.control.raibert.kangaroo import pose_kernels as kangaroo_pose
from gaitforge.control.raibert.footmodel import hop_on_foot_model
from gaitforge.control.raibert.fsm import Phase
from gaitforge.control.raibert.kangaroo.state import STAGES, WINDOW
from gaitforge.creatures.builders.raibert import raibert_kangaroo
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.sim import run

KERNELS = ("landing_pose_xz", "thrust_line_thigh_xz", "foot_contact", "next_phase", "stance_gains",
           "flight_targets", "knee_line_torque", "apex_wanted", "touchdown_liftoff", "act", "tick",
           "tick_contacts", "tick_early", "resume")
jit_only = pytest.mark.skipif(not hasattr(kk.tick, "py_func"), reason="kernels run interpreted (GAITFORGE_NO_JIT)")


@pytest.fixture(scope="module")
def roo():
    return Character.from_spec(raibert_kangaroo())


def start(character, speed=2.0, jump=None):
    """A reset controller, its model copy and data, as catalog.prepare does."""
    ctrl = K.make_controller(character, "hop", speed, jump=jump)
    base = character.model if jump is None else K.with_obstacle(character, jump.near_x, jump.height, jump.depth)
    m = copy.copy(base)
    m.opt.timestep = ctrl.g.timestep
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    ctrl.reset(m, d)
    mujoco.mj_forward(m, d)
    return ctrl, m, d


def rollout(character, ctrl, seconds, dt=None, model=None, spy=None):
    """qpos (T, nq) and states after each control tick (every ``dt`` [s],
    default the controller's control_dt) of ``sim.run`` on ``model`` (default:
    the controller's); ``spy(ctrl)`` is called after its reset."""
    if spy is not None:
        reset = ctrl.reset

        def reset_then_spy(m, d):
            reset(m, d)
            spy(ctrl)
        ctrl.reset = reset_then_spy
    dt = dt or ctrl.control_dt
    r = run(character, ctrl, seconds, control_dt=dt, record_fps=1.0 / dt, fall_check=None, model=model)
    # (sim.run records before each tick: the first frame is the start)
    return r.clip.qpos[1:], list(r.states[1:])


def plan_model(character, ctrl, jump):
    """The model of a run with ``jump`` (its obstacle) and the controller's physics step."""
    m = copy.copy(K.with_obstacle(character, jump.near_x, jump.height, jump.depth))
    ctrl.prepare_model(m)
    return m


@pytest.fixture(scope="module")
def recorded(roo):
    """Inputs of every tick call of a 3 s hop with a jump plan (copies of the
    state and the windows; touch or contact pairs; time)."""
    jump = K.JumpPlan(near_x=1.6, height=0.1)
    ctrl = K.make_controller(roo, "hop", 2.0, jump=jump)
    calls = []

    def spy(name, real):
        def call(st, dw, mw, touch, t):
            calls.append((name, st.copy(), np.array(dw), np.array(mw), touch if name == "tick" else np.copy(touch),
                          t))
            return real(st, dw, mw, touch, t)
        return call

    def spy_ticks(ctrl):
        ctrl._hot = (*ctrl._hot[:4], spy("tick", ctrl._hot[4]))
        ctrl._tick_contacts = spy("tick_contacts", ctrl._tick_contacts)
        ctrl._tick_early = spy("tick_early", ctrl._tick_early)
    _, states = rollout(roo, ctrl, 3.0, model=plan_model(roo, ctrl, jump), spy=spy_ticks)
    # Hopping, every jump stage and hopping again (each stage's own bookkeeping is recorded).
    assert {"jump_approach:thrust", "jump_takeoff:loading", "jump_flight:flight", "jump_landing:compression",
            "unloading"} <= set(states) and states[-1] in ("flight", "loading", "compression", "thrust", "unloading")
    return calls


def _same(a, b):
    """Outputs equal to 1e-12 (tuples, floats, ints, arrays)."""
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=0, atol=1e-12)


def _both(name, *args):
    """Run kernel ``name`` compiled and interpreted, each on its own copies of
    ``args``; compare the results and every array argument afterwards."""
    fn = getattr(kk, name)
    a, b = ([x.copy() if isinstance(x, np.ndarray) else x for x in args] for _ in range(2))
    _same(fn(*a), fn.py_func(*b))
    for x, y in zip(a, b):
        if isinstance(x, np.ndarray):
            _same(x, y)


def _views(st):
    return st[:kk.NF], st[kk.NF:].view(np.int64)


def _in(st, phase=None, stage=None):
    """(s, ix) of a copy of the state ``st``, optionally in another phase or
    jump stage (also the stage before planning)."""
    s, ix = _views(st.copy())
    if phase is not None:
        ix[kk.PHASE] = phase
    if stage is not None:
        ix[kk.STAGE] = ix[kk.PREV_STAGE] = stage
    return s, ix


@jit_only
def test_every_kernel_is_compiled_and_keeps_its_original():
    for name in KERNELS:
        assert callable(getattr(kk, name).py_func), name


@jit_only
def test_tick_kernels_match_their_interpreted_form(recorded):
    for name, st, dw, mw, touch, t in recorded:
        _both(name, st, dw, mw, touch, t)
        _both("resume", st, dw, mw, t)
    kinds = {(name, touch if name == "tick" else "pairs") for name, *_, touch, _ in recorded}
    assert kinds == {("tick", kk.HOLD), ("tick", 0), ("tick_contacts", "pairs"), ("tick_early", "pairs")}


@jit_only
def test_pieces_match_their_interpreted_form(recorded):
    for _, st, dw, mw, _, t in recorded[::20]:
        s, ix = _views(st)
        c, v, h, toe = (int(ix[k]) for k in (kk.C_COM, kk.C_LINVEL, kk.C_HIP, kk.C_TOE))
        cx, cz, vx, vz, hx, hz, tx, tz = dw[c], dw[c + 2], dw[v], dw[v + 2], dw[h], dw[h + 2], dw[toe], dw[toe + 2]
        trunk = kangaroo_geometry.pitch(dw[int(ix[kk.C_XMAT]):])
        _both("flight_targets", s, ix, mw, vx, vz, cx, cz, hx, hz, trunk)
        _both("knee_line_torque", s, ix, dw, mw, cx, cz, tx, tz)
        for phase in range(5):
            _both("act", *_in(st, phase), dw, mw)
            for touching in (0, 1):
                _both("next_phase", phase, touching, s[kk.LEG], s[kk.RATE], s[kk.REST_LEN], s[kk.COMPRESS_EPS],
                      s[kk.FULL_FRACTION])
        for stage in range(len(STAGES)):
            _both("apex_wanted", *_in(st, stage=stage))
            for phase in (kk.LOADING, kk.FLIGHT):
                _both("touchdown_liftoff", *_in(st, phase, stage), mw, cz, vx, t)
                _both("stance_gains", *_in(st, phase, stage), mw, phase == kk.LOADING)
        _both("landing_pose_xz", 0.15, -0.39, cx - hx, cz - hz, s[kk.L1], s[kk.L2], s[kk.R_TOE])
        _both("thrust_line_thigh_xz", hx, hz, tx, tz, cx, cz, s[kk.L1])
        pairs = np.array([[0, int(ix[kk.NI])], [0, 1]], dtype=np.int32)
        for rows in (pairs, pairs[1:], pairs[:0]):
            _both("foot_contact", rows, ix)
    assert kk.foot_contact(pairs, ix) == 1 and kk.foot_contact(pairs[1:], ix) == 0


def _interpreted(monkeypatch):
    for name in KERNELS:
        fn = getattr(kk, name)
        # (a kernel calls the others through its own module's names: swap them in every module)
        for module in (kk, kangaroo_actions, kangaroo_pose, kangaroo_hop, kangaroo_geometry):
            if getattr(module, name, None) is fn:
                monkeypatch.setattr(module, name, fn.py_func)


@jit_only
@pytest.mark.parametrize("case", ["hop", "jump", "foot model"])
def test_rollout_unchanged_with_interpreted_kernels(roo, monkeypatch, case):
    def run():
        if case == "foot model":  # the touch sensor path: the foot model's contact, every physics step
            ctrl, _, m, dt = hop_on_foot_model(roo, 2.0)
            return rollout(roo, ctrl, 3.0, dt, model=m)
        if case == "jump":
            plan = K.JumpPlan(near_x=1.6, height=0.1)
            ctrl = K.make_controller(roo, "hop", 2.0, jump=plan)
            return rollout(roo, ctrl, 3.0, model=plan_model(roo, ctrl, plan))
        return rollout(roo, K.make_controller(roo, "hop", 2.0), 3.0)

    compiled, states = run()
    with monkeypatch.context() as mp:
        _interpreted(mp)
        assert not any(hasattr(m.tick, "py_func") for m in (kk, kangaroo_hop))
        interpreted, states_py = run()
    assert states_py == states
    assert np.abs(compiled - interpreted).max() < 1e-9


# ----------------------------------------------------------------- windows
def test_windows_name_the_rows_the_controller_reads(roo):
    ctrl, m, d = start(roo)
    rows = {"body": ctrl.b, "site": {"toe": ctrl.toe}, "qpos": ctrl.qa, "dof": ctrl.da, "joint": ctrl.mj}
    for slot, (struct, name, kind, row) in WINDOW.items():
        win, obj = (ctrl._d, d) if struct == "data" else (ctrl._m, m)
        a = getattr(obj, name)
        width = a.shape[1] if a.ndim == 2 else 1
        np.testing.assert_array_equal(win[ctrl._ix[slot]:ctrl._ix[slot] + width], a[rows[kind][row]].ravel())
    # Writes through the windows are writes to MjData / MjModel.
    ctrl._d[ctrl._ix[kk.C_FRC_KNEE]] = 1.25
    ctrl._m[ctrl._ix[kk.Q_HEAD]] = -0.5
    assert d.qfrc_applied[ctrl.da["shin"]] == 1.25 and m.qpos_spring[ctrl.qa["head"]] == -0.5


def test_window_refuses_arrays_it_cannot_span():
    a = np.zeros(4)
    with pytest.raises(GaitforgeError, match=r"^buffer window: an array is int64 \(needs contiguous float64\)$"):
        buffer_window([np.zeros(3, dtype=np.int64)], 1000)
    with pytest.raises(GaitforgeError, match=r"^buffer window: an array is float64, not contiguous "
                                             r"\(needs contiguous float64\)$"):
        buffer_window([np.zeros((3, 3))[:, 0]], 1000)
    with pytest.raises(GaitforgeError, match=r"^buffer window: the arrays span 32 bytes, misaligned or beyond "
                                             r"the 16-byte buffer$"):
        buffer_window([a], 16)
    win, starts = buffer_window([a[2:], a[:1]], 32)
    assert starts == [2, 0] and win.shape == (4,)


def test_entry_leaves_interpreted_functions_alone():
    def plain(x):
        return x + 1
    assert entry(plain, (1,)) is plain
    if hasattr(kk.apex_wanted, "py_func"):
        fast = entry(kk.apex_wanted, (np.zeros(kk.NF), np.zeros(kk.NI, dtype=np.int64)))
        s, ix = np.zeros(kk.NF), np.zeros(kk.NI, dtype=np.int64)
        s[kk.TD_COM_Z], s[kk.GRAVITY], s[kk.FLIGHT_TIME], s[kk.APEX_BIAS] = 0.5, 9.81, 0.2, 0.01
        assert fast(s, ix) == pytest.approx(0.5 + 9.81 * 0.04 / 8 + 0.01, abs=1e-15)


# ------------------------------------------------------- state and checks
def test_attributes_live_in_the_state_array(roo):
    ctrl = K.make_controller(roo, "hop", 2.0)
    assert ctrl.speed == 2.0 and ctrl.stage is None and ctrl.state == "flight"
    ctrl.stage, ctrl.td_com_z = "takeoff", None
    assert ctrl._ix[kk.STAGE] == kk.ST_TAKEOFF and np.isnan(ctrl._s[kk.TD_COM_Z]) and ctrl.td_com_z is None
    assert ctrl.state == "jump_takeoff:flight"
    ctrl.td_com_z = 0.41
    assert ctrl._s[kk.TD_COM_Z] == 0.41 and isinstance(K.KangarooHop.td_com_z, property)


def test_the_phase_machine_records_the_ticks_changes(roo):
    ctrl, _, _ = start(roo)
    steps = ctrl.fsm.steps
    ctrl._phase_change(0.5, kk.LOADING)
    assert ctrl.fsm.phase is Phase.LOADING and ctrl.fsm.history[-1] == (0.5, Phase.LOADING)
    assert ctrl.timer.touchdown_time == 0.5 and ctrl.fsm.steps == steps


def test_a_stance_the_timer_disagrees_with_is_an_error(roo):
    ctrl, _, _ = start(roo)
    ctrl.fsm.phase = Phase.THRUST
    ctrl._ix[kk.TOUCH] = 0
    ctrl._s[kk.STANCE_PRED] = 0.5
    # No touchdown was timed, so the StanceTimer predicts its default.
    with pytest.raises(InternalError, match=rf"^kangaroo: the tick's stance 0\.5 s differs from the "
                                             rf"StanceTimer's {re.escape(str(ctrl.g.stance_guess))} s$"):
        ctrl._phase_change(0.5, kk.FLIGHT)


def test_a_foot_letting_go_early_lifts_off_only_from_an_extended_leg(recorded):
    """Inside the debounce time a lost contact ends a thrusting stance only
    once the leg is back to ``liftoff_extension`` (0.9) of its touchdown
    length; while it is shorter the gap is a whipping foot, and the stance holds."""
    _, st, dw, mw, _, t = next(c for c in recorded if c[0] == "tick_early")
    s, ix = _views(st)
    planted = np.array([[0, int(ix[kk.NI])]], np.int32)  # the ground against the foot's geom
    assert ix[kk.PHASE] in (kk.THRUST, kk.UNLOADING) and s[kk.LIFTOFF_EXTENSION] == 0.9
    probe = st.copy()
    kk.tick(probe, dw.copy(), mw.copy(), kk.HOLD, t)
    leg = _views(probe)[0][kk.LEG]  # the leg length this tick measures [m]
    gone = np.zeros((0, 2), np.int32)  # no contact at all
    for share, lifts in ((0.95, True), (0.85, False)):
        trial = st.copy()
        ts, tix = _views(trial)
        tix[kk.PHASE] = kk.THRUST
        ts[kk.REST_LEN] = leg / share
        code = kk.tick_early(trial, dw.copy(), mw.copy(), gone, t)
        assert (code == kk.FLIGHT) == lifts, share
        # with the foot still on the ground, the stance goes on either way
        trial = st.copy()
        _views(trial)[1][kk.PHASE] = kk.THRUST
        _views(trial)[0][kk.REST_LEN] = leg / share
        assert kk.tick_early(trial, dw.copy(), mw.copy(), planted, t) != kk.FLIGHT
