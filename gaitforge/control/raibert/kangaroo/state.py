"""The Python side of the kangaroo's compiled tick (:mod:`kangaroo.kernel`):
the state array, the gains copied into it and the windows over ``MjData`` /
``MjModel`` (``jit.buffer_window``) the tick reads and writes.
"""
from __future__ import annotations

import numpy as np

from gaitforge.jit import buffer_window
from gaitforge.control.raibert.kangaroo import kernel as kk

#: ``KangarooHop.stage`` by jump-stage code.
STAGES = (None, "approach", "takeoff", "flight", "landing", "done")
#: A sample (2, 2) int32 array with strides, like ``data.contact.geom``: the
#: tick is compiled for contact pairs of any layout.
PAIRS_SAMPLE = np.zeros((2, 4), dtype=np.int32)[:, :2]
#: The element each offset slot of ``ix`` names: (struct, array, row kind,
#: row name); kinds: body, site, qpos (a joint's qpos), dof, joint (MuJoCo id).
WINDOW = {kk.C_COM: ("data", "subtree_com", "body", "trunk"), kk.C_LINVEL: ("data", "subtree_linvel", "body", "trunk"),
          kk.C_ANGMOM: ("data", "subtree_angmom", "body", "trunk"), kk.C_HIP: ("data", "xpos", "body", "thigh"),
          kk.C_KNEE: ("data", "xpos", "body", "shin"), kk.C_ANKLE: ("data", "xpos", "body", "foot"),
          kk.C_XMAT: ("data", "xmat", "body", "trunk"), kk.C_TOE: ("data", "site_xpos", "site", "toe"),
          kk.C_QFOOT: ("data", "qpos", "qpos", "foot"), kk.C_FRC_KNEE: ("data", "qfrc_applied", "dof", "shin")}
WINDOW.update({slot: ("model", "qpos_spring", "qpos", j) for slot, j in
               ((kk.Q_THIGH, "thigh"), (kk.Q_SHIN, "shin"), (kk.Q_FOOT, "foot"), (kk.Q_TAIL, "tail1"),
                (kk.Q_HEAD, "head"))})
WINDOW.update({slot: ("model", "jnt_stiffness", "joint", j) for slot, j in
               ((kk.M_K_THIGH, "thigh"), (kk.M_K_SHIN, "shin"), (kk.M_K_FOOT, "foot"), (kk.M_K_HEAD, "head"))})
WINDOW.update({slot: ("model", "dof_damping", "dof", j) for slot, j in
               ((kk.M_C_THIGH, "thigh"), (kk.M_C_SHIN, "shin"), (kk.M_C_FOOT, "foot"), (kk.M_C_HEAD, "head"))})



def new_state(feet: int, floats=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A state array ``st`` (NF + NI + feet,) for ``feet`` foot geoms, its
    float part (NF,) (a copy of ``floats`` if given) and its int64 view."""
    st = np.zeros(kk.NF + kk.NI + feet)
    s, ix = st[:kk.NF], st[kk.NF:].view(np.int64)
    if floats is not None:
        s[:] = floats
    return st, s, ix


def load_gains(s: np.ndarray, g, jump) -> None:
    """Copy the KangarooGains ``g`` and the JumpPlan ``jump`` (or None) into
    the float state ``s`` (NF,)."""
    s[kk.DV], s[kk.CONTROL_DT] = g.accel * g.control_dt, g.control_dt
    s[kk.PITCH_DESIRED], s[kk.K_X], s[kk.K_XI], s[kk.STANCE_SMOOTHING] = (g.pitch_desired, g.k_x, g.k_xi,
                                                                          g.stance_smoothing)
    s[kk.LEG_LENGTH_TD], s[kk.SWING_CLEARANCE], s[kk.ANKLE_THRUST_MAX] = (g.leg_length_td, g.swing_clearance,
                                                                          g.ankle_thrust_max)
    s[kk.POSTURE_KP], s[kk.POSTURE_KV] = g.posture_kp, g.posture_kv
    s[kk.FLIGHT_TIME], s[kk.APEX_GAIN], s[kk.STANCE_GUESS] = g.flight_time, g.apex_gain, g.stance_guess
    s[kk.HIP_KP], s[kk.HIP_KV], s[kk.HIP_KP_STANCE], s[kk.HIP_KV_STANCE] = (g.hip_kp, g.hip_kv, g.hip_kp_stance,
                                                                           g.hip_kv_stance)
    s[kk.KNEE_KP], s[kk.KNEE_KV], s[kk.HEAD_KP], s[kk.HEAD_KV] = g.knee_kp, g.knee_kv, g.head_kp, g.head_kv
    s[kk.LIFTOFF_EXTENSION] = g.liftoff_extension
    s[kk.ANKLE_STEP], s[kk.ANKLE_THRUST_STEP] = g.ankle_rate * g.control_dt, g.ankle_thrust_rate * g.control_dt
    if jump is not None:
        s[kk.TAKEOFF_PLACEMENT], s[kk.ENERGY_FACTOR] = jump.takeoff_placement, jump.energy_factor
        s[kk.NEAR_X], s[kk.DEPTH], s[kk.HEIGHT] = jump.near_x, jump.depth, jump.height
        s[kk.STIFFNESS_FACTOR], s[kk.LANDING_DAMPING_FACTOR] = jump.stiffness_factor, jump.landing_damping_factor



def bind_windows(ix: np.ndarray, model, data, rows: dict) -> tuple[np.ndarray, np.ndarray]:
    """Windows (d over ``data``, mw over ``model``) holding every element
    WINDOW names, whose offsets are written to ``ix``; ``rows[kind][name]``
    is the row of each named body, site, qpos, dof or joint."""
    out = []
    for struct, obj in (("data", data), ("model", model)):
        slots = {k: v for k, v in WINDOW.items() if v[0] == struct}
        names = sorted({v[1] for v in slots.values()})
        arrays = [getattr(obj, n) for n in names]
        win, starts = buffer_window(arrays, obj.nbuffer)
        for slot, (_, name, kind, row) in slots.items():
            a = arrays[names.index(name)]
            ix[slot] = starts[names.index(name)] + rows[kind][row] * (a.shape[1] if a.ndim == 2 else 1)
        out.append(win)
    return out[0], out[1]
