# Demiurge: bin/demiurge (a small launcher that answers a warm `tools list`
# itself and execs the rest), bin/demiurge-host (the full CLI), the built-in
# toolset plugins beside them, and the tests of every module of the
# workspace.

GO        ?= go
# Every go command here builds with Go 1.26's vector package
# (simd/archsimd, GOEXPERIMENT=simd): the screening of untrusted output
# uses it (host/untrusted/masks_simd.go), and the host, the tests and the
# programs tests build share one build configuration and cache. A plain
# `go build` without it gets the screening's byte scan, with the same
# findings.
export GOEXPERIMENT ?= simd
BIN       := $(CURDIR)/bin
MODULES   := shared sdk catalog host cmd plugins/coding plugins/control plugins/authored plugins/schedule
# Provider packages (`demiurge package install NAME`) are not built-in
# toolsets: each is an archive bin/packages/<name>.tar.gz (package.json
# first, then the plugin binary) with its sha256 beside it.
PACKAGES  := web_search_brave web_search_tavily
MODULES   += $(addprefix plugins/,$(PACKAGES))
PKGS      := $(addprefix ./,$(addsuffix /...,$(MODULES)))
# Built-in toolset plugins: bin/demiurge-toolset-<name> from plugins/<name>,
# or from plugins/<dir> when written <name>:<dir>.
TOOLSETS  := coding authored demiurge_control:control schedule
FUZZTIME  ?= 30s
# The commit `demiurge version` reports (GOFLAGS may turn off Go's own VCS stamp).
COMMIT    := $(shell git rev-parse --short=12 HEAD 2>/dev/null)
STAMP     := -X demiurge.dev/cmd/internal/buildinfo.commit=$(COMMIT)
BENCHTIME ?= 2s

# The MCP reference servers the host/mcp and CLI tests talk to, from the
# npm registry, into a directory git ignores.
MCP_NPM   := $(CURDIR)/.cache/npm
MCP_SERVERS := @modelcontextprotocol/server-everything@2026.8.31 @modelcontextprotocol/server-filesystem@2026.8.31

PROTOC_GEN_GO_VERSION      := v1.36.11
PROTOC_GEN_GO_GRPC_VERSION := v1.5.1

.PHONY: all build run test lint vet fmt-check proto bench fuzz clean mcp-servers

all: build

# Each program is built into STAGE and copied into bin/ only when its bytes
# changed: Go's cache skips an unchanged link but touches its output, and
# an unchanged build should leave bin/ (and every .sha256) as it was.
STAGE     := $(CURDIR)/.cache/build
put        = { cmp -s $(1) $(2) || { cp $(1) $(2).new && mv -f $(2).new $(2); }; }

