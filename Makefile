# Paylane: `make run` starts the whole stack locally, `make test` runs every module's tests.
SHELL := /bin/bash
GO ?= go
PKGS := github.com/paylane/paylane/...
PG_BIN ?= /usr/lib/postgresql/15/bin

.PHONY: run test bench bench-scale chaos fuzz reset lint deps build sdk

## deps: install what the stack and the tests need when it is missing (Debian, root or sudo):
## PostgreSQL (the stack's databases), redis-server (shared rate limits), chromium (hosted-page checks),
## jq, curl and openssl (the README's walk-throughs, which tests run).
deps:
	@need=""; \
	if [ ! -x "$(PG_BIN)/initdb" ] && ! command -v pg_config >/dev/null 2>&1; then need="$$need postgresql"; fi; \
	if ! command -v redis-server >/dev/null 2>&1; then need="$$need redis-server"; fi; \
	if ! command -v chromium >/dev/null 2>&1; then need="$$need chromium"; fi; \
	if ! command -v jq >/dev/null 2>&1; then need="$$need jq"; fi; \
	if ! command -v curl >/dev/null 2>&1; then need="$$need curl"; fi; \
	if ! command -v openssl >/dev/null 2>&1; then need="$$need openssl"; fi; \
	if [ -n "$$need" ]; then \
		echo "installing:$$need"; \
		sudo=""; [ "$$(id -u)" = 0 ] || sudo="sudo"; \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$need; \
	fi

## build: compile every module.
build:
	$(GO) build $(PKGS)

## run: build and start the local stack (Postgres, broker, every service, the HTTPS gateway).
## PROCESSES=1 runs every service and the gateway as a process of its own under a supervisor.
PROCESSES ?=
run: deps
	$(GO) run github.com/paylane/paylane/deploy/cmd/devstack $(if $(filter-out 0,$(PROCESSES)),-processes)

## test: every module's tests against real Postgres, Redis and an in-process Kafka broker.
test: deps
	$(GO) vet $(PKGS)
	$(GO) test -count=1 -timeout 12m $(PKGS)

## bench: the end-to-end benchmark table (docs/benchmarks.md), then every Go micro-benchmark.
bench: deps
	$(GO) run github.com/paylane/paylane/bench/cmd/bench
	$(GO) test -count=1 -run '^$$' -bench . -benchmem $(PKGS)

## bench-scale: the data-growth table (docs/benchmarks.md, "Data growth"): lists and searches of a tenant of
## a million contacts and receivables (loaded with COPY) against a tenant of 10,000; about 5 minutes.
bench-scale: deps
	$(GO) run github.com/paylane/paylane/bench/cmd/bench -only scale

## chaos: fault scenarios under load against the stack in process mode (docs/reliability.md);
## fails on any write answered 2xx and then lost. Not part of `make test`. SCENARIOS=kill,kafka picks some.
SCENARIOS ?=
chaos: deps
	$(GO) run github.com/paylane/paylane/deploy/cmd/chaos $(if $(SCENARIOS),-scenarios $(SCENARIOS))
## fuzz: every Go fuzz target of the workspace for FUZZTIME each, then the HTTP fuzz pass:
## FUZZREQUESTS hostile requests (derived from the OpenAPI document) against a devstack of its own
## on ports the system picks. Fails on a fuzz failure, an answer >= 500, a 4xx outside the error
## envelope or a hung request (docs/reliability.md).
FUZZTIME ?= 30s
FUZZREQUESTS ?= 50000
fuzz: deps
	$(GO) run github.com/paylane/paylane/deploy/cmd/fuzz -fuzztime $(FUZZTIME) -requests $(FUZZREQUESTS)

## sdk: regenerate the Go SDK (sdk/go/paylane.gen.go) from the OpenAPI document the gateway
## serves, with oapi-codegen v2.8.2 (sdk/go/generate.go); commit the result with the API change.
sdk:
	$(GO) generate github.com/paylane/paylane/sdk/go

## reset: wipe the local stack's data (Postgres cluster, certificates, secrets).
reset:
	rm -rf .paylane

## lint: gofmt and go vet.
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
