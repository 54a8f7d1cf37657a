"""Mode shapes fixed up to what the eigenproblem determines.

An eigensolver returns each mode up to its sign, and a group of equal
frequencies up to any rotation inside the group; both change with the last
bits of the arithmetic (another BLAS kernel, another CPU), and everything
built on the shapes — gait heuristics, recipes naming mode indices — would
change with them. :func:`canonicalize` removes that freedom with rules that
only depend on the analysed creature:

1. **Clusters.** Consecutive eigenvalues whose relative spread stays within
   :data:`CLUSTER_RTOL` form a cluster. Where the creature is a mirror image of
   itself and the cluster's span maps onto itself under the mirror map P,
   the cluster is re-based on the eigenvectors of P restricted to it:
   symmetric and antisymmetric combinations. For exactly degenerate modes
   this is the choice the eigenproblem leaves open; for nearly equal ones
   (closer than 0.1 %) the physical eigenvectors of a mirror-symmetric
   creature already are these, and a perturbation that breaks the symmetry
   by ε would otherwise turn them by ε / gap.
2. **Degenerate groups.** Whatever is still a group of equal eigenvalues
   (relative spread within :data:`DEGENERATE_RTOL`) of one mirror class — the
   rigid motions, the repeated modes of a ring — is rotated so that its
   projections onto a fixed, seeded set of directions W are lower-triangular
   (a QR step): any rotation of the input gives the same output.
3. **Signs.** Each shape is flipped so that its largest entry is positive;
   entries within :data:`SIGN_RTOL` of the largest magnitude tie (a symmetric
   mode has equal left and right entries) and the lowest DOF index wins.

All shapes stay mass-orthonormal (the rotations are orthogonal in the M
inner product); eigenvalues inside a re-based cluster become the Rayleigh
quotients of the new shapes.
"""
from __future__ import annotations

import numpy as np

CLUSTER_RTOL = 1e-3       # relative spread of eigenvalues re-based by the mirror
DEGENERATE_RTOL = 1e-8    # relative spread of eigenvalues treated as equal
SIGN_RTOL = 1e-6          # entries this close to the largest magnitude tie for the sign
MIRROR_MIN = 0.999        # |eigenvalue| of P on the cluster: its span maps onto itself
_W_SEED = 20090101        # the fixed directions W of rule 2


def groups(lam: np.ndarray, rtol: float) -> list[np.ndarray]:
    """Runs of consecutive (ascending) eigenvalues whose relative spread,
    ``(last − first) / max(|first|, |last|)``, stays within ``rtol``; zeros
    group with zeros. Each run is an index array; singletons included."""
    out, start = [], 0
    for i in range(1, len(lam) + 1):
        if i == len(lam) or not _close(lam[start], lam[i], rtol):
            out.append(np.arange(start, i))
            start = i
    return out


def _close(a: float, b: float, rtol: float) -> bool:
    scale = max(abs(a), abs(b))
    return abs(b - a) <= rtol * scale if scale > 0 else True


def signs(U: np.ndarray) -> np.ndarray:
    """``U`` (n, k) with each column flipped so that its largest-magnitude
    entry is positive; entries within SIGN_RTOL of the largest tie and the
    lowest index wins."""
    if U.size == 0:
        return U
    mag = np.abs(U)
    lead = np.argmax(mag >= (1.0 - SIGN_RTOL) * mag.max(axis=0), axis=0)
    return U * np.where(U[lead, np.arange(U.shape[1])] < 0, -1.0, 1.0)