build:
	@mkdir -p $(BIN) $(STAGE)
	$(GO) build -ldflags "$(STAMP)" -o $(STAGE)/demiurge-host ./cmd/demiurge
	@# The launcher answers `help` with the host's text, embedded: from the host just built.
	@$(STAGE)/demiurge-host help > $(STAGE)/help.txt && $(call put,$(STAGE)/help.txt,cmd/launcher/help.txt)
	$(GO) build -ldflags "$(STAMP)" -o $(STAGE)/demiurge ./cmd/launcher
	@# Static (no cgo): each sandboxed command starts the helper's two stages,
	@# and the dynamic loader cost about 0.7 ms each time (BENCHMARKS §31.2); the
	@# first stage is a small binary of its own beside the helper (§31.3).
	CGO_ENABLED=0 $(GO) build -o $(STAGE)/demiurge-sandbox ./cmd/sandbox
	CGO_ENABLED=0 $(GO) build -o $(STAGE)/demiurge-sandbox-first ./cmd/sandbox/first
	$(GO) build -o $(STAGE)/demiurge-front ./cmd/front
	@for p in demiurge-host demiurge demiurge-front demiurge-sandbox demiurge-sandbox-first; do $(call put,$(STAGE)/$$p,$(BIN)/$$p) || exit 1; done
	@for ts in $(TOOLSETS); do \
		name=$${ts%%:*}; dir=$${ts#*:}; f=demiurge-toolset-$$name; \
		$(GO) build -o $(STAGE)/$$f ./plugins/$$dir || exit 1; \
		(cd $(STAGE) && sha256sum $$f > $$f.sha256) || exit 1; \
		$(call put,$(STAGE)/$$f,$(BIN)/$$f) && $(call put,$(STAGE)/$$f.sha256,$(BIN)/$$f.sha256) || exit 1; \
	done

# The interactive session in the current directory on the embedded core.
run: build
	$(BIN)/demiurge

# Unit, CLI (testscript) and integration tests of every module, with each
# fuzz target's seed corpus; the CLI tests use the plugins just built.
test: test-deps build lint mcp-servers mcpserve-node acp-node sdk-modules
	DEMIURGE_TEST_PLUGIN_DIR=$(BIN) DEMIURGE_TEST_MCP_NODE_MODULES=$(MCP_NPM)/node_modules \
		DEMIURGE_TEST_UNAVAILABLE=$(TEST_DEPS) $(GO) test -count=1 -timeout 20m $(PKGS)
	@if [ -s $(TEST_DEPS) ]; then echo "skipped for want of: $$(cut -f1 $(TEST_DEPS) | tr '\n' ' ')(see $(TEST_DEPS))" >&2; fi

# The machine's programs the tests need (strace, zsh, fish, Debian's
# python3-grpcio, ...), installed when missing; what cannot be is listed
# in TEST_DEPS with the reason, and the tests that need it skip saying so.
TEST_DEPS := $(CURDIR)/.cache/test-deps/unavailable
.PHONY: test-deps
test-deps:
	@scripts/test-deps $(TEST_DEPS)

# The plugin author's walkthrough (testdata/script/plugin_author.txtar)
# builds a scaffolded plugin against the sdk alone, offline: the sdk's own
# module versions, which the workspace's build list may not select, must
# be in the module cache.
.PHONY: sdk-modules
sdk-modules:
	cd sdk && GOWORK=off $(GO) mod download

# Installed once; the stamp names the versions, so changing them reinstalls.
mcp-servers: $(MCP_NPM)/.installed
$(MCP_NPM)/.installed: Makefile
	@mkdir -p $(MCP_NPM)
	npm install --prefix $(MCP_NPM) --no-audit --no-fund --loglevel=error $(MCP_SERVERS)
	@echo "$(MCP_SERVERS)" > $@

# The node clients of the mcp serve tests (the TypeScript SDK client and
# the official conformance suite, which runs on Node 22 through npx), from
# host/mcpserve/testdata/node's lock file; the stamp is the lock's sha256,
# which is what the tests check (cmd/demiurge/mcp_serve_test.go).
MCPSERVE_NODE := $(CURDIR)/.cache/mcpserve-node
MCPSERVE_LOCK := host/mcpserve/testdata/node/package-lock.json
.PHONY: mcpserve-node
mcpserve-node: $(MCPSERVE_NODE)/.installed
$(MCPSERVE_NODE)/.installed: $(MCPSERVE_LOCK) host/mcpserve/testdata/node/package.json
	@mkdir -p $(MCPSERVE_NODE)
	cp host/mcpserve/testdata/node/package.json $(MCPSERVE_LOCK) $(MCPSERVE_NODE)/
	@# Without the registry the tests that need these skip, saying so.
	@if npm ci --prefix $(MCPSERVE_NODE) --no-audit --no-fund --loglevel=error && npx -y node@22 --version >/dev/null; then \
		sha256sum < $(MCPSERVE_LOCK) | cut -d' ' -f1 | tr -d '\n' > $@; \
	else echo "warning: the mcp serve node clients could not be installed; their tests will skip" >&2; fi

# The ACP client of the demiurge acp tests (the official TypeScript SDK,
# @agentclientprotocol/sdk), from cmd/demiurge/testdata/acp-node's lock
# file; the stamp is the lock's sha256, which the tests check
# (cmd/demiurge/acp_test.go).
ACP_NODE := $(CURDIR)/.cache/acp-node
ACP_LOCK := cmd/demiurge/testdata/acp-node/package-lock.json
.PHONY: acp-node
acp-node: $(ACP_NODE)/.installed
$(ACP_NODE)/.installed: $(ACP_LOCK) cmd/demiurge/testdata/acp-node/package.json
	@mkdir -p $(ACP_NODE)
	cp cmd/demiurge/testdata/acp-node/package.json $(ACP_LOCK) $(ACP_NODE)/
	@# Without the registry the tests that need it skip, saying so.
	@if npm ci --prefix $(ACP_NODE) --no-audit --no-fund --loglevel=error; then \
		sha256sum < $(ACP_LOCK) | cut -d' ' -f1 | tr -d '\n' > $@; \
	else echo "warning: the ACP TypeScript client could not be installed; its tests will skip" >&2; fi

# The packages where goroutines meet (MCP connections, mcp serve's
# watcher, tasks and sessions, dispatch, plugin calls, the turn loop) under
# the race detector; CI runs it after make test.
RACE_PKGS := ./host/mcp ./host/mcpserve ./host/toolhost ./host/dispatch ./host/plugins ./host/turn ./host/runtime ./host/schedule
.PHONY: race
race: test-deps build
	@if ! command -v gcc >/dev/null; then echo "make race: skipped: the race detector needs cgo and there is no gcc (see $(TEST_DEPS))" >&2; else \
		echo "DEMIURGE_TEST_PLUGIN_DIR=$(BIN) $(GO) test -race -count=1 -timeout 20m $(RACE_PKGS)"; \
		DEMIURGE_TEST_PLUGIN_DIR=$(BIN) DEMIURGE_TEST_UNAVAILABLE=$(TEST_DEPS) $(GO) test -race -count=1 -timeout 20m $(RACE_PKGS); fi

lint: vet fmt-check

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@bad=$$(gofmt -l $(MODULES) | grep -v /testdata/ || true); \
	if [ -n "$$bad" ]; then echo "gofmt needed:"; echo "$$bad"; exit 1; fi

# Regenerates the committed protobuf code (needs protoc: Debian's
# protobuf-compiler).
proto:
	GOBIN=$(CURDIR)/.tools $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	GOBIN=$(CURDIR)/.tools $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)
	cd shared && PATH=$(CURDIR)/.tools:$$PATH protoc -I proto \
		--go_out=. --go_opt=module=demiurge.dev/shared \
		--go-grpc_out=. --go-grpc_opt=module=demiurge.dev/shared \
		proto/demiurge/toolset/v1/toolset.proto proto/demiurge/host/v1/host.proto

