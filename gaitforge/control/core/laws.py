"""The control laws of Raibert & Hodgins 1991 (RH91 §4, Eqs. 1-6) as
compiled scalar functions. Every controller's tick calls these, and
``raibert.toolbox`` re-exports them (over arrays too), so its tests test the
code that runs.

Notation: x spring length, x_r its rest length, ẋ speed, T_s stance
duration, φ body attitude angle, θ joint angle; SI units throughout.
"""
from __future__ import annotations

from gaitforge.constants import GRAVITY as G
from gaitforge.jit import kernel


@kernel
def spring_force(x, x_dot, x_rest, k, b):
    """RH91 Eq. 1: force [N] (or torque [N m]) of a spring-damper with an
    adjustable rest length, positive pushing the leg longer:
    f = k (x_r − x) − b ẋ; k [N/m], b [N s/m] (or per rad)."""
    return k * (x_rest - x) - b * x_dot


@kernel
def hop_height(strain_energy, elevation, kinetic_energy, mass):
    """RH91 Eq. 2: apex altitude [m] of a hop for a massless leg,
    h = (PE_strain + M g z + KE) / (M g); energies [J], z [m], M [kg]."""
    return (strain_energy + mass * G * elevation + kinetic_energy) / (mass * G)


@kernel
def neutral_point(speed, stance_time):
    """The neutral foot point [m] ahead of the mass centre, ẋ T_s / 2: forward
    speed is unchanged over a symmetric stance of ``stance_time`` [s]."""
    return speed * stance_time / 2.0


@kernel
def foot_point(origin, speed, desired_speed, stance_time, k_x, trim=0.0):
    """RH91 Eq. 3 as a point [m]: ``origin`` (e.g. the mass centre's
    coordinate) + ẋ T_s / 2 + k_x (ẋ − ẋ_d − trim), summed in that order;
    speeds [m/s], T_s and k_x [s]; ``trim`` [m/s]: a learned correction
    added to the desired speed. Per axis."""
    return origin + speed * stance_time / 2.0 + k_x * (speed - desired_speed - trim)


@kernel
def foot_placement(speed, desired_speed, stance_time, k_x, trim=0.0):
    """RH91 Eq. 3: foot position [m] relative to the hip projection,
    x_f = ẋ T_s / 2 + k_x (ẋ − ẋ_d − trim) (``foot_point`` from 0)."""
    return foot_point(0.0, speed, desired_speed, stance_time, k_x, trim)


@kernel
def posture_torque(angle, rate, desired_angle, k_p, k_v):
    """RH91 Eq. 4: attitude servo torque [N m] on the body through the stance
    hip, τ = −k_p (φ − φ_d) − k_v φ̇; angles [rad], rates [rad/s]."""
    return -k_p * (angle - desired_angle) - k_v * rate


@kernel
def joint_servo(q, q_dot, q_desired, k_p, k_v):
    """RH91 Eq. 5: linear joint servo, a spring-damper with a programmable
    rest value, f = −k_p (θ − θ_d) − k_v θ̇."""
    return -k_p * (q - q_desired) - k_v * q_dot


@kernel
def paw_pad_force(z, k_gz, k_r):
    """RH91 Eq. 6: vertical force [N] of the nonlinear paw pad at altitude z
    [m] (penetration for z < 0), f_z = k_gz (k_r / (k_r + z) − 1): zero at
    touchdown, stiffening as the pad (thickness k_r [m]) compresses (the
    depth is clipped at 0.999 k_r); zero above the ground."""
    if z >= 0.0:
        return 0.0
    depth = z if z > -0.999 * k_r else -0.999 * k_r
    return k_gz * (k_r / (k_r + depth) - 1.0)
