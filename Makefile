# modelfuzz: build, test, benchmark.
GO ?= go
# with_tla compiles etcd raft's own TLA+ trace points into the library
# (state_trace.go): --model etcdraft.tla validates each execution's trace
# with them. They cost nothing unless a node is given a TraceLogger.
TAGS ?= with_tla

.PHONY: all build cover test vet bench conformance clean

all: build

# -buildvcs=auto: the commit goes into modelfuzz --version and bug reports
# even where GOFLAGS turns it off.
build:
	$(GO) build -buildvcs=auto -tags $(TAGS) -o modelfuzz ./cmd/modelfuzz

# The fuzzer with Go coverage counters in the etcd raft library, for line
# coverage guidance (package linecov). The main package is in -coverpkg
# because go build (Go 1.26) starts the coverage runtime only from an
# instrumented main package: without it runtime/coverage has no data.
# linecov ignores the main package's own units.
cover:
	$(GO) build -tags $(TAGS) -cover -covermode=atomic -coverpkg=go.etcd.io/raft/v3/...,github.com/modelfuzz/modelfuzz/cmd/modelfuzz -o modelfuzz-cover ./cmd/modelfuzz

# The command CI runs (.ci/run): formatting, vet, every test with the race
# detector (and the library's trace points), the refusal of a build without
# them, then the exhaustive model checks without it: the TLA+
# conformance suite (../shared/tla-examples, skipped with a message when
# absent; 48 real specs) and our own models, which would take far longer
# instrumented; last a short differential run of the native engine against
# TLC itself (scripts/tlc-diff.sh, skipped with a message without TLC's
# jar or a JDK).
test:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags $(TAGS) ./...
	$(GO) test -race -tags $(TAGS) -timeout 30m ./...
	$(GO) test -count=1 -run 'TestSpecTraceNeedsTag|TestRunEtcdraftSpecNeedsTag|TestHubAndWorkersSurviveSIGKILL' ./adapters/etcdraft/ ./cmd/modelfuzz/
	$(GO) test -count=1 -run 'TestConformance|TestEmbeddedModelsCheck|TestCompiledAgreesWithInterpreter|TestOurModelsCompileWhole' -timeout 30m ./tlc/check/ ./models/
	N=30 ONLY='raft.cfg raft_conf.cfg microbench' scripts/tlc-diff.sh

vet:
	$(GO) vet ./...
	$(GO) vet -tags $(TAGS) ./...

# Benchmarks that users feel; docs/benchmarks.md has the recorded numbers.
bench:
	$(GO) test -tags $(TAGS) -run '^$$' -bench . -benchtime 20000x ./fuzzer/ ./adapters/...

# The conformance suite as a table (scripts/conformance.sh).
conformance:
	scripts/conformance.sh

clean:
	rm -f modelfuzz
