# Outpost: `make demo` opens the console on a local demo server; `make test` runs the whole suite headless.
.PHONY: demo demo-reset lint test test-server test-console bootstrap bootstrap-demo bench soak clean package package-check

PY := .venv/bin/python
# The whole suite is guarded so a hung Qt loop cannot eat CI's time: 40 minutes, room above the suite's
# 12-minute aim (docs/development.md) for a machine busy with other work.
TEST_TIMEOUT ?= 2400
# Parallel workers: the tests mostly wait on servers, sockets and subprocesses, so more workers than cores pay
# off. One test file stays on one worker (its module fixtures and servers are shared), and files holding a
# declared long test start first (tests/conftest.py). The order is random; the summary prints its seed.
TEST_WORKERS ?= 4
# More pytest arguments (.ci/run deselects the API fuzz it runs beside the PostgreSQL pass).
PYTEST_ARGS ?=
PYTEST := $(PY) -m pytest -q -p randomly -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=25 \
	$(PYTEST_ARGS)

bootstrap:
	@scripts/bootstrap.sh
	@scripts/check_qt_libs.sh

# The demo needs the console and the server, not the test and development tools (README: the sizes).
bootstrap-demo:
	@scripts/bootstrap.sh demo
	@scripts/check_qt_libs.sh

demo: bootstrap-demo
	$(PY) -m console --demo

# Removes the demo server's data (kept between runs; the console's Help > About names the folder).
demo-reset: bootstrap-demo
	$(PY) -m console --demo-reset

# ruff (pycodestyle, pyflakes, import order, bugbear) over the whole repository, the import contracts
# (lint-imports: which module may import which, pyproject.toml), then mypy (pyproject.toml).
# mypy checks the whole repository as Linux, then both packages as Windows and macOS see them.
lint: bootstrap
	$(PY) -m ruff check .
	.venv/bin/lint-imports --no-cache
	$(PY) -m mypy
	$(PY) -m mypy --platform win32 src/console server/outpost_server
	$(PY) -m mypy --platform darwin src/console server/outpost_server

test: lint
	QT_QPA_PLATFORM=offscreen timeout --kill-after=30 $(TEST_TIMEOUT) $(PYTEST)

# The server and end-to-end tests alone (.ci/run runs them again on PostgreSQL).
test-server: bootstrap
	QT_QPA_PLATFORM=offscreen timeout --kill-after=30 $(TEST_TIMEOUT) $(PYTEST) tests/server tests/e2e

test-console: bootstrap
	QT_QPA_PLATFORM=offscreen timeout --kill-after=30 $(TEST_TIMEOUT) $(PYTEST) tests/console

bench: bootstrap
	$(PY) -m bench

# Ingestion plus API traffic for SOAK_MINUTES (CI runs 2; try 30 by hand).
SOAK_MINUTES ?= 2
soak: bootstrap
	$(PY) -m bench.soak --minutes $(SOAK_MINUTES)

clean:
	rm -rf .venv build dist .data

# Installers: `make package` builds the Linux one-folder app and its .tar.gz under dist/;
# `make package-check` also runs the built binary (--version, offscreen --self-test).
# Windows and macOS recipes: packaging/README.md.
package: bootstrap
	packaging/linux/build.sh

package-check: package
	packaging/linux/check.sh