# Benchmarks (not part of CI); figures go to BENCHMARKS.md, which says how
# to read them. The 1 GiB peak-RSS bounds are a test (they run in `make
# test` too) and are shown here first. BENCHCOUNT=5 repeats every benchmark
# so that medians can be taken on a busy machine.
BENCHCOUNT ?= 1
bench: build
	DEMIURGE_TEST_PLUGIN_DIR=$(BIN) $(GO) test -count=1 -run '^TestBigFilePeakRSS$$' -v ./plugins/coding/fsops/
	DEMIURGE_TEST_PLUGIN_DIR=$(BIN) $(GO) test -run '^$$' -bench . -benchtime $(BENCHTIME) -count $(BENCHCOUNT) -benchmem $(PKGS)

# The headline benchmarks, COUNT runs each, against their goals and the
# figures recorded in BENCHMARKS.md's bench-check table: prints what moved
# and fails only when a benchmark cannot run (not part of CI).
KEYS ?=
.PHONY: bench-check
bench-check: build
	DEMIURGE_TEST_PLUGIN_DIR=$(BIN) DEMIURGE_TEST_MCP_NODE_MODULES=$(MCP_NPM)/node_modules \
		scripts/bench-check $(KEYS)

# Every fuzz target for FUZZTIME each (not part of CI).
fuzz:
	@for mod in $(MODULES); do \
		for pkg in $$(cd $$mod && $(GO) list ./...); do \
			dir=$$(cd $$mod && $(GO) list -f '{{.Dir}}' $$pkg); \
			for f in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/func //'); do \
				echo "== $$pkg $$f"; \
				(cd $$dir && $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) .) || exit 1; \
			done; \
		done; \
	done

clean:
	rm -rf $(BIN) .tools $(STAGE)

# `demiurge` on PATH (what MCP client configurations name): a link in
# PREFIX/bin to bin/demiurge, which finds bin/demiurge-host and the
# built-in plugins beside the file the link resolves to.
PREFIX ?= $(HOME)/.local
.PHONY: install
install: build
	@mkdir -p $(PREFIX)/bin
	ln -sfn $(BIN)/demiurge $(PREFIX)/bin/demiurge
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "$(PREFIX)/bin is not on PATH: add it (export PATH=\"$(PREFIX)/bin:\$$PATH\")" >&2;; esac

.PHONY: packages
build: packages

packages:
	@mkdir -p $(BIN)/packages
	@for p in $(PACKAGES); do \
		d=$(STAGE)/packages/$$p; mkdir -p $$d && \
		cp plugins/$$p/package.json $$d/ && \
		$(GO) build -o $$d/demiurge-toolset-$$p ./plugins/$$p && \
		tar -C $$d --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - package.json demiurge-toolset-$$p | gzip -n > $$d.tar.gz && \
		(cd $(STAGE)/packages && sha256sum $$p.tar.gz > $$p.tar.gz.sha256) && \
		$(call put,$$d.tar.gz,$(BIN)/packages/$$p.tar.gz) && \
		$(call put,$$d.tar.gz.sha256,$(BIN)/packages/$$p.tar.gz.sha256) || exit 1; \
	done
