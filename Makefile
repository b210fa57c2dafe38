# modelfuzz: build, test, benchmark.
GO ?= go

.PHONY: all build test vet bench fuzz-parse clean

all: build

build:
	$(GO) build -o modelfuzz ./cmd/modelfuzz

# The command CI runs (.ci/run): formatting, vet, then every test with the
# race detector.
test:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -race -timeout 30m ./...

vet:
	$(GO) vet ./...

# Benchmarks that users feel; see docs/results.md for recorded numbers.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 20000x ./fuzzer/ ./adapters/...

clean:
	rm -f modelfuzz
