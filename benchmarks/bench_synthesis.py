"""Speed of kinematic gait synthesis, grounding and stance pinning.

For one creature (default the dog) and a trot recipe fitted to its modes
(the same construction as ``tests/test_synthesis.dog_trot``), all measured
in the same run (median of many calls, ``time.perf_counter``):

- ``synthesize``: ``synthesize(..., grounded=False)`` of ``--seconds`` at
  ``--fps`` (Eq. 4, pose integration, soft limits), as frames per second;
- ``numpy baseline``: the bare arithmetic of the same size — the sines of
  (T, n_terms) modal coordinates and the product coords @ shapes.T (T, nv) —
  and the ratio synthesize / baseline;
- ``per-frame loop``: ``ModalBasis.displace`` of the same coordinates, one
  ``mj_integratePos`` per frame, for what vectorizing saves;
- ``kinematics``: the world frames of every body for every frame in one
  compiled pass (``Character.body_frames``, gaitforge.creatures.kinematics),
  against ``kinematics loop``: ``mj_kinematics`` frame by frame, copying
  ``xpos`` and ``xmat`` (what it replaced; checked equal to 1e-12);
- ``ground``: ``grounding.ground`` on the synthesized frames (forward
  kinematics of the feet and contact points);
- ``steady``: ``motion.steady.steady`` (trunk and head held, every frame's
  Gauss–Newton steps as arrays) on the synthesized frames, against
  ``steady loop``: the frame-by-frame MuJoCo reference of
  ``tests/test_steady_batch.py`` (what it replaced; checked equal to 1e-12);
- ``pin``: ``modal_ik.pin_stance_feet`` on the grounded clip (modal IK per
  stance frame), with the foot skate before and after.

    .venv/bin/python benchmarks/bench_synthesis.py [--creature dog] [--seconds 10] [--fps 60]

BLAS runs single-threaded unless OPENBLAS_NUM_THREADS is set (small
products; see bench_modal.py for why on this shared 2-core machine).
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

os.environ.setdefault("MUJOCO_GL", "egl")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

from gaitforge.creatures import registry  # noqa: E402
from gaitforge.creatures.character import Character  # noqa: E402
from gaitforge.modal import compute_modes  # noqa: E402
from gaitforge.modal.describe import describe_modes  # noqa: E402
from gaitforge.motion.clip import MotionClip  # noqa: E402
from gaitforge.motion.footfall import detect_footfalls  # noqa: E402
from gaitforge.motion.grounding import ground  # noqa: E402
from gaitforge.motion.metrics import classify_gait, gait_metrics  # noqa: E402
from gaitforge.motion.modal_ik import pin_stance_feet  # noqa: E402
from gaitforge.motion.recipe import GaitRecipe, GaitTerm  # noqa: E402
from gaitforge.motion.steady import steady  # noqa: E402
from gaitforge.motion.synthesis import modal_coordinates, synthesize  # noqa: E402
from timing import median_time  # noqa: E402  (benchmarks/timing.py)

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
from test_steady_batch import reference as steady_loop  # noqa: E402


def trot(character, basis, stride=0.06, lift=0.03, frequency=2.0) -> GaitRecipe:
    """Diagonal feet swinging ±stride and lifting ±lift a quarter cycle later,
    as the eigenvalue-weighted least-norm modal amplitudes (see the tests)."""
    desc = describe_modes(character, basis)
    D = np.array([[getattr(d.feet[f], a) for d in desc] for f in range(len(desc[0].feet))
                  for a in ("forward", "lateral", "vertical")])
    r = []
    for foot in desc[0].feet:
        s = 1.0 if foot.name in ("rear left", "front right") else -1.0
        r += [-1j * s * stride, 0.0, s * lift]
    w_inv = 1.0 / basis.eigenvalues
    a = w_inv[:, None] * D.T @ np.linalg.solve((D * w_inv) @ D.T, np.array(r))
    return GaitRecipe("trot", character.name, tuple(GaitTerm(i, float(abs(x)), float(np.angle(x) + np.pi / 2),
                                                             frequency) for i, x in enumerate(a) if abs(x) > 1e-6))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--creature", default="dog")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--fps", type=float, default=60.0)
    p.add_argument("--repeats", type=int, default=200)
    args = p.parse_args(argv)
    ch = Character.from_spec(registry.build(args.creature))
    basis = compute_modes(ch, count=20)
    recipe = trot(ch, basis)
    T = int(round(args.seconds * args.fps))
    times = np.arange(T) / args.fps
    phi = basis.shapes[:, [t.mode for t in recipe.terms]]
    amp = np.array([t.amplitude for t in recipe.terms])
    omega = 2 * np.pi * np.array([t.frequency for t in recipe.terms])
    phase = np.array([t.phase for t in recipe.terms])

    def baseline():
        (amp * np.sin(omega * times[:, None] + phase)) @ phi.T

    coords = np.zeros((T, basis.count))
    np.add.at(coords.T, [t.mode for t in recipe.terms], modal_coordinates(recipe, times).T)
    print(f"python {platform.python_version()}, numpy {np.__version__}, mujoco {mujoco.__version__}, "
          f"{os.cpu_count()} CPUs, OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}")
    print(f"{args.creature}: nq={ch.nq} nv={ch.nv}, {len(recipe.terms)} terms, {T} frames "
          f"({args.seconds:g} s at {args.fps:g} fps)")
    t_syn = median_time(lambda: synthesize(ch, basis, recipe, args.seconds, args.fps, grounded=False), args.repeats)
    t_base = median_time(baseline, args.repeats)
    t_loop = median_time(lambda: basis.displace(coords), max(args.repeats // 10, 5))
    raw = synthesize(ch, basis, recipe, args.seconds, args.fps, grounded=False)
    t_ground = median_time(lambda: ground(ch, raw.qpos, args.fps), max(args.repeats // 10, 5))
    d = mujoco.MjData(ch.model)
    xpos, xmat = np.empty((T, ch.model.nbody, 3)), np.empty((T, ch.model.nbody, 9))

    def kinematics_loop():
        for t, q in enumerate(raw.qpos):
            d.qpos[:] = q
            mujoco.mj_kinematics(ch.model, d)
            xpos[t], xmat[t] = d.xpos, d.xmat

    t_kin_loop = median_time(kinematics_loop, max(args.repeats // 10, 5))
    t_kin = median_time(lambda: ch.body_frames(raw.qpos), max(args.repeats // 10, 5))
    frames = ch.body_frames(raw.qpos)
    np.testing.assert_allclose(frames[0], xpos, atol=1e-12)
    np.testing.assert_allclose(frames[1].reshape(T, -1, 9), xmat, atol=1e-12)
    t_steady = median_time(lambda: steady(ch, raw.qpos), max(args.repeats // 20, 3))
    t_steady_loop = median_time(lambda: steady_loop(ch, raw.qpos), 3, warmup=1)
    np.testing.assert_allclose(steady(ch, raw.qpos), steady_loop(ch, raw.qpos), atol=1e-12)
    clip = MotionClip(args.fps, ground(ch, raw.qpos, args.fps).qpos, ch.name)
    t_pin = median_time(lambda: pin_stance_feet(ch, basis, clip), 3, warmup=1)
    pinned = pin_stance_feet(ch, basis, clip)
    np.testing.assert_allclose(basis.displace(coords), raw.qpos, atol=1e-12)  # the same frames
    m0 = gait_metrics(ch, clip, detect_footfalls(ch, clip))
    m1 = gait_metrics(ch, pinned, detect_footfalls(ch, pinned))
    print(f"{'step':16s} {'ms':>9s} {'frames/s':>12s} {'vs baseline':>12s}")
    for name, t in (("synthesize", t_syn), ("numpy baseline", t_base), ("per-frame loop", t_loop),
                    ("kinematics loop", t_kin_loop), ("kinematics", t_kin), ("steady loop", t_steady_loop),
                    ("steady", t_steady), ("ground", t_ground), ("pin", t_pin)):
        print(f"{name:16s} {1e3 * t:9.3f} {T / t:12,.0f} {t / t_base:12.2f}")
    print(f"kinematics: {t_kin_loop / t_kin:.1f}x faster than the mj_kinematics loop")
    print(f"steady: {t_steady_loop / t_steady:.1f}x faster than the frame-by-frame MuJoCo reference")
    print(f"gait {classify_gait(m0)} at {m0.speed:.3f} m/s; foot skate grounded {100 * m0.foot_skate:.1f} %, "
          f"pinned {100 * m1.foot_skate:.2f} % ({classify_gait(m1)} at {m1.speed:.3f} m/s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
