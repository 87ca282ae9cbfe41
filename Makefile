# nodeagent — see README.md. Every target installs what it needs and is safe to run twice.
SHELL := /bin/bash
BUN := node_modules/.bin/bun
ROOT_DIR ?= /var/lib/nodeagent
IMAGES_DIR ?= .cache/images
SRC := $(shell find cmd src -name '*.ts' -o -name '*.json') package.json

.PHONY: all build run test test-unit test-kube test-e2e node images deps typecheck lint format conformance bench-pleg bench-pod-start bench-footprint bench-probes bench-lint bench-schedule bench-startup bench-streaming bench-eviction bench-soak bench-hollow bench-hollow-scale proto clean

all: build

# Toolchain and libraries: npm ci when the lockfile changed (bun comes in as an npm package).
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@
deps: node_modules/.package-lock.json

# One self-contained file: the CRI descriptor is embedded, no node_modules or proto/ needed beside it.
# Built for start-up (make bench-startup): --bytecode ships JavaScriptCore bytecode instead of source
# to parse (with ESM output, which needs --compile); --splitting makes every dynamic import (each
# subcommand, and what a command loads once its flags are checked) a chunk of its own inside the
# binary, loaded only when imported, so `--version` and `staticpod lint` never load gRPC, the
# Kubernetes client or prom-client. src/lint/worker.ts is the second entry point: the thread
# `staticpod lint --jobs N` starts. The source maps are embedded (stack traces name cmd/ and src/
# files); bun also writes them beside the output, so it is built in dist/.build and moved.
# Then profile-guided layout (--bytecode-order): the first build runs a lint and --version recording
# the functions they use, and the second puts those first in the file, so a short command reads and
# decodes less of the binary (≈25 % less CPU for both here).
# --compile-jit-policy: the process starts with the agent's JIT policy (src/util/jit-policy.ts,
# AGENT_JIT_POLICY; every other command sets the normal one back when it is chosen), so the agent's
# start-up never tiers up into the optimizing JIT, whose code pages would stay resident (≈3 MiB of
# its RSS at 0 pods).
# package.json's "sideEffects" lists the one module imported for its side effect (cmd/tty.ts): every
# other module of src/ is free of them, so a module another imports through its folder's door
# (index.ts) is bundled only when a name it exports is used. Without it, importing one name through a
# door loads the whole folder: a standalone agent loaded @kubernetes/client-node through src/objects.
BUILD_FLAGS := --compile --bytecode --format=esm --splitting --minify-syntax --sourcemap=inline --compile-jit-policy=1000
BUILD_ENTRIES := cmd/nodeagent.ts src/lint/worker.ts
dist/nodeagent: node_modules/.package-lock.json $(SRC)
	@rm -rf dist/.build && mkdir -p dist/.build
	$(BUN) build $(BUILD_FLAGS) $(BUILD_ENTRIES) --outfile dist/.build/nodeagent
	BUN_BYTECODE_ORDER_OUT=dist/.build/lint.order dist/.build/nodeagent staticpod lint test/fixtures/lint/valid >/dev/null || [ $$? -eq 1 ]
	BUN_BYTECODE_ORDER_OUT=dist/.build/version.order dist/.build/nodeagent --version >/dev/null
	$(BUN) build $(BUILD_FLAGS) --bytecode-order=dist/.build/lint.order,dist/.build/version.order $(BUILD_ENTRIES) --outfile dist/.build/nodeagent
	mv dist/.build/nodeagent dist/nodeagent && rm -rf dist/.build
build: dist/nodeagent

# The real node: containerd 1.6 (Debian 12) and 1.7 (Debian 13), runc, CNI plugins, image tools.
node:
	bash scripts/install-node.sh

# The pause and busybox images, built on this machine from Debian packages and images/.
images: node
	bash scripts/build-images.sh $(IMAGES_DIR)

typecheck: deps
	node_modules/.bin/tsc --noEmit -p .

# The linter (biome.json: Biome's recommended rules less the house style's exceptions, said there)
# and the formatter's check: a file not as `make format` writes it fails (FORMAT_CHECK=0 skips that).
FORMAT_CHECK ?= 1
lint: deps
	node_modules/.bin/biome lint
ifeq ($(FORMAT_CHECK),1)
	node_modules/.bin/biome format
endif

# Formats every file biome.json covers (lines up to 160 characters), in place.
format: deps
	node_modules/.bin/biome format --write

