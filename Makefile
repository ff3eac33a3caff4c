# Entry points for people and CI. `make train` and `make test` set everything up on a fresh machine.
VENV ?= .venv
PY := $(VENV)/bin/python
export OMP_NUM_THREADS ?= 1

.PHONY: install test test-all train bench conformance clean

install:
	bash scripts/install.sh

test: install
	$(PY) -m pytest -q -m "not slow"

test-all: install
	$(PY) -m pytest -q

train: install
	bash scripts/train.sh

bench: install
	$(PY) benchmarks/sim_throughput.py

conformance: install
	$(VENV)/bin/mcs-plugin conformance tests/data/conformance

clean:
	rm -rf $(VENV) runs build *.egg-info
