# Two entry points: `make demo` (set up, then run the main job) and
# `make test` (set up, then run the whole suite). Both need only python3.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
OUT ?= demo-output
export MUJOCO_GL ?= egl

.PHONY: demo test setup clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/gaitforge demo --out $(OUT)

test: $(STAMP)
	$(PY) -m pytest -q -n 2 -p no:cacheprovider

clean:
	rm -rf $(VENV) $(OUT)