# The main job: `nodeagent agent` running examples/manifests, on the system containerd or one it
# starts under $(ROOT_DIR) with the images built here.
# The API is HTTPS with the agent's self-signed certificate (<root-dir>/pki/kubelet.crt) and reads need
# a credential: a push token made once (0600) under the root dir, kept across runs.
run: node build
	bash scripts/build-images.sh $(ROOT_DIR)/images
	@mkdir -p $(ROOT_DIR) && test -s $(ROOT_DIR)/api-token || (umask 077 && head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > $(ROOT_DIR)/api-token)
	@echo "nodeagent: running the pods in examples/manifests (Ctrl-C stops the agent, the pods keep running)."
	@echo "  watch them:  curl -s --cacert $(ROOT_DIR)/pki/kubelet.crt -H \"Authorization: Bearer \$$(cat $(ROOT_DIR)/api-token)\" https://127.0.0.1:10250/pods | jq '.items[] | {name: .metadata.name, phase: .status.phase}'"
	@echo "  logs, exec:  dist/nodeagent logs --token-file $(ROOT_DIR)/api-token default/counter-\$$(hostname); dist/nodeagent exec --token-file $(ROOT_DIR)/api-token default/web-\$$(hostname) -- ls /"
	@echo "  what it did: dist/nodeagent events --token-file $(ROOT_DIR)/api-token --watch"
	@echo "  events:      dist/nodeagent pleg watch --root-dir $(ROOT_DIR) --mode generic --agent https://127.0.0.1:10250 --token-file $(ROOT_DIR)/api-token"
	dist/nodeagent agent --pod-manifest-path $(abspath examples/manifests) --root-dir $(ROOT_DIR) --push-token-file $(ROOT_DIR)/api-token

# Unit tests and the e2e tests against real containerd 1.6 and 1.7 started by the test set-up, after the
# type check and the linter (so CI, which runs this target, runs them too).
test: node deps build images typecheck lint
	NODEAGENT_IMAGES=$(abspath $(IMAGES_DIR)) $(BUN) test --timeout 120000 $(TEST_ARGS)

# Every unit-test folder of test/ (a new one included without listing it): all of test/ but test/e2e.
test-unit: deps
	$(BUN) test --path-ignore-patterns 'test/e2e/**'

# The in-process test API server (test/fakes/apiserver) and src/kube's clients and informers against it.
test-kube: deps
	$(BUN) test test/kube

# The binary the benches that compare with a build from before (bench-footprint, bench-pod-start,
# bench-probes, bench-startup) measure beside this one: make bench-footprint BASELINE=path/to/nodeagent.
# Unset, they measure this build alone and say so in their output.
BASELINE ?=
BASELINE_ARG = $(if $(BASELINE),--baseline $(abspath $(BASELINE)))

bench-pleg: node deps build images
	NODEAGENT_IMAGES=$(abspath $(IMAGES_DIR)) $(BUN) bench/pleg.ts

bench-pod-start: node deps build images
	NODEAGENT_IMAGES=$(abspath $(IMAGES_DIR)) $(BUN) bench/pod-start.ts $(BASELINE_ARG)
	NODEAGENT_IMAGES=$(abspath $(IMAGES_DIR)) $(BUN) bench/pod-start-volumes.ts

# The agent's RSS at 0/50/100 idle pods and idle CPU, and kill -9 → /healthz ok with 100 pods
# adopted: the binary of BASELINE (when given) against this build, one run.
bench-footprint: node deps build images
	NODEAGENT_IMAGES=$(abspath $(IMAGES_DIR)) $(BUN) bench/footprint.ts $(BASELINE_ARG)

# The agent's CPU with 100 pods probed by exec every second vs none, and probe latency vs bare ExecSync;
# first the runtime's ExecSync ceiling, and our CRI client against @grpc/grpc-js (and crictl) on it.
bench-probes: node deps build images
	NODEAGENT_IMAGES=$(abspath $(IMAGES_DIR)) $(BUN) bench/probes.ts $(BASELINE_ARG)

# The agent over an hour (SOAK_MINUTES=60) with 50 probed pods, 10 crash-looping, pushes and deletes every
# minute: RSS, heap objects, timers, open fds and the event ring per minute, and their slope over the last
# 40 minutes. SOAK_BINARY (dist/nodeagent) is the binary measured.
SOAK_MINUTES ?= 60
SOAK_BINARY ?= dist/nodeagent
bench-soak: node deps build images
	NODEAGENT_IMAGES=$(abspath $(IMAGES_DIR)) $(BUN) bench/soak.ts --minutes $(SOAK_MINUTES) --binary $(abspath $(SOAK_BINARY))

# `nodeagent staticpod lint` over 2400 generated static pods: single process and --jobs 2, against yaml.parse.
bench-lint: deps build
	$(BUN) bench/lint.ts

