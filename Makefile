# The two commands a newcomer needs: `make run` (the main job) and `make test` (everything CI runs).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

# GitHub's own API descriptions, fetched from the npm registry at pinned versions: the GitHub
# fake executes the GraphQL schema (and every query steadypress sends is validated against it),
# and its REST answers are validated against the OpenAPI description.
GRAPHQL_SCHEMA_VERSION := 15.26.1
OPENAPI_VERSION := 23.0.2
SCHEMAS := .cache/octokit
# The Nu Html Checker (validator.w3.org/nu), from the npm registry: the site's pages are checked
# with the validator the W3C runs (it needs Java, which .ci/run installs).
VNU_VERSION := 26.9.27
VNU := .cache/vnu/vnu.jar

.PHONY: run test lint schemas release-check

run: $(VENV)/.runtime
	$(BIN)/steadypress run

# The suite's scratch (thousands of git repositories and files) goes on tmpfs where there is
# one: a disk can take a millisecond to create a file (this machine's did: 612 s of pytest on
# it, 524 s on tmpfs). Elsewhere it goes wherever TMPDIR says.
TEST_TMPDIR ?= $(shell test -d /dev/shm && test -w /dev/shm && echo /dev/shm)

# Three workers on two cores: the suite waits on git, subprocesses, loopback servers and paced
# fakes as much as on the CPU, and a third worker fills those waits (pytest took 235 s with
# three on this 2-core machine, 307 s with two and 259 s with four, in the same hour).
test: $(VENV)/.test lint schemas
	$(if $(TEST_TMPDIR),TMPDIR=$(TEST_TMPDIR) )$(BIN)/python -m pytest -n 3

schemas: $(SCHEMAS)/schema.graphql $(SCHEMAS)/api.github.com.json $(VNU)

$(VNU):
	mkdir -p $(dir $(VNU))
	cd $(dir $(VNU)) && npm pack --silent vnu-jar@$(VNU_VERSION) >/dev/null \
		&& tar -xzf vnu-jar-$(VNU_VERSION).tgz --strip-components=3 package/build/dist/vnu.jar \
		&& rm vnu-jar-$(VNU_VERSION).tgz

$(SCHEMAS)/api.github.com.json:
	mkdir -p $(SCHEMAS)
	cd $(SCHEMAS) && npm pack --silent @octokit/openapi@$(OPENAPI_VERSION) >/dev/null \
		&& tar -xzf octokit-openapi-$(OPENAPI_VERSION).tgz --strip-components=2 package/generated/api.github.com.json \
		&& rm octokit-openapi-$(OPENAPI_VERSION).tgz

$(SCHEMAS)/schema.graphql:
	mkdir -p $(SCHEMAS)
	cd $(SCHEMAS) && npm pack --silent @octokit/graphql-schema@$(GRAPHQL_SCHEMA_VERSION) >/dev/null \
		&& tar -xzf octokit-graphql-schema-$(GRAPHQL_SCHEMA_VERSION).tgz --strip-components=1 package/schema.graphql \
		&& rm octokit-graphql-schema-$(GRAPHQL_SCHEMA_VERSION).tgz

# The release as a user meets it: the wheel and the sdist built and checked as PyPI checks them
# (twine, strict), then the wheel installed by pipx, alone in an environment of its own with its
# dependencies from PyPI, answering `--version` with the version it was built as.
RELEASE_CHECK := .cache/release-check
release-check: $(VENV)/.test
	rm -rf $(RELEASE_CHECK)
	$(BIN)/python -m build --no-isolation --outdir $(RELEASE_CHECK)/dist . >/dev/null
	$(BIN)/python -m twine check --strict $(RELEASE_CHECK)/dist/*
	PIPX_HOME=$(CURDIR)/$(RELEASE_CHECK)/pipx PIPX_BIN_DIR=$(CURDIR)/$(RELEASE_CHECK)/bin \
		$(BIN)/python -m pipx install --quiet $(RELEASE_CHECK)/dist/steadypress-*.whl
	test "$$($(RELEASE_CHECK)/bin/steadypress --version)" = \
		"steadypress $$($(BIN)/python -c 'import steadypress; print(steadypress.__version__)')"
	$(RELEASE_CHECK)/bin/steadypress --version

lint: $(VENV)/.test
	$(BIN)/ruff check scripts tests benchmarks
	$(BIN)/ruff format --check scripts tests benchmarks
	$(BIN)/mypy
	$(BIN)/actionlint -color=false .github/workflows/*.yml
	$(BIN)/zizmor --offline .github/workflows action.yml

$(VENV)/.runtime: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e .
	touch $@

$(VENV)/.test: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@ $(VENV)/.runtime
