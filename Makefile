# Entry points: `make demo` (set up, then run the main job), `make test` (set up,
# then run the whole suite once) and `make test-cpus` (the CPU-sensitive tests
# again under other CPU settings; CI runs it after `make test`). All need only python3.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
OUT ?= demo-output
export MUJOCO_GL ?= egl

VALIDATOR := tools/node_modules/gltf-validator

.PHONY: demo test test-cpus setup clean docs

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/gaitforge demo --out-dir $(OUT)

# The Khronos glTF validator (npm) checks exported .glb files in the tests.
$(VALIDATOR):
	@command -v npm >/dev/null || { echo "npm not found: install Node.js to run the glTF validator tests"; exit 1; }
	npm install --prefix tools --no-save --no-package-lock --silent gltf-validator@2.0.0-dev.3.10

# Debian's chromium, driven by Playwright in the studio's browser tests (Playwright's own
# browser download does not work everywhere). Installed when missing and apt-get can (root);
# otherwise the browser tests are skipped, and this says why.
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	@if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		echo "== installing Debian's chromium for the studio's browser tests"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
		|| echo "could not install chromium (apt-get failed): the studio's browser tests will be skipped"; \
	else echo "chromium not found and cannot be installed here (needs root and apt-get):" \
		"the studio's browser tests will be skipped"; fi

# Modal analysis and gait suggestion must not depend on the BLAS kernel: the
# tests that touch them run again under other OpenBLAS kernels (x86-64 only;
# SkylakeX needs AVX-512). Last-bit differences between kernels once changed
# the suggested gaits.
KERNEL_TESTS := tests/test_modal_core.py tests/test_modal_canonical.py tests/test_modal_describe.py \
	tests/test_modal_constraints.py tests/test_heuristics.py tests/test_presets.py tests/test_imported_gaits.py \
	tests/test_gait_invariance.py tests/test_cli_motion.py \
	tests/test_flight.py tests/test_ramp.py tests/test_speed.py tests/test_speed_fast_paths.py tests/test_modal_ik.py \
	tests/test_natural_arms.py tests/test_recipe_replay.py
# The kernel OpenBLAS picks by itself here (tests/blas_core.py says which: SkylakeX on an
# AVX-512 CPU, or whatever OPENBLAS_CORETYPE forces) is the main run's: not run again.
KERNELS := Haswell SandyBridge $(shell grep -qw avx512f /proc/cpuinfo 2>/dev/null && echo SkylakeX)

# Simulated controllers are chaotic over 60 s: a last-bit change of arithmetic
# (another BLAS kernel, another CPU's code from numba) moves a late fall.
# Their tests check ensembles with margins; they run once more under
# numba's generic CPU and another OpenBLAS kernel (AVX-512's where the CPU
# has it, else Haswell's or SandyBridge's: the first that is not the main run's),
# so a result that holds on one CPU only fails here first.
SIM_TESTS := $(wildcard tests/test_skills_*.py tests/test_raibert_*.py) tests/test_modal_control.py \
	tests/test_modal_dog_gait.py tests/test_cli_modalsim.py tests/test_push.py tests/test_ensemble.py \
	tests/test_joint_torques_only.py tests/test_physics.py tests/test_modal_physics.py tests/test_modal_optimize.py \
	tests/test_modal_impulses.py tests/test_registry.py tests/test_limits.py tests/test_track.py tests/test_contact_bases.py \
	tests/test_balance.py tests/test_contact_depth.py
SIM_KERNELS := $(shell grep -qw avx512f /proc/cpuinfo 2>/dev/null && echo SkylakeX) Haswell SandyBridge
# The modal and gait tests' rerun under that same OpenBLAS kernel is folded into
# the simulation tests' run (one pytest session fewer; numba's generic CPU adds
# to what they check, their kernel is the same).

# Both workers take contiguous runs of tests and steal from each other at the
# end, so they finish together.
PYTEST := $(PY) -m pytest -q -n 2 --dist worksteal -p no:cacheprovider

# `make test`: lint, types, the docs' strict build, then every test once on this
# machine's CPU and BLAS kernel.
test: $(STAMP) $(VALIDATOR) $(CHROMIUM)
	$(VENV)/bin/ruff check gaitforge tests benchmarks examples docs
	$(VENV)/bin/mypy gaitforge
	@echo "== docs: strict build (every page, link and API reference)"
	@d=$$(mktemp -d); NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict -d $$d/site; s=$$?; \
		rm -rf $$d; exit $$s
	$(PYTEST)

# `make test-cpus` (CI runs it after `make test`): the tests whose outcome a last-bit
# change of arithmetic could move, again under the other CPU settings above. Tests
# marked half_step (convergence, already checked at half the step on this CPU) and
# same_machine (determinism, resume and worker counts: runs compared on one machine)
# are not run again.
RERUN := -m "not half_step and not same_machine"
test-cpus: $(STAMP) $(VALIDATOR) $(CHROMIUM)
	@if [ "$$(uname -m)" != x86_64 ]; then echo "== not x86-64: no other OpenBLAS kernels to run under"; exit 0; fi; \
	main=$$($(PY) tests/blas_core.py); \
	sim=SandyBridge; for k in $(SIM_KERNELS); do \
		if [ "$$(echo $$k | tr A-Z a-z)" != "$$main" ]; then sim=$$k; break; fi; done; \
	for k in $(KERNELS); do \
		if [ "$$(echo $$k | tr A-Z a-z)" = "$$main" ]; then \
			echo "== OPENBLAS_CORETYPE=$$k: the main run's kernel (OpenBLAS's pick here), not run again"; continue; fi; \
		if [ $$k = $$sim ]; then \
			echo "== OPENBLAS_CORETYPE=$$k: the modal and gait tests run with the simulation tests below"; continue; fi; \
		echo "== modal and gait tests again under OPENBLAS_CORETYPE=$$k"; \
		OPENBLAS_CORETYPE=$$k $(PYTEST) $(RERUN) $(KERNEL_TESTS) || exit 1; \
	done; \
	echo "== simulation, modal and gait tests again under NUMBA_CPU_NAME=generic OPENBLAS_CORETYPE=$$sim"; \
	NUMBA_CPU_NAME=generic OPENBLAS_CORETYPE=$$sim $(PYTEST) $(RERUN) $(SIM_TESTS) $(KERNEL_TESTS) || exit 1

# The docs site (mkdocs-material, extra `docs`; `make setup` installs it with the
# test extra): a strict build into site/, checking every page and link.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

clean:
	rm -rf $(VENV) $(OUT) site
