# git-tdd toolkit: git diffgate and git tdd.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
COMMIT ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)
LDFLAGS := -X github.com/git-tdd/git-tdd/internal/version.Version=$(VERSION) -X github.com/git-tdd/git-tdd/internal/version.Commit=$(COMMIT)
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: all build install test race lint bench clean

all: build

# Static binaries: they start faster (git runs one for each hook) and run anywhere.
build:
	CGO_ENABLED=0 go build -trimpath -ldflags "$(LDFLAGS)" -o bin/ ./cmd/git-diffgate ./cmd/git-tdd

install:
	./install.sh

test:
	go test ./...

race:
	GORACE=atexit_sleep_ms=0 go test -race -timeout 30m ./...

lint:
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo "gofmt: the files above need formatting"; exit 1; }
	go vet ./...
	go run $(STATICCHECK) ./...

# Budgets of DESIGN §9, measured as ratios against git in the same run.
# REPLAY=DIR (a clone of github.com/more-itertools/more-itertools) replays its
# bug-fixes through git tdd red too, and measures the prompts git tdd run
# builds for a new function in its more.py (172 KB).
bench: build
	go run ./bench -bin bin $(if $(REPLAY),-replay $(REPLAY))

clean:
	rm -rf bin
