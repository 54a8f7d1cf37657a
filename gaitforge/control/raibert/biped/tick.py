"""The compiled control ticks of the RH91 biped gaits: the run's and the
gallops' bodies (phases, posture, swing, slew, from a resume stage) and the
entry points the controllers call with the ``MjData`` / ``MjModel`` windows.
Arguments, return codes and the kernel state ``s`` are described in
:mod:`biped.kernel`; the servo kernels are in :mod:`biped.servo`.
"""
from __future__ import annotations

import math

from gaitforge.jit import kernel
from gaitforge.control.raibert.biped.kernel import (
    ACT,
    ACTIVE,
    ALTERNATE,
    COM,
    COMPRESSION,
    COMVEL,
    DAMP,
    DONE,
    DONE_LEG,
    DONE_PRE,
    FLIGHT,
    FLUSH,
    GOAL,
    GXPOS,
    HIP_Q,
    IN_SUPPORT,
    LAG,
    LANDING,
    LATE_T,
    LATE_VZ,
    LEG,
    LEG_LEN,
    LEG_STRIDE,
    NBODY,
    NEED_VEL,
    NGEOM,
    NJNT,
    NQ,
    NV,
    PHASE,
    QCAP,
    QFRC,
    LOG_N,
    QPOS,
    QVEL,
    SENSE,
    SHORT,
    SPRING,
    STANCE,
    STIFF,
    THRUST,
    TRAIL_DOWN,
    VEL_OK,
    leg_step,
    trunk_matrix,
)
from gaitforge.control.raibert.biped.servo import aim_foot, flight_com, posture, slew


@kernel
def run_body(t, fresh, stage, reset, qpos, qvel, gxpos, com, comvel, spring, stiff, damp, qfrc, s):
    """One control tick of the run (``biped.run.BipedRun``) from ``stage``:
    the active leg's (``s[ACTIVE]``) phase; in FLIGHT it is lengthened for
    landing and aimed (Eq. 3) and the idle leg is short; in COMPRESSION and
    THRUST its hip servoes posture. The idle hip mirrors the active one in
    the trunk's sagittal plane (Rx(a) Ry(b) -> Rx(-a) Ry(-b) flips x and y),
    so the legs' reaction torques on the trunk cancel. Then the slew."""
    if stage == SENSE:
        if s[LOG_N] > QCAP - 2:  # no room to log this tick's phase changes
            return FLUSH
        r = leg_step(int(s[ACTIVE]), t, fresh, qpos, qvel, gxpos, com, comvel, spring, stiff, damp, qfrc, s)
        if r > 0:
            return r  # NEED_VEL + SENSE, or EVENT + leg: a path steers
    k, ph = int(s[ACTIVE]), int(s[PHASE])  # (a liftoff exchanges the legs)
    if ph == FLIGHT:
        if s[VEL_OK] == 0.0 and not fresh:
            return NEED_VEL + ACT
        cx, cy, _cz, vx, vy, _vz = flight_com(t, com, comvel, s)
        s[GOAL + k], s[GOAL + 1 - k] = s[LANDING], s[SHORT]
        aim_foot(k, qpos, spring, s, trunk_matrix(qpos), cx, cy, vx, vy, s[STANCE + k], s[LEG_LEN] + s[LANDING])
    elif ph == COMPRESSION or ph == THRUST:
        posture(qpos, qvel, com, spring, stiff, damp, qfrc, s, k == 0, k == 1)
    if reset:  # (reset only aims the flight leg)
        return DONE
    i, j = int(s[LEG + LEG_STRIDE * k + HIP_Q]), int(s[LEG + LEG_STRIDE * (1 - k) + HIP_Q])
    spring[j], spring[j + 1], spring[j + 2], spring[j + 3] = qpos[i], -qpos[i + 1], -qpos[i + 2], qpos[i + 3]
    slew(spring, s)
    return DONE