def _mirror_split(Q: np.ndarray, M: np.ndarray, K: np.ndarray, P: np.ndarray):
    """Q (n, d) M-orthonormal re-based on P's eigenvectors inside span(Q),
    then K diagonalized inside each mirror class (Rayleigh–Ritz): (new Q,
    parity (d,) ±1, Rayleigh quotients (d,)) in ascending order of the
    quotients, or None when span(Q) is not mirror-invariant."""
    C = Q.T @ M @ (P @ Q)
    w, V = np.linalg.eigh(0.5 * (C + C.T))
    if np.any(np.abs(w) < MIRROR_MIN):
        return None
    cols, parity, rq = [], [], []
    for cls in (1.0, -1.0):
        S = Q @ V[:, np.sign(w) == cls]
        if S.shape[1]:
            mu, Z = np.linalg.eigh(S.T @ K @ S)
            cols.append(S @ Z)
            parity += [cls] * len(mu)
            rq += list(mu)
    order = np.argsort(rq, kind="stable")
    return np.hstack(cols)[:, order], np.array(parity)[order], np.array(rq)[order]


def _fixed_rotation(Q: np.ndarray, M: np.ndarray) -> np.ndarray:
    """Q (n, d) rotated so that Wᵀ M Q is lower-triangular with a positive
    diagonal for fixed, seeded directions W (n, d): the same for every
    M-orthonormal basis of span(Q)."""
    W = np.random.default_rng(_W_SEED).standard_normal((Q.shape[0], Q.shape[1]))
    C = W.T @ M @ Q                       # (d, d); Q R gives C R
    R, T = np.linalg.qr(C.T)              # Cᵀ = R T, so C R = Tᵀ: lower-triangular
    return Q @ (R * np.where(np.diag(T) < 0, -1.0, 1.0))


def _equal_groups(Q: np.ndarray, M: np.ndarray, parity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A group of equal eigenvalues: symmetric shapes first, then mixed,
    then antisymmetric, each class given the fixed rotation."""
    order = np.argsort(-parity, kind="stable")
    Q, parity = Q[:, order], parity[order]
    for cls in (1.0, 0.0, -1.0):
        part = np.flatnonzero(parity == cls)
        if len(part) > 1:
            Q[:, part] = _fixed_rotation(Q[:, part], M)
    return Q, parity


def canonical_group(Q: np.ndarray, M: np.ndarray, mirror: np.ndarray | None) -> np.ndarray:
    """A canonical M-orthonormal basis (n, d) of span(Q) for a group of equal
    eigenvalues (e.g. the rigid motions): rules 1 and 2 of the module
    docstring, without signs."""
    split = None if mirror is None or Q.shape[1] < 2 else _mirror_split(Q, M, np.zeros_like(M), mirror)
    Q, parity = split[:2] if split is not None else (Q, np.zeros(Q.shape[1]))
    return _equal_groups(Q, M, parity)[0]


def canonicalize(lam: np.ndarray, U: np.ndarray, M: np.ndarray, K: np.ndarray,
                 mirror: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Canonical eigenvalues (k,) and shapes (n, k) for ascending eigenvalues
    ``lam`` (k,) and M-orthonormal shapes ``U`` (n, k) of K u = λ M u (M, K:
    (n, n) in the coordinates of U). ``mirror``: P (n, n) mapping a vector to
    its mirror image, or None (no symmetry used). See the module docstring."""
    lam, U = np.array(lam, float), np.array(U, float)
    for g in groups(lam, CLUSTER_RTOL):
        if len(g) < 2:
            continue
        Q, rq, parity = U[:, g], lam[g], np.zeros(len(g))
        split = None if mirror is None else _mirror_split(Q, M, K, mirror)
        if split is not None:
            Q, parity, rq = split
        else:  # Rayleigh–Ritz: eigenvectors again for any rotation of the input
            rq, Z = np.linalg.eigh(Q.T @ K @ Q)
            Q = Q @ Z
        for d in groups(rq, DEGENERATE_RTOL):
            rq[d] = float(np.mean(rq[d]))
            if len(d) > 1:
                Q[:, d], parity[d] = _equal_groups(Q[:, d], M, parity[d])
        U[:, g], lam[g] = Q, rq
    return lam, signs(U)
