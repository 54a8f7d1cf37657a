"""The small, separately testable pieces of Raibert & Hodgins' running control.

Notation follows RH91 (Raibert & Hodgins 1991, §4): x spring length, x_r its
rest length, ẋ forward speed, T_s stance duration, φ body pitch (or roll).
All functions are pure and accept numpy arrays where it makes sense.
"""
from __future__ import annotations

import numpy as np

G = 9.81  # m/s^2


def spring_force(x, x_dot, x_rest, k: float, b: float):
    """Actuator force of a spring-damper with adjustable rest length (RH91 Eq. 1),
    written as the force *pushing the leg longer* (positive when compressed):
    f = k (x_r − x) − b ẋ. x, x_rest in m (or rad), k in N/m (N m/rad), b in N s/m."""
    return k * (np.asarray(x_rest) - x) - b * np.asarray(x_dot)


def hop_height(strain_energy: float, elevation: float, kinetic_energy: float, mass: float) -> float:
    """Predicted apex altitude [m] of a hop (RH91 Eq. 2) for a massless leg:
    h = (PE_strain + PE_elevation + KE) / (M g), with the energies in J and
    PE_elevation = M g z measured from the ground."""
    return (strain_energy + mass * G * elevation + kinetic_energy) / (mass * G)


def neutral_point(speed, stance_time: float):
    """Foot displacement [m] ahead of the centre of mass that leaves forward
    speed unchanged over a stance of ``stance_time`` seconds: ẋ T_s / 2."""
    return np.asarray(speed) * stance_time / 2.0


def foot_placement(speed, desired_speed, stance_time: float, k_x: float):
    """Desired forward foot position relative to the hip projection (RH91 Eq. 3):
    x_fh,d = ẋ T_s / 2 + k_x (ẋ − ẋ_d). Works per axis (pass 2-vectors for
    x and y). Speeds in m/s, T_s in s, k_x in s; returns metres."""
    speed = np.asarray(speed, float)
    return neutral_point(speed, stance_time) + k_x * (speed - np.asarray(desired_speed, float))


def posture_torque(angle, rate, desired_angle, k_p: float, k_v: float):
    """Attitude servo torque applied to the body through the stance hip
    (RH91 Eq. 4): τ = −k_p (φ − φ_d) − k_v φ̇. Angles in rad, τ in N m acting
    on the body (the hip exerts its negative on the leg)."""
    return -k_p * (np.asarray(angle) - desired_angle) - k_v * np.asarray(rate)


def joint_servo(q, q_dot, q_desired, k_p, k_v):
    """Joint-level linear servo (RH91 Eq. 5): f = −k_p (θ − θ_d) − k_v θ̇;
    a spring-damper with a programmable rest value."""
    return -np.asarray(k_p) * (np.asarray(q) - q_desired) - np.asarray(k_v) * np.asarray(q_dot)


def paw_pad_force(z, k_gz: float, k_r: float):
    """Vertical force [N] of the kangaroo's nonlinear paw pad (RH91 Eq. 6)
    for penetration depth given by altitude z < 0 [m]: stiffening as the pad
    (thickness k_r [m]) compresses, f_z = k_gz (k_r / (k_r + z) − 1) — zero at
    touchdown and growing without bound as z → −k_r. Zero above the ground."""
    z = np.asarray(z, float)
    depth = np.clip(z, -0.999 * k_r, None)
    return np.where(z < 0.0, k_gz * (k_r / (k_r + depth) - 1.0), 0.0)


def required_friction(tangential, normal, min_normal: float = 1.0):
    """Friction coefficient |f_t| / f_n that would have prevented slipping,
    where the normal force exceeds ``min_normal`` [N] (NaN elsewhere)."""
    tangential = np.asarray(tangential, float)
    normal = np.asarray(normal, float)
    ft = np.linalg.norm(tangential, axis=-1) if tangential.ndim > normal.ndim else np.abs(tangential)
    return np.where(normal > min_normal, ft / np.maximum(normal, min_normal), np.nan)
