"""The result of a modal analysis, and the steps both formulations share:
the admissible null space of the constraints (Kry09 §3.1: N = null(G) by
SVD), the generalized eigenproblem of Eq. 3 (K̄ u = λ M̄ u), the split into
rigid and elastic modes, and Rayleigh damping.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import mujoco
import numpy as np
import scipy.linalg
import scipy.linalg.lapack

from gaitforge.errors import GaitforgeError, GaitforgeWarning
from gaitforge.modal import canonical
from gaitforge.modal.symmetry import mirror_of

if TYPE_CHECKING:
    from gaitforge.creatures.character import Character

RANK_RTOL = 1e-9    # singular values of G below this fraction of the largest count as zero
RIGID_RTOL = 1e-10  # K̄'s null space (rigid motions): pivots below this fraction of its largest entry
SINGULAR_RTOL = 1e-12  # Cholesky pivots of M̄ below this fraction of the largest: singular


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=float)
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class ModalBasis:
    """Natural vibration modes of a character about its rest pose.

    frequencies (k,) [Hz] ascending (negative: an unstable mode under gravity,
    −√|λ|/2π); eigenvalues (k,) λ = (2πf)² [rad²/s²]; shapes (nv, k) joint-space
    displacement per unit modal coordinate, mass-normalized (shapesᵀ M shapes =
    I, M = ``mj_fullM`` at rest; free root: MuJoCo's qvel convention, ball
    joints: 3 tangent entries); rigid_shapes (nv, n_rigid) the λ ≈ 0 modes;
    rest_qpos (nq,); constraints: every Constraint applied (the character's
    own, then the extra ones); damping: Rayleigh (α [1/s], β [s]);
    damped_frequencies (k,) [Hz] and decay_rates (k,) [1/s] (negative: growth).

    Beyond the agreed fields: method; mass_matrix / stiffness_matrix (nv, nv)
    the joint-space M and K analysed (K includes scaled springs and gravity);
    admissible (nv, n) a basis of the admissible joint motions (None: all);
    character: the Character analysed (set by ``compute_modes``).
    """

    character_name: str
    frequencies: np.ndarray
    eigenvalues: np.ndarray
    shapes: np.ndarray
    rigid_shapes: np.ndarray
    n_rigid: int
    rest_qpos: np.ndarray
    constraints: tuple
    gravity: bool
    stiffness_scale: float
    damping: tuple[float, float]
    damped_frequencies: np.ndarray
    decay_rates: np.ndarray
    method: str = "generalized"
    mass_matrix: np.ndarray | None = field(default=None, repr=False)
    stiffness_matrix: np.ndarray | None = field(default=None, repr=False)
    admissible: np.ndarray | None = field(default=None, repr=False)
    character: Character | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        k = len(self.frequencies)
        nv = self.shapes.shape[0]
        checks = [(self.eigenvalues.shape, (k,)), (self.shapes.shape, (nv, k)),
                  (self.rigid_shapes.shape, (nv, self.n_rigid)), (self.damped_frequencies.shape, (k,)),
                  (self.decay_rates.shape, (k,))]
        for got, want in checks:
            if got != want:
                raise ValueError(f"ModalBasis: inconsistent array shape {got}, expected {want}")

    @property
    def count(self) -> int:
        """Number of elastic modes kept."""
        return len(self.frequencies)

    def displace(self, coords: np.ndarray) -> np.ndarray:
        """The pose (nq,) reached from ``rest_qpos`` by the joint displacement
        Σ coords[i] shapes[:, i] (``mj_integratePos``; coords (k,) or fewer,
        leading modes). coords (T, k) gives poses (T, nq)."""
        if self.character is None:
            raise GaitforgeError("this ModalBasis has no character attached; build it with compute_modes")
        c = np.asarray(coords, float)
        frames = np.atleast_2d(c)
        if frames.shape[1] > self.count:
            raise GaitforgeError(f"got {frames.shape[1]} modal coordinates, the basis has {self.count} modes")
        dq = frames @ self.shapes[:, :frames.shape[1]].T
        out = np.tile(self.rest_qpos, (len(frames), 1))
        model = self.character.model
        for q, v in zip(out, dq):
            mujoco.mj_integratePos(model, q, v, 1.0)
        return out if c.ndim == 2 else out[0]


class Reduced(NamedTuple):
    """The reduced problem of Kry09 Eq. 3, ready to solve.

    Mbar, Kbar (n, n); to_joint (nv, n) maps reduced coordinates to joint
    displacements (None: identity); mass_matrix, stiffness_matrix (nv, nv) in
    joint space; admissible (nv, n) or None; constraints applied; data: MjData
    at rest (kinematics done) for diagnostics.
    """

    Mbar: np.ndarray
    Kbar: np.ndarray
    to_joint: np.ndarray | None
    mass_matrix: np.ndarray
    stiffness_matrix: np.ndarray
    admissible: np.ndarray | None
    constraints: tuple
    data: mujoco.MjData


def _rank(s: np.ndarray) -> int:
    return int(np.sum(s > RANK_RTOL * s[0])) if len(s) and s[0] > 0 else 0


def null_space(G_base: np.ndarray, G_extra: np.ndarray, *, dofs: int, name: str,
               base_names: tuple[str, ...], extra_names: tuple[str, ...]) -> np.ndarray | None:
    """Orthonormal basis (n, r) of null([G_base; G_extra]) by SVD with rank
    tolerance ``RANK_RTOL`` (None when there are no rows: every motion is
    admissible). ``dofs``: the joint-space DOF count before constraints, for
    messages. Warns when the extra rows are not independent of the others;
    raises :class:`GaitforgeError` when nothing is left."""
    G = np.vstack([G_base, G_extra])
    if G.shape[0] == 0:
        return None
    _, s, Vt = np.linalg.svd(G, full_matrices=True)
    rank = _rank(s)
    removed_all = dofs - (G.shape[1] - rank)
    if rank == G.shape[1]:
        names = ", ".join(base_names + extra_names)
        raise GaitforgeError(f"{name}: the constraints ({names}) remove all {dofs} degrees of freedom; "
                             "nothing is left to vibrate")
    if G_extra.shape[0]:
        base_rank = _rank(np.linalg.svd(G_base, compute_uv=False)) if G_base.shape[0] else 0
        added = rank - base_rank
        if added < G_extra.shape[0]:
            warnings.warn(f"{name}: the constraints ({', '.join(extra_names)}) are partly redundant: "
                          f"their {G_extra.shape[0]} rows remove only {added} degrees of freedom; "
                          f"{dofs - removed_all} of {dofs} remain", GaitforgeWarning, stacklevel=4)
    return Vt[rank:].T


def rayleigh(eigenvalues: np.ndarray, alpha: float, beta: float) -> tuple[np.ndarray, np.ndarray]:
    """Damped frequencies [Hz] and decay rates [1/s] of modes with eigenvalues
    λ (k,) under Rayleigh damping C = αM + βK.

    Each mode obeys ẍ + (α + βλ)ẋ + λx = 0, roots s = (−c ± √(c² − 4λ))/2 with
    c = α + βλ = 2ζω (ζ = α/2ω + βω/2). Underdamped: f_d = f√(1 − ζ²), decay ζω;
    overdamped: f_d = 0, decay = the slower root's rate; λ < 0: negative decay.
    """
    lam = np.asarray(eigenvalues, float)
    c = alpha + beta * lam
    root = np.sqrt((c * c - 4.0 * lam).astype(complex))
    slow = (-c + root) / 2.0  # the root with the larger real part
    return np.abs(root.imag) / 2.0 / (2.0 * np.pi), 0.0 - slow.real  # 0.0 −: no negative zeros


def _singular_mass(character, red: Reduced) -> GaitforgeError:
    """Name the bodies that move without inertia in the admissible motions."""
    w, V = np.linalg.eigh(red.Mbar)
    null = V[:, w <= SINGULAR_RTOL * max(w.max(), 1e-300)]
    psi = null if red.to_joint is None else red.to_joint @ null
    m, d = character.model, red.data
    jp, jr = np.zeros((3, m.nv)), np.zeros((3, m.nv))
    moved = []
    for b in range(1, m.nbody):
        mujoco.mj_jacBodyCom(m, d, jp, jr, b)
        if np.abs(jp @ psi).max(initial=0) + np.abs(jr @ psi).max(initial=0) > 1e-8:
            moved.append(f"{m.body(b).name} ({m.body_mass[b]:.3g} kg)")
    who = ", ".join(moved) if moved else "(none identified)"
    return GaitforgeError(f"{character.name}: the mass matrix is singular: these bodies move without mass "
                          f"or inertia: {who}; give them mass, or constrain or remove them")


def rigid_count(Kbar: np.ndarray, psd: bool) -> int:
    """How many rigid-body modes there are: the dimension of K̄'s null space.

    Counted on K̄ alone, not from λ: λ spans k/m over every body, so a very
    light body would push genuine slow modes below any threshold relative to
    the largest λ. Springs make K̄ positive semidefinite, where a pivoted
    Cholesky factorization (LAPACK dpstrf) reveals the rank cheaply; with
    gravity K̄ may be indefinite and its eigenvalues decide.
    """
    n = Kbar.shape[0]
    top = np.abs(Kbar).max(initial=0.0)
    if top == 0.0:
        return n
    if psd:
        _, _, rank, info = scipy.linalg.lapack.dpstrf(Kbar, tol=RIGID_RTOL * top, lower=1)
        if info >= 0:
            return n - int(rank)
    mu = np.abs(np.linalg.eigvalsh(Kbar))
    return int(np.sum(mu <= RIGID_RTOL * mu.max()))


def _canonical(character, red: Reduced, lam: np.ndarray, shapes: np.ndarray,
               rigid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues and joint-space shapes made canonical (:mod:`.canonical`):
    elastic clusters and the rigid block re-based by the mirror map where
    the creature has one, equal eigenvalues by a fixed rotation, signs by the
    largest entry. The mirror map is only built when a group needs it."""
    M, K = red.mass_matrix, red.stiffness_matrix
    elastic = np.flatnonzero(~rigid)
    lam_e = lam[elastic]
    clustered = any(len(g) > 1 for g in canonical.groups(lam_e, canonical.CLUSTER_RTOL))
    P = mirror_of(character) if clustered or rigid.sum() > 1 else None
    lam, shapes = lam.copy(), shapes.copy()
    lam[elastic], shapes[:, elastic] = canonical.canonicalize(lam_e, shapes[:, elastic], M, K, P)
    if rigid.any():
        shapes[:, rigid] = canonical.signs(canonical.canonical_group(shapes[:, rigid], M, P))
    return lam, shapes


