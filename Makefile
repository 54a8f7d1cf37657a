# Two entry points: `make demo` (set up, then run the main job) and
# `make test` (set up, then run the whole suite). Both need only python3.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
OUT ?= demo-output
export MUJOCO_GL ?= egl

VALIDATOR := tools/node_modules/gltf-validator

.PHONY: demo test setup clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/gaitforge demo --out $(OUT)

# The Khronos glTF validator (npm) checks exported .glb files in the tests.
$(VALIDATOR):
	@command -v npm >/dev/null || { echo "npm not found: install Node.js to run the glTF validator tests"; exit 1; }
	npm install --prefix tools --no-save --no-package-lock --silent gltf-validator@2.0.0-dev.3.10

test: $(STAMP) $(VALIDATOR)
	$(PY) -m pytest -q -n 2 -p no:cacheprovider

clean:
	rm -rf $(VENV) $(OUT)
