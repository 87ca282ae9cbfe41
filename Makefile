# nodeagent — see README.md. Every target installs what it needs and is safe to run twice.
SHELL := /bin/bash
BUN := node_modules/.bin/bun
ROOT_DIR ?= /var/lib/nodeagent
IMAGES_DIR ?= .cache/images
SRC := $(shell find cmd src -name '*.ts' -o -name '*.json') package.json

.PHONY: all build run test test-unit test-kube test-e2e node images deps typecheck bench-pleg bench-pod-start bench-footprint bench-probes bench-lint bench-schedule proto clean

all: build

# Toolchain and libraries: npm ci when the lockfile changed (bun comes in as an npm package).
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@
deps: node_modules/.package-lock.json

# One self-contained file: the CRI descriptor is embedded, no node_modules or proto/ needed beside it.
dist/nodeagent: node_modules/.package-lock.json $(SRC)
	@mkdir -p dist
	$(BUN) build --compile --minify-syntax --sourcemap=inline cmd/nodeagent.ts --outfile dist/nodeagent
build: dist/nodeagent

# The real node: containerd 1.6 (Debian 12) and 1.7 (Debian 13), runc, CNI plugins, image tools.
node:
	bash scripts/install-node.sh

# The pause and busybox images, built on this machine from Debian packages and images/.
images: node
	bash scripts/build-images.sh $(IMAGES_DIR)

typecheck: deps
	node_modules/.bin/tsc --noEmit -p .

# The main job: `nodeagent agent` running examples/manifests, on the system containerd or one it
# starts under $(ROOT_DIR) with the images built here.
run: node build
	bash scripts/build-images.sh $(ROOT_DIR)/images
	@echo "nodeagent: running the pods in examples/manifests (Ctrl-C stops the agent, the pods keep running)."
	@echo "  watch them:  curl -s 127.0.0.1:10250/pods | jq '.items[] | {name: .metadata.name, phase: .status.phase}'"
	@echo "  events:      dist/nodeagent pleg watch --root-dir $(ROOT_DIR) --mode generic"
	dist/nodeagent agent --pod-manifest-path $(abspath examples/manifests) --root-dir $(ROOT_DIR)

# Unit tests and the e2e tests against real containerd 1.6 and 1.7 started by the test set-up.
test: node deps build images
	NODEAGENT_IMAGES=$(abspath $(IMAGES_DIR)) $(BUN) test --timeout 120000 $(TEST_ARGS)

# Every unit-test folder of test/ (a new one included without listing it): all of test/ but test/e2e.
test-unit: deps
	$(BUN) test --path-ignore-patterns 'test/e2e/**'

# The in-process test API server (test/fakes/apiserver) and src/kube's clients and informers against it.
test-kube: deps
	$(BUN) test test/kube

bench-pleg: node deps build images
	NODEAGENT_IMAGES=$(abspath $(IMAGES_DIR)) $(BUN) bench/pleg.ts

bench-pod-start: node deps build images
	NODEAGENT_IMAGES=$(abspath $(IMAGES_DIR)) $(BUN) bench/pod-start.ts

# The agent's RSS at 0/50/100 idle pods and idle CPU, and kill -9 → /healthz ok with 100 pods
# adopted: the binary before issue 14 (/work/baseline/nodeagent-before) against this build, one run.
bench-footprint: node deps build images
	NODEAGENT_IMAGES=$(abspath $(IMAGES_DIR)) $(BUN) bench/footprint.ts

# The agent's CPU with 100 pods probed by exec every second vs none, and probe latency vs bare ExecSync.
bench-probes: node deps build images
	NODEAGENT_IMAGES=$(abspath $(IMAGES_DIR)) $(BUN) bench/probes.ts

# `nodeagent staticpod lint` over 2400 generated static pods: single process and --jobs 2, against yaml.parse.
bench-lint: deps build
	$(BUN) bench/lint.ts

# The scheduler on scheduler_perf's shapes (5000 nodes; SchedulingBasic, TopologySpreading,
# SchedulingPodAntiAffinity), binding into memory: pods/s and the ratio to upstream's thresholds.
bench-schedule: deps
	$(BUN) bench/schedule.ts

# Refresh proto/ from Debian's cri-api package and regenerate the TypeScript types.
proto: deps
	bash scripts/refresh-cri-proto.sh

clean:
	rm -rf dist .cache
