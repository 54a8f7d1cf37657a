import os
from pathlib import Path

import pytest

# Offscreen rendering without a display: must be set before mujoco is imported.
os.environ.setdefault("MUJOCO_GL", "egl")

# The test modules that take longest (summed --durations of `make test`'s
# main run on 2 cores), longest single test first. They run first, so that
# the two xdist workers (`make test` runs `-n 2 --dist worksteal`) end on
# short tests and finish together instead of one idling while the other
# runs a minute-long simulation started last. Only the order changes: every
# test still runs, and a module's tests stay together and in their order
# (its module-scoped fixtures are built once per worker, as before).
LONGEST_FIRST = (
    "test_studio_browser.py",  # one browser session of ~60 s
    "test_modal_optimize.py",
    "test_modal_dog_gait.py",
    "test_contact_bases.py",
    "test_balance.py",
    "test_skills_gaits.py",
    "test_api.py",
    "test_cli_motion.py",
    "test_cli_modalsim.py",
    "test_readme.py",
    "test_gait_invariance.py",
    "test_doc_figures.py",
    "test_raibert_ranges.py",
    "test_cli_input.py",
    "test_modal_control.py",
    "test_speed.py",
    "test_push.py",
    "test_examples.py",
)


@pytest.hookimpl(trylast=True)  # after pytest's own grouping by fixture, which this keeps
def pytest_collection_modifyitems(config, items):
    """Run the modules of LONGEST_FIRST first, in that order; the others
    keep pytest's order after them (a stable sort by module only)."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(Path(item.path).name, len(rank)))
