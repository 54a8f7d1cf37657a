"""The creature in the page's 3D scene: batched meshes per shape, the
ground grid, and one atomic update per frame placing every geom for the
session's pose (the follow camera slides the world under it)."""
from __future__ import annotations

import threading

import numpy as np

from gaitforge.studio.page_base import PageBase
from gaitforge.studio.scene import Poser, batches


class SceneView(PageBase):
    """Scene building and pose pushing of a page (module docstring)."""

    def _build_scene(self) -> None:
        with getattr(self, "_push_lock", threading.Lock()):
            self._build_scene_locked()

    def _build_scene_locked(self) -> None:
        scene = self.client.scene
        for h in getattr(self, "mesh_handles", []):
            h.remove()
        self._shown_clip = None
        model = self.session.character.model
        self.poser = Poser(model)
        self.batches = batches(model)
        pos, quat = self.poser.place(self.session.pose())
        self.mesh_handles = [scene.add_batched_meshes_simple(
            f"/world/creature/shape{k}", b.vertices, b.faces, batched_wxyzs=quat[b.geoms],
            batched_positions=pos[b.geoms], batched_colors=b.color, lod="off", cast_shadow=self._shadows(),
            receive_shadow=self._shadows())
            for k, b in enumerate(self.batches)]
        if not hasattr(self, "grid"):
            # Following moves the world frame (creature and ground) under a camera the user keeps:
            # setting the camera every frame races the page's own camera updates.
            self.world = scene.add_frame("/world", show_axes=False)
            self.grid = scene.add_grid("/world/ground", 200.0, 200.0, cell_size=0.25, section_size=1.0,
                                       shadow_opacity=0.3)
            self.client.camera.position = (1.1, -1.6, 0.8)   # position first: it drags look_at along
            self.client.camera.look_at = (0.0, 0.0, 0.35)

    def _shadows(self) -> bool:
        return bool(self.shadows.value) if hasattr(self, "shadows") else True

    def push_pose(self) -> np.ndarray:
        """Place every geom for the session's pose in one atomic update; returns the pose."""
        with self._push_lock:
            return self._push_pose()

    def _push_pose(self) -> np.ndarray:
        q = self.session.pose()
        pos, quat = self.poser.place(q)
        root = self.poser.root()
        with self.client.atomic():
            for h, b in zip(self.mesh_handles, self.batches):
                h.batched_positions = pos[b.geoms]
                h.batched_wxyzs = quat[b.geoms]
            clip = self.session.clip
            if clip is not self._shown_clip:  # in the same update as the first pose of the new clip
                self._shown_clip = clip
                self.edits += 1
                self.shown.content = f"edit {self.edits}"
            follow = np.array([-root[0], -root[1], 0.0]) if self.follow.value else np.zeros(3)
            if not self.dragging and not np.allclose(follow, self.world.position, atol=1e-4):
                self.world.position = follow
            sim = self.session.sim
            if self.drag is not None and sim is not None and not self.dragging:
                self.drag.position = sim.body_position(self.drag_id)
        self.pose_version += 1
        self.last_pose = q
        return q