@kernel
def gallop_body(t, fresh, stage, reset, qpos, qvel, gxpos, com, comvel, spring, stiff, damp, qfrc, s):
    """One control tick of the gallops (``biped.gallop.BipedGallop``) from
    ``stage``: the trailing leg's (0) then the leading leg's (1) phase,
    posture through the stance hips in COMPRESSION and THRUST (unless the
    leg is already short), the swing of the legs in the air by style and
    role, and the slew. Returns ``DONE_PRE`` while a support goes on with a
    leg swinging: such ticks aim at the measured mass-centre velocity."""
    if stage == SENSE and s[LOG_N] > QCAP - 2:  # no room to log this tick's phase changes
        return FLUSH
    for i in range(stage, 2):  # (stage SENSE: from leg 0, LEG1: leg 1, ACT: none)
        r = leg_step(i, t, fresh, qpos, qvel, gxpos, com, comvel, spring, stiff, damp, qfrc, s)
        if r == NEED_VEL:
            return NEED_VEL + i  # resume at this leg
        if r > 0:
            return r  # EVENT + leg: a path steers
    p0, p1, short = int(s[PHASE]), int(s[PHASE + 1]), s[SHORT]
    alternate, down = s[ALTERNATE] != 0.0, s[TRAIL_DOWN]
    has_down = not math.isnan(down)
    # Which legs swing and whether they may lengthen (ext: -1 never, else
    # the condition so far), decided before any write, as the mass-centre
    # velocity may have to be measured first.
    swing0, ext0, swing1, ext1 = False, -1, False, -1
    if p0 == FLIGHT:
        if s[DONE_LEG] == 0.0:
            swing0, ext0 = True, int(has_down)
        elif alternate:  # lifted off while the lead is down: swing it forward now (short)
            swing0 = True
    if p1 == FLIGHT and s[DONE_LEG + 1] == 0.0 and (has_down or not alternate):
        # (alternate: the leading leg waits for the trailing foot)
        swing1, ext1 = True, int(has_down and t >= down + s[LAG])
    support, swinging = s[IN_SUPPORT] != 0.0, swing0 or swing1
    if swinging and (support or s[VEL_OK] == 0.0) and not fresh:
        return NEED_VEL + ACT
    if p0 != FLIGHT or p1 != FLIGHT:
        s0 = (p0 == COMPRESSION or p0 == THRUST) and s[GOAL] != short
        s1 = (p1 == COMPRESSION or p1 == THRUST) and s[GOAL + 1] != short
        if s0 or s1:
            posture(qpos, qvel, com, spring, stiff, damp, qfrc, s, s0, s1)
    if swinging:
        if support:
            cx, cy, vx, vy, vz = com[0, 0], com[0, 1], comvel[0, 0], comvel[0, 1], comvel[0, 2]
        else:
            cx, cy, _cz, vx, vy, vz = flight_com(t, com, comvel, s)
        R, land = trunk_matrix(qpos), s[LEG_LEN] + s[LANDING]
        for i in range(2):
            if not (swing0 if i == 0 else swing1):
                continue
            miss = aim_foot(i, qpos, spring, s, R, cx, cy, vx, vy, s[STANCE + i], land)
            ext = ext0 if i == 0 else ext1
            if ext < 0:
                continue
            if i == 0:
                extend, late = ext == 1 or vz < 0.0, vz < -s[LATE_VZ]
            else:
                extend = ext == 1
                late = extend and t > down + s[LATE_T]
            # Lengthen once the swing has (nearly) arrived, so the foot does
            # not land on the way; a late leg goes down regardless.
            s[GOAL + i] = s[LANDING] if extend and (miss < 0.1 or late) else short
    if not reset:
        slew(spring, s)
    return DONE_PRE if swinging and support else DONE


@kernel
def views(D, M, s):
    """MuJoCo's arrays as views of the data span D and the model span M:
    qpos, qvel, gxpos, com, comvel, qfrc, spring, stiff, damp (shapes as in
    the module docstring)."""
    nq, nv, ng, nb = int(s[NQ]), int(s[NV]), int(s[NGEOM]), int(s[NBODY])
    q, v, g, c, cv, f = int(s[QPOS]), int(s[QVEL]), int(s[GXPOS]), int(s[COM]), int(s[COMVEL]), int(s[QFRC])
    sp, st, dm = int(s[SPRING]), int(s[STIFF]), int(s[DAMP])
    return (D[q:q + nq], D[v:v + nv], D[g:g + 3 * ng].reshape((ng, 3)), D[c:c + 3 * nb].reshape((nb, 3)),
            D[cv:cv + 3 * nb].reshape((nb, 3)), D[f:f + nv], M[sp:sp + nq], M[st:st + int(s[NJNT])],
            M[dm:dm + nv])


@kernel
def run_tick(t, flags, D, M, s):
    """``run_body`` on the spans; flags = stage + ``FRESH`` (fresh) +
    ``RESET`` (reset): numba's dispatcher pays per argument on every call."""
    qpos, qvel, gxpos, com, comvel, qfrc, spring, stiff, damp = views(D, M, s)
    return run_body(t, (flags >> 2) & 1, flags & 3, flags >> 3, qpos, qvel, gxpos, com, comvel, spring, stiff,
                    damp, qfrc, s)


@kernel
def gallop_tick(t, flags, D, M, s):
    """``gallop_body`` on the spans (flags as for ``run_tick``)."""
    qpos, qvel, gxpos, com, comvel, qfrc, spring, stiff, damp = views(D, M, s)
    return gallop_body(t, (flags >> 2) & 1, flags & 3, flags >> 3, qpos, qvel, gxpos, com, comvel, spring, stiff,
                       damp, qfrc, s)
