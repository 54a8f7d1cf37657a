"""Physically simulated modal control (Kry et al. 2009 §4.1; Kry 2012 §4.3).

Public surface: :class:`ModalController` / :func:`modal_controller` (the
spring reference follows a sum of modal vibrations), :func:`simulate_modal`
→ :class:`ModalRollout` (clip, contacts, energy traces, and why it stopped
early: a ``sim.events.RunEvent``).
"""
from gaitforge.control.modal.controller import ModalController, ModalPlan, modal_controller
from gaitforge.control.modal.rollout import ModalRollout, body_length, run_recipe, simulate_modal

__all__ = ["ModalController", "ModalPlan", "ModalRollout", "body_length", "modal_controller",
           "run_recipe", "simulate_modal"]
