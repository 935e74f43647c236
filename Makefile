# Every set-up step lives here, so a fresh clone needs only `make demo` or `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

DEPS_STAMP := node_modules/.deps-stamp

help:
	@echo "make demo     real VS Code (code-server) with the extension on the example repo and a local cluster"
	@echo "make test     every test tier: unit, integration (real kube-apiserver), e2e (real VS Code)"
	@echo "make bench    benchmarks (numbers go to docs/benchmarks.md)"
	@echo "make cluster-up / cluster-down    the local test cluster alone"
	@echo "make package  build the .vsix"

$(DEPS_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

deps: $(DEPS_STAMP)

build: deps
	bash scripts/build-wasm.sh
	npm run typecheck
	npm run build

tools:
	bash test/cluster/build.sh

lint: deps
	npm run lint

test-unit: build lint
	npm run test:unit

test-integration: build tools
	bash test/integration/run.sh

test-e2e: package
	bash test/e2e/run.sh

test: test-unit test-integration test-e2e

bench: build tools package
	npm run bench

package: build
	bash scripts/package.sh

cluster-up: tools
	bash test/cluster/up.sh

cluster-down:
	bash test/cluster/down.sh

demo: package tools
	bash scripts/demo.sh

.PHONY: help deps build lint tools test test-unit test-integration test-e2e bench package cluster-up cluster-down demo