def solve(character, red: Reduced, *, count: int | None, gravity: bool, stiffness_scale: float,
          rayleigh_ab: tuple[float, float], method: str) -> ModalBasis:
    """Solve K̄u = λM̄u, split rigid from elastic modes, map to joint space."""
    n = red.Mbar.shape[0]
    try:
        L = np.linalg.cholesky(red.Mbar)
        pivots = np.diagonal(L) ** 2
        if pivots.min() <= SINGULAR_RTOL * pivots.max():
            raise np.linalg.LinAlgError
    except np.linalg.LinAlgError:
        raise _singular_mass(character, red) from None
    lam, U = scipy.linalg.eigh(red.Kbar, red.Mbar, check_finite=False, driver="gvd")
    rigid = np.zeros(n, bool)
    rigid[np.argsort(np.abs(lam), kind="stable")[:rigid_count(red.Kbar, psd=not gravity)]] = True
    shapes = U if red.to_joint is None else red.to_joint @ U
    lam, shapes = _canonical(character, red, lam, shapes, rigid)
    elastic = np.flatnonzero(~rigid)
    if count is not None:
        elastic = elastic[:count]
    lam_e = lam[elastic]
    if np.any(lam_e < 0):
        warnings.warn(f"{character.name}: {int(np.sum(lam_e < 0))} mode(s) are unstable under gravity "
                      "(negative stiffness); their frequencies are reported negative", GaitforgeWarning,
                      stacklevel=3)
    freq = np.sign(lam_e) * np.sqrt(np.abs(lam_e)) / (2.0 * np.pi)
    fd, decay = rayleigh(lam_e, *rayleigh_ab)
    return ModalBasis(
        character_name=character.name, frequencies=_frozen(freq), eigenvalues=_frozen(lam_e),
        shapes=_frozen(shapes[:, elastic]), rigid_shapes=_frozen(shapes[:, rigid]),
        n_rigid=int(rigid.sum()), rest_qpos=_frozen(character.rest_qpos.copy()),
        constraints=red.constraints, gravity=bool(gravity), stiffness_scale=float(stiffness_scale),
        damping=(float(rayleigh_ab[0]), float(rayleigh_ab[1])), damped_frequencies=_frozen(fd),
        decay_rates=_frozen(decay), method=method, mass_matrix=_frozen(red.mass_matrix),
        stiffness_matrix=_frozen(red.stiffness_matrix),
        admissible=None if red.admissible is None else _frozen(red.admissible), character=character)
