"""Modal analysis of characters: natural vibration modes about the rest pose
(Kry et al. 2009 §3.1 and Appendix A; Kry 2012 §3), with bilateral
constraints, optional gravity and Rayleigh damping.

Public surface: :func:`compute_modes` → :class:`ModalBasis`;
:func:`parse_constraint` for the command-line constraint form;
:func:`mirror_matrix` for left/right symmetry of joint-space vectors.

Notation (as in the papers): M mass matrix, K stiffness, G constraint
Jacobian, N = null(G) admissible directions, R body twists → joint rates,
M̄ = NᵀMN and K̄ = NᵀKN (joint space) or NᵀRᵀKRN (full coordinates),
λ = (2πf)² eigenvalues, α, β Rayleigh coefficients (C = αM + βK).
"""
from __future__ import annotations

import math
import numbers

from gaitforge.creatures import spec_checks
from gaitforge.errors import GaitforgeError
from gaitforge.modal import fullcoords, generalized
from gaitforge.modal.basis import ModalBasis, rayleigh, solve as _solve
from gaitforge.modal.parse import parse_constraint, resolve_body, resolve_constraints
from gaitforge.modal.symmetry import mirror_matrix

METHODS = ("generalized", "full")
# A dense generalized eigenproblem of this size takes tens of seconds on two cores; creature files
# and models are held to it when they are read (creatures.spec_checks).
MAX_DOFS = spec_checks.MAX_DOFS

__all__ = ["METHODS", "ModalBasis", "compute_modes", "mirror_matrix", "parse_constraint", "rayleigh",
           "resolve_body"]


def _check_number(name: str, value, *, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) \
            or value < 0 or (positive and value == 0):
        need = "a positive" if positive else "a non-negative"
        raise GaitforgeError(f"{name} must be {need} finite number, got {value!r}")
    return float(value)


def compute_modes(character, *, count: int | None = None, constraints=(), gravity: bool = False,
                  stiffness_scale: float = 1.0, rayleigh: tuple[float, float] = (0.0, 0.0),
                  method: str = "generalized") -> ModalBasis:
    """Natural vibration modes of ``character`` about its rest pose.

    count: keep the ``count`` lowest elastic modes (None: all).
    constraints: extra bilateral constraints (``Constraint`` objects or strings
    such as ``"pin:left_foot"``, see :func:`parse_constraint`), applied on top
    of the character's own (e.g. the loop creature's closure).
    gravity: add the stiffness of gravity about the rest pose (``gravity.py``).
    stiffness_scale: factor on every spring (joint, coupling, closure).
    rayleigh: (α [1/s], β [s]) of the damping C = αM + βK, which keeps the
    shapes and sets ``damped_frequencies`` and ``decay_rates``.
    method: ``"generalized"`` (MuJoCo joint space, fast) or ``"full"`` (the
    full-coordinate formulation of Kry09 Appendix A, for validation).
    """
    if method not in METHODS:
        raise GaitforgeError(f"unknown modal method {method!r} (choose from {', '.join(METHODS)})")
    if count is not None and (isinstance(count, bool) or not isinstance(count, numbers.Integral) or count < 1):
        raise GaitforgeError(f"count must be a positive integer or None, got {count!r}")
    scale = _check_number("stiffness_scale", stiffness_scale, positive=True)
    if not isinstance(rayleigh, (tuple, list)) or len(rayleigh) != 2:
        raise GaitforgeError(f"rayleigh must be a pair (alpha, beta), got {rayleigh!r}")
    ab = (_check_number("rayleigh alpha", rayleigh[0]), _check_number("rayleigh beta", rayleigh[1]))
    if character.nv > MAX_DOFS:
        raise GaitforgeError(f"{character.name} has {character.nv} degrees of freedom; the modal analysis is "
                             f"limited to {MAX_DOFS} (a dense eigensolver: time grows with the cube of the DOFs)")
    if character.nv == 0:
        raise GaitforgeError(f"{character.name} has no joints: nothing can move, so there are no vibration modes")
    extra = resolve_constraints(character, constraints)
    build = generalized.assemble if method == "generalized" else fullcoords.assemble
    reduced = build(character, extra, gravity=bool(gravity), stiffness_scale=scale)
    basis = _solve(character, reduced, count=None if count is None else int(count), gravity=bool(gravity),
                   stiffness_scale=scale, rayleigh_ab=ab, method=method)
    _check_frequencies(character, basis)
    return basis


MAX_FREQUENCY = 1e6  # [Hz]: beyond it the springs or masses are out of any physical range


def _check_frequencies(character, basis: ModalBasis) -> None:
    """A basis whose frequencies are not finite numbers below MAX_FREQUENCY
    comes from springs or masses no gait can use: an error, not a table of
    300-digit numbers."""
    import numpy as np

    f = np.asarray(basis.frequencies, dtype=float)
    for what, values in (("frequency", f), ("damped frequency", np.asarray(basis.damped_frequencies, float))):
        bad = np.flatnonzero(~np.isfinite(values) | (np.abs(values) > MAX_FREQUENCY))
        if bad.size:
            i = int(bad[0])
            raise GaitforgeError(f"{character.name}: mode {i}'s {what} is {values[i]:.3g} Hz, not a finite number up "
                                 f"to {MAX_FREQUENCY:g} Hz: the springs or masses are out of range")
