"""Where a simulated run went: the root body's horizontal track, its
heading, and how far it kept from a path it was asked to follow.

A turning or path-following run is judged by its yaw rate and path error,
not by its net displacement (which a circle makes small whatever the
speed). Everything is measured over a window that starts after the run
settled.
"""
from __future__ import annotations

from typing import NamedTuple

import mujoco
import numpy as np


class Track(NamedTuple):
    """The root body over [settle, end] of a clip.

    path_speed [m/s]: length of the horizontal track over the window's
    duration; net_speed [m/s]: straight-line displacement over the same;
    yaw_rate [rad/s]: mean rate of the root's heading (its +x axis about
    +z, unwrapped; positive to the left); path_error_mean, path_error_max
    [m]: distance from the polyline followed (None without one)."""

    path_speed: float
    net_speed: float
    yaw_rate: float
    path_error_mean: float | None = None
    path_error_max: float | None = None


def root_track(character, qpos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal position (T, 2) [m] and unwrapped heading (T,) [rad] of
    the character's root body (the first child of the world) for the
    frames ``qpos`` (T, nq)."""
    m = character.model
    d = mujoco.MjData(m)
    root = int(np.flatnonzero(m.body_parentid[1:] == 0)[0]) + 1
    xy = np.empty((len(qpos), 2))
    heading = np.empty(len(qpos))
    for i, q in enumerate(qpos):
        d.qpos[:] = q
        mujoco.mj_kinematics(m, d)
        xy[i] = d.xpos[root, :2]
        x_axis = d.xmat[root].reshape(3, 3)[:, 0]
        heading[i] = np.arctan2(x_axis[1], x_axis[0])
    return xy, np.unwrap(heading)


def com_track(character, qpos: np.ndarray) -> np.ndarray:
    """Horizontal centre of mass (T, 2) [m] of the character (its root
    body's subtree) for the frames ``qpos`` (T, nq)."""
    m = character.model
    d = mujoco.MjData(m)
    root = int(np.flatnonzero(m.body_parentid[1:] == 0)[0]) + 1
    xy = np.empty((len(qpos), 2))
    for i, q in enumerate(qpos):
        d.qpos[:] = q
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        xy[i] = d.subtree_com[root, :2]
    return xy


def distance_to_polyline(points: np.ndarray, waypoints: np.ndarray, loop: bool = False) -> np.ndarray:
    """Distance (T,) [m] from each point (T, 2) to the polyline through
    ``waypoints`` (N, 2), closed when ``loop``."""
    w = np.asarray(waypoints, float)
    a = w if loop else w[:-1]
    b = np.vstack([w[1:], w[:1]]) if loop else w[1:]
    ab = b - a                                                   # (S, 2)
    ap = points[:, None, :] - a[None, :, :]                      # (T, S, 2)
    t = np.clip(np.einsum("tsk,sk->ts", ap, ab) / np.einsum("sk,sk->s", ab, ab), 0.0, 1.0)
    nearest = a[None] + t[..., None] * ab[None]
    return np.linalg.norm(points[:, None, :] - nearest, axis=2).min(axis=1)


def measure_track(character, clip, settle: float, waypoints: np.ndarray | None = None,
                  loop: bool = False) -> Track:
    """:class:`Track` of ``clip`` (a ``MotionClip`` of ``character``) from
    ``settle`` [s] on; ``waypoints`` (N, 2) [m] the path it was asked to
    follow, if any."""
    start = min(int(round(settle * clip.fps)), clip.n_frames - 2)
    xy, heading = root_track(character, clip.qpos[start:])
    duration = (len(xy) - 1) / clip.fps
    steps = np.linalg.norm(np.diff(xy, axis=0), axis=1)
    error = None if waypoints is None else distance_to_polyline(xy, waypoints, loop)
    return Track(float(steps.sum() / duration), float(np.linalg.norm(xy[-1] - xy[0]) / duration),
                 float((heading[-1] - heading[0]) / duration),
                 None if error is None else float(error.mean()), None if error is None else float(error.max()))
