"""The Ray backend of the batch evaluator against a local Ray started here:
results equal the local evaluation, candidate for candidate."""
import pytest

from gaitforge.control.modal.presets import hand_set
from gaitforge.optimize import ModalProblem
from gaitforge.sim.batch import candidate_seeds, evaluate_batch

ray = pytest.importorskip("ray")


@pytest.mark.slow
def test_ray_gives_the_local_results():
    p = ModalProblem("loop", seconds=0.4)
    x0 = p.vector(hand_set("loop"))
    cands = [x0, x0 * [1.5, 1.0, 1.0, 1.0], x0 * [1.0, 0.5, -1.0, 1.2], x0 * [2.0, 2.0, 0.5, 0.8]]
    seeds = candidate_seeds(9, 0, len(cands))
    local = evaluate_batch(p, cands, seeds, workers=1)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        done = []
        remote = evaluate_batch(p, cands, seeds, ray="auto", progress=done.append)
    finally:
        ray.shutdown()
    assert remote == local
    assert done == [1, 2, 3, 4]
