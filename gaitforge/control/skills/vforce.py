"""Virtual forces through the Jacobian transpose (Wang 2011 §3.1.3).

A virtual force F [N] (world axes) on a point of a limb, with the limb's
chain of joints between a base and the point, becomes joint torques
τ = Jᵀ F over that chain's DOFs, where J (3, nv) is MuJoCo's world-frame
point Jacobian restricted to the chain. Two uses:

- the limb pushes on its leg frame from a planted foot (base: the foot):
  the frame feels +F when the joints apply τ = −J_footᵀ F;
- gravity compensation of a swinging limb (base: the leg frame): each link's
  weight is cancelled by τ = Σ J_comᵀ (m g ẑ).
"""
from __future__ import annotations

import mujoco
import numpy as np

from gaitforge.control.skills.limbs import Limb


class VirtualForces:
    """Jacobian-transpose torques for the limbs of one model (scratch
    Jacobians allocated once)."""

    def __init__(self, model: mujoco.MjModel, limbs: dict[str, Limb]):
        self.model = model
        self.jacp = np.zeros((3, model.nv))
        self.cols = {n: _limb_dofs(model, limb) for n, limb in limbs.items()}
        self.weights = {n: [(b, float(model.body_mass[b]) * -float(model.opt.gravity[2])) for b in limb.bodies]
                        for n, limb in limbs.items()}

    def at_site(self, data: mujoco.MjData, limb: Limb, force: np.ndarray, out: np.ndarray) -> None:
        """Add to ``out`` (nv,) the torques with which the limb's joints push
        its leg frame with ``force`` (3,) [N, world] from the planted foot:
        −J_siteᵀ F over the limb's DOFs."""
        mujoco.mj_jacSite(self.model, data, self.jacp, None, limb.site)
        cols = self.cols[limb.name]
        out[cols] -= self.jacp[:, cols].T @ force

    def gravity(self, data: mujoco.MjData, limb: Limb, out: np.ndarray, scale: float = 1.0) -> None:
        """Add to ``out`` (nv,) the torques that hold the limb's links up
        against gravity (× ``scale``), over the limb's DOFs."""
        cols = self.cols[limb.name]
        for b, w in self.weights[limb.name]:
            mujoco.mj_jacBodyCom(self.model, data, self.jacp, None, b)
            out[cols] += (scale * w) * self.jacp[2, cols]


def _limb_dofs(model: mujoco.MjModel, limb: Limb) -> np.ndarray:
    """The DOF indices of a limb's joints (ball: 3, hinge: 1), in order."""
    cols: list[int] = []
    for b in limb.bodies:
        j = int(model.body_jntadr[b])
        n = 3 if int(model.jnt_type[j]) == int(mujoco.mjtJoint.mjJNT_BALL) else 1
        cols.extend(range(int(model.jnt_dofadr[j]), int(model.jnt_dofadr[j]) + n))
    return np.array(cols)