# Start-up against a Bun hello-world compiled in the same run: --version (target ≤ 4×), a one-file
# staticpod lint (≤ 6×), and --jobs 2 vs --jobs 1 on 2,000 files (≥ 1.5× faster); with the binary from
# of BASELINE beside it when given.
bench-startup: deps build
	$(BUN) bench/startup.ts $(BASELINE_ARG)

# The agent's API streams against their floors (issue 16): an exec round trip through /exec vs straight to
# the runtime's streaming URL, and /containerLogs throughput vs reading the log file, ratios in one run.
bench-streaming: node deps build images
	NODEAGENT_IMAGES=$(abspath $(IMAGES_DIR)) $(BUN) bench/streaming.ts

# The scheduler on scheduler_perf's shapes (SchedulingBasic, TopologySpreading, SchedulingPodAntiAffinity;
# 5000 and 500 nodes) against baselines in the same run: in memory beside the floor (bare resource fit +
# LeastAllocated over the same nodes); at 500 nodes also through a private API server, beside the real
# kube-scheduler there, when KUBE_BIN (default /tmp/kube-1.24, from ../shared/control-plane/build.sh) has
# kube-apiserver, etcd and kube-scheduler (skipped, saying why, when not).
# The agent's cpu and RSS at 100 pods with the eviction manager's stats collection on (default
# thresholds) vs off (--eviction-hard=), as a ratio (issue 17: target ≤ 1.2× cpu).
bench-eviction: node deps build images
	NODEAGENT_IMAGES=$(abspath $(IMAGES_DIR)) $(BUN) bench/eviction.ts

bench-schedule: deps build
	$(BUN) bench/schedule.ts

# Hollow nodes (issue 27): `nodeagent hollow` (one process, HOLLOW_NODES nodes) against kubemark's hollow
# nodes (KUBEMARK: cmd/kubemark of the same Kubernetes tree, one process per node), one after the other on
# one control plane from KUBE_BIN (etcd, kube-apiserver with an audit log, kcm, kube-scheduler; started
# by scripts/conformance/control-plane.sh): per node RSS, CPU, API requests per minute at rest and while
# 30 pods per node start and stop, pod start latency; ratios nodeagent/kubemark. Knobs in bench/hollow/main.ts.
HOLLOW_NODES ?= 5
KUBEMARK ?=
bench-hollow: deps build
	KUBE_BIN=$(if $(KUBE_BIN),$(abspath $(KUBE_BIN))) KUBEMARK=$(if $(KUBEMARK),$(abspath $(KUBEMARK))) $(BUN) bench/hollow/main.ts --nodes $(HOLLOW_NODES)

# The scale mode (bench/hollow/scale.ts): HOLLOW_SCALE_NODES (1000) nodeagent hollow nodes in one process
# on a fresh control plane, all Ready (timed), their RSS and CPU beside kube-apiserver's; then a
# Deployment of HOLLOW_SCALE_PODS (10000) pods bound by kube-scheduler, then by `nodeagent schedule`:
# time to all bound and all Running, pods bound per second, the ratio.
HOLLOW_SCALE_NODES ?= 1000
HOLLOW_SCALE_PODS ?= 10000
bench-hollow-scale: deps build
	KUBE_BIN=$(if $(KUBE_BIN),$(abspath $(KUBE_BIN))) $(BUN) bench/hollow/main.ts --scale --nodes $(HOLLOW_SCALE_NODES) --pods $(HOLLOW_SCALE_PODS)

# Upstream's [NodeConformance] e2e tests (Kubernetes 1.36's e2e.test) against a control plane with one
# node, NODE=nodeagent (this build) or NODE=kubelet (the control run), on a containerd 1.7 of their own
# with the images scripts/conformance/images.sh makes (docs/conformance.md). KUBE_BIN: the folder of
# Kubernetes binaries you built (e2e.test, agnhost, kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl, etcd, kubelet); nothing here builds them. SHARDS, SHARD, FOCUS, RERUN, OUT,
# RUN_DIR pass through (scripts/conformance/run.sh says what they do).
KUBE_BIN ?=
NODE ?= nodeagent
conformance: node deps $(if $(filter nodeagent,$(NODE)),build)
	@test -n "$(KUBE_BIN)" || { echo "make conformance KUBE_BIN=<folder of built Kubernetes binaries> NODE=nodeagent|kubelet"; exit 2; }
	KUBE_BIN=$(abspath $(KUBE_BIN)) NODE=$(NODE) bash scripts/conformance/run.sh

# Refresh proto/ from Debian's cri-api package and regenerate the TypeScript types.
proto: deps
	bash scripts/refresh-cri-proto.sh

clean:
	rm -rf dist .cache
