// `nodeagent probe run` (the compiled binary) against real containers on containerd 1.6 and 1.7:
// busybox httpd for httpGet, a persistent `nc -ll` for tcpSocket, CRI ExecSync for exec; each kind
// passing, failing and timing out, ad hoc and from the pod spec; exit codes and -o json.
// Busybox has no gRPC server, so the grpc probes go ad hoc to a grpc.health.v1 server that this test
// runs on 127.0.0.1. The pod spec that --probe reads comes from a stand-in for the agent's
// `GET /pods/<ns>/<name>` served by this test on 127.0.0.1: the pods here are made directly through
// CRI (with the kubelet's labels), so no agent holds their specs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import type { Server } from "bun";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { REDACTED } from "../../src/server/redact";
import { healthServiceDefinition, type HealthCheckRequest, type HealthCheckResponse } from "../../src/prober/grpc";
import { freePort } from "../prober/fakes";
import { BINARY, startNode, type TestNode } from "./node";
import { runContainer, runSandbox, type TestPod } from "./pods";
import { eventually } from "./proc";

interface Attempt {
  attempt: number;
  probe: string;
  handler: string;
  target: string;
  pod?: string;
  container?: string;
  containerID?: string;
  result: "success" | "failure" | "error";
  latencyMs: number;
  reason: string;
  run: number;
  settled: boolean;
  verdict: string;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  attempts: Attempt[];
}

/** Runs `nodeagent probe run ARGS` to its end. */
async function probeRun(node: TestNode, args: string[], agent?: string): Promise<Run> {
  const proc = Bun.spawn([BINARY, "probe", "run", "--runtime-endpoint", node.endpoint, ...(agent ? ["--agent", agent] : []), ...args], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const attempts = stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Attempt);
  return { code, stdout, stderr, attempts };
}

const HTTPD = "mkdir -p /www && echo ok > /www/healthz && touch /tmp/healthy && exec httpd -f -p 8080 -h /www";

for (const version of ["1.6", "1.7"] as const) {
  describe(`probe run on containerd ${version}`, () => {
    let node: TestNode;
    let web: TestPod;
    let webIP = "";
    let hostPod: TestPod;
    let hostPort = 0;
    let agentApi: Server<undefined>;
    let agentUrl = "";
    /** The Authorization header of the stand-in's last request, and a spec to serve instead of the real one. */
    let lastAuthorization: string | null = null;
    let servedSpec: Pod | undefined;
    let spec: Pod;
    let health: grpc.Server;
    let healthPort = 0;

    beforeAll(async () => {
      node = await startNode(version);
      web = await runSandbox(node, "web");
      webIP = (await node.client.podSandboxStatus(web.sandboxId)).status.network?.ip ?? "";
      await runContainer(node.client, web, "httpd", ["sh", "-c", HTTPD]);
      // A TCP server that accepts any number of connections; another that accepts and never answers.
      await runContainer(node.client, web, "tcp", ["nc", "-ll", "-p", "9000", "-e", "true"]);
      await runContainer(node.client, web, "silent", ["nc", "-ll", "-p", "8081", "-e", "sleep", "30"]);
      hostPort = await freePort();
      hostPod = await runSandbox(node, "hostweb", { hostNetwork: true });
      await runContainer(node.client, hostPod, "httpd", ["sh", "-c", HTTPD.replace("8080", `127.0.0.1:${hostPort}`)]);
      await eventually("httpd in the pod to answer", async () => (await fetch(`http://${webIP}:8080/healthz`)).ok);
      await eventually("httpd on the host network to answer", async () => (await fetch(`http://127.0.0.1:${hostPort}/healthz`)).ok);

      // The agent's API as --probe reads it: the pod spec with its probes.
      spec = {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "web", namespace: "e2e", uid: web.uid },
        spec: {
          containers: [
            {
              name: "httpd",
              image: "busybox",
              ports: [{ name: "http", containerPort: 8080 }],
              readinessProbe: { httpGet: { port: "http", path: "/healthz" }, periodSeconds: 1 },
              livenessProbe: { exec: { command: ["cat", "/tmp/healthy"] }, periodSeconds: 1, failureThreshold: 2 },
              startupProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 },
            },
            {
              name: "tcp",
              image: "busybox",
              readinessProbe: { httpGet: { port: 8080, path: "/missing" }, periodSeconds: 1, failureThreshold: 2 },
              livenessProbe: { tcpSocket: { port: 9000 }, periodSeconds: 1 },
            },
            { name: "silent", image: "busybox", readinessProbe: { exec: { command: ["sleep", "5"] }, timeoutSeconds: 1 } },
          ],
        },
      };
      agentApi = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: (req) => {
          lastAuthorization = req.headers.get("authorization");
          const path = new URL(req.url).pathname;
          // An agent with a push token answers reads without it with 401.
          if (path === "/pods/e2e/locked") return Response.json({ kind: "Status", code: 401 }, { status: 401 });
          return path === "/pods/e2e/web" ? Response.json(servedSpec ?? spec) : Response.json({ kind: "Status", code: 404 }, { status: 404 });
        },
      });
      agentUrl = `http://127.0.0.1:${agentApi.port}`;

      health = new grpc.Server();
      health.addService(healthServiceDefinition(), {
        Check(call: grpc.ServerUnaryCall<HealthCheckRequest, HealthCheckResponse>, cb: grpc.sendUnaryData<HealthCheckResponse>) {
          cb(null, { status: call.request.service === "down" ? "NOT_SERVING" : "SERVING" });
        },
      });
      healthPort = await new Promise<number>((resolve, reject) =>
        health.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
      );
    }, 120_000);

    afterAll(async () => {
      agentApi?.stop(true);
      health?.forceShutdown();
      await node?.stop();
    });

    test("httpGet ad hoc: 200 passes at once (exit 0); 404 fails after failureThreshold attempts (exit 1); no answer times out", async () => {
      const ok = await probeRun(node, ["--pod", "e2e/web", "--container", "httpd", "--http-get", ":8080/healthz", "-o", "json"]);
      expect(ok.code).toBe(0);
      expect(ok.attempts).toMatchObject([
        {
          attempt: 1,
          probe: "readiness",
          handler: "httpGet",
          target: `http://${webIP}:8080/healthz`,
          pod: "e2e/web",
          container: "httpd",
          result: "success",
          verdict: "success",
          settled: true,
        },
      ]);
      expect(ok.attempts[0]!.reason).toBe("ok\n");

      const missing = await probeRun(node, ["--pod", "e2e/web", "--container", "httpd", "--http-get", ":8080/missing", "--period", "200ms", "-o", "json"]);
      expect(missing.code).toBe(1);
      expect(missing.attempts.map((a) => [a.result, a.run, a.verdict])).toEqual([
        ["failure", 1, "failure"],
        ["failure", 2, "failure"],
        ["failure", 3, "failure"],
      ]);
      expect(missing.attempts[0]!.reason).toBe("HTTP probe failed with statuscode: 404");

      const silent = await probeRun(node, [
        "--pod",
        "e2e/web",
        "--container",
        "silent",
        "--http-get",
        ":8081/",
        "--timeout",
        "500ms",
        "--count",
        "1",
        "-o",
        "json",
      ]);
      expect(silent.code).toBe(1);
      expect(silent.attempts[0]).toMatchObject({
        result: "failure",
        reason: `Get "http://${webIP}:8081/": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
      });
      expect(silent.attempts[0]!.latencyMs).toBeGreaterThanOrEqual(500);
      expect(silent.attempts[0]!.latencyMs).toBeLessThan(1500);
    }, 60_000);

    test("tcpSocket ad hoc: an open port passes, a closed one fails, an address that never answers times out", async () => {
      const open = await probeRun(node, ["--pod", "e2e/web", "--container", "tcp", "--tcp", ":9000", "-o", "json"]);
      expect(open.code).toBe(0);
      expect(open.attempts).toMatchObject([{ handler: "tcpSocket", target: `${webIP}:9000`, result: "success" }]);

      const closed = await probeRun(node, ["--pod", "e2e/web", "--container", "tcp", "--tcp", ":9001", "--count", "2", "--period", "100ms", "-o", "json"]);
      expect(closed.code).toBe(1);
      expect(closed.attempts.map((a) => a.reason)).toEqual([
        `dial tcp ${webIP}:9001: connect: connection refused`,
        `dial tcp ${webIP}:9001: connect: connection refused`,
      ]);

      // An unused address on this node's own pod bridge: ARP goes unanswered, the connect never completes.
      const nobody = webIP.replace(/\.\d+$/, ".250");
      const silent = await probeRun(node, [
        "--pod",
        "e2e/web",
        "--container",
        "tcp",
        "--tcp",
        `${nobody}:9000`,
        "--timeout",
        "500ms",
        "--count",
        "1",
        "-o",
        "json",
      ]);
      expect(silent.code).toBe(1);
      expect(silent.attempts).toMatchObject([{ result: "failure", reason: `dial tcp ${nobody}:9000: i/o timeout (after 500ms)` }]);
    }, 60_000);

    test("exec through CRI ExecSync: exit 0 passes, exit 1 fails with its output, a command past the timeout fails", async () => {
      const ok = await probeRun(node, ["--pod", "e2e/web", "--container", "httpd", "-o", "json", "--exec", "--", "cat", "/tmp/healthy"]);
      expect(ok.code).toBe(0);
      expect(ok.attempts).toMatchObject([{ handler: "exec", target: "cat /tmp/healthy", result: "success" }]);

      const bad = await probeRun(node, [
        "--pod",
        "e2e/web",
        "--container",
        "httpd",
        "--probe",
        "liveness",
        "--failure-threshold",
        "1",
        "-o",
        "json",
        "--exec",
        "--",
        "cat",
        "/tmp/nope",
      ]);
      expect(bad.code).toBe(1);
      expect(bad.attempts).toMatchObject([{ probe: "liveness", result: "failure", verdict: "failure" }]);
      expect(bad.attempts[0]!.reason).toStartWith("command 'cat /tmp/nope' exited with 1: cat: can't open '/tmp/nope'");

      const slow = await probeRun(node, [
        "--pod",
        "e2e/web",
        "--container",
        "httpd",
        "--timeout",
        "1s",
        "--count",
        "1",
        "-o",
        "json",
        "--exec",
        "--",
        "sleep",
        "5",
      ]);
      expect(slow.code).toBe(1);
      expect(slow.attempts).toMatchObject([{ result: "failure", reason: 'command "sleep 5" timed out' }]);
      expect(slow.attempts[0]!.latencyMs).toBeLessThan(3000);
    }, 60_000);

    test("grpc ad hoc against a health server on 127.0.0.1: SERVING passes, NOT_SERVING fails, a closed port times out", async () => {
      const ok = await probeRun(node, ["--grpc", `127.0.0.1:${healthPort}/db`, "-o", "json"]);
      expect(ok.code).toBe(0);
      expect(ok.attempts).toMatchObject([{ handler: "grpc", target: `127.0.0.1:${healthPort}/db`, result: "success", reason: "service healthy" }]);

      const down = await probeRun(node, ["--grpc", `127.0.0.1:${healthPort}/down`, "--failure-threshold", "1", "-o", "json"]);
      expect(down.code).toBe(1);
      expect(down.attempts).toMatchObject([{ result: "failure", reason: 'service unhealthy (responded with "NOT_SERVING")' }]);

      const port = await freePort();
      const closed = await probeRun(node, ["--grpc", `127.0.0.1:${port}`, "--timeout", "300ms", "--count", "1", "-o", "json"]);
      expect(closed.code).toBe(1);
      expect(closed.attempts[0]!.reason).toBe(`timeout: failed to connect service "127.0.0.1:${port}" within 300ms: context deadline exceeded`);
    }, 60_000);

    test("by spec, read from the agent's API: readiness httpGet on a named port, liveness exec, startup tcpSocket", async () => {
      const readiness = await probeRun(node, ["--pod", "e2e/web", "--container", "httpd", "--probe", "readiness", "-o", "json"], agentUrl);
      expect(readiness.code).toBe(0);
      expect(readiness.attempts).toMatchObject([{ probe: "readiness", handler: "httpGet", target: `http://${webIP}:8080/healthz`, result: "success" }]);

      const liveness = await probeRun(
        node,
        ["--pod", "e2e/web", "--container", "httpd", "--probe", "liveness", "--count", "2", "--period", "200ms", "-o", "json"],
        agentUrl,
      );
      expect(liveness.code).toBe(0);
      expect(liveness.attempts.map((a) => [a.handler, a.target, a.result])).toEqual([
        ["exec", "cat /tmp/healthy", "success"],
        ["exec", "cat /tmp/healthy", "success"],
      ]);

      const startup = await probeRun(node, ["--pod", "e2e/web", "--container", "httpd", "--probe", "startup", "-o", "json"], agentUrl);
      expect(startup.code).toBe(0);
      expect(startup.attempts).toMatchObject([{ probe: "startup", handler: "tcpSocket", target: `${webIP}:8080`, verdict: "success" }]);

      // The spec's thresholds apply: failureThreshold 2, period 1s.
      const failing = await probeRun(node, ["--pod", "e2e/web", "--container", "tcp", "--probe", "readiness", "-o", "json"], agentUrl);
      expect(failing.code).toBe(1);
      expect(failing.attempts.map((a) => [a.result, a.run, a.settled])).toEqual([
        ["failure", 1, false],
        ["failure", 2, true],
      ]);
      expect(failing.stderr).toContain("period=1s timeout=1s successThreshold=1 failureThreshold=2");

      // The spec's timeoutSeconds: 1 against a command that takes 5 s.
      const slow = await probeRun(node, ["--pod", "e2e/web", "--container", "silent", "--probe", "readiness", "--count", "1", "-o", "json"], agentUrl);
      expect(slow.code).toBe(1);
      expect(slow.attempts).toMatchObject([{ handler: "exec", result: "failure", reason: 'command "sleep 5" timed out' }]);

      const table = await probeRun(node, ["--pod", "e2e/web", "--container", "tcp", "--probe", "liveness"], agentUrl);
      expect(table.code).toBe(0);
      expect(table.stdout).toMatch(/^TIME +ATTEMPT +RESULT +LATENCY +VERDICT +REASON\n/);
      expect(table.stdout).toContain("verdict: success (1 success in a row reached successThreshold 1)");
    }, 60_000);

    test("--token-file: the spec is read with the agent's token; a 401 and redacted header values are explained", async () => {
      const dir = mkdtempSync(join(tmpdir(), "na-probe-token-"));
      try {
        const tokenFile = join(dir, "token");
        writeFileSync(tokenFile, "probe-e2e-token\n", { mode: 0o600 });
        const withToken = await probeRun(
          node,
          ["--pod", "e2e/web", "--container", "httpd", "--probe", "readiness", "--token-file", tokenFile, "-o", "json"],
          agentUrl,
        );
        expect(withToken.code).toBe(0);
        expect(lastAuthorization).toBe("Bearer probe-e2e-token");

        const locked = await probeRun(node, ["--pod", "e2e/locked", "--container", "httpd", "--probe", "readiness"], agentUrl);
        expect(locked.code).toBe(2);
        expect(locked.stderr).toContain("needs its bearer token to read pods: give --token-file");

        // What an agent without a token serves anonymously: the header's value replaced.
        servedSpec = structuredClone(spec);
        servedSpec.spec!.containers[0]!.readinessProbe!.httpGet!.httpHeaders = [{ name: "Authorization", value: REDACTED }];
        const hidden = await probeRun(node, ["--pod", "e2e/web", "--container", "httpd", "--probe", "readiness"], agentUrl);
        expect(hidden.code).toBe(2);
        expect(hidden.stderr).toContain("hid the HTTP header values of this readiness probe");
        expect(hidden.attempts).toEqual([]);

        // The old spelling still works, with a warning (the agent serves the spec whole again).
        servedSpec = undefined;
        const old = await probeRun(node, ["--pod", "e2e/web", "--container", "httpd", "--probe", "readiness", "--push-token-file", tokenFile], agentUrl);
        expect(old.code).toBe(0);
        expect(old.stderr).toContain("warning: --push-token-file is deprecated for nodeagent probe run: use --token-file");

        chmodSync(tokenFile, 0o644);
        const open = await probeRun(node, ["--pod", "e2e/web", "--container", "httpd", "--probe", "readiness", "--token-file", tokenFile], agentUrl);
        expect(open.code).toBe(2);
        expect(open.stderr).toContain("permissions 0644 are too open");
      } finally {
        servedSpec = undefined;
        rmSync(dir, { recursive: true, force: true });
      }
    }, 60_000);

    test("a host-network pod is probed on 127.0.0.1", async () => {
      const r = await probeRun(node, ["--pod", "e2e/hostweb", "--http-get", `:${hostPort}/healthz`, "-o", "json"]);
      expect(r.code).toBe(0);
      expect(r.attempts).toMatchObject([{ target: `http://127.0.0.1:${hostPort}/healthz`, container: "httpd", result: "success" }]);
    }, 30_000);

    test("lookup and usage errors exit 2 and say what is missing", async () => {
      const noPod = await probeRun(node, ["--pod", "e2e/nosuch", "--tcp", ":80"]);
      expect(noPod.code).toBe(2);
      expect(noPod.stderr).toContain("no running container of pod e2e/nosuch");

      const which = await probeRun(node, ["--pod", "e2e/web", "--tcp", ":80"]);
      expect(which.code).toBe(2);
      expect(which.stderr).toContain("pod e2e/web runs 3 containers (");
      expect(which.stderr).toContain("choose one with --container");

      const noProbe = await probeRun(node, ["--pod", "e2e/web", "--container", "silent", "--probe", "liveness"], agentUrl);
      expect(noProbe.code).toBe(2);
      expect(noProbe.stderr).toContain(`container "silent" of pod e2e/web has no liveness probe`);

      const noAgent = await probeRun(node, ["--pod", "e2e/web", "--container", "httpd", "--probe", "readiness"], `http://127.0.0.1:${await freePort()}`);
      expect(noAgent.code).toBe(2);
      expect(noAgent.stderr).toContain("probes are in the pod spec, which the runtime does not keep");

      const usage = await probeRun(node, ["--tcp", ":80"]);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain("without --pod, give the host to probe");
    }, 60_000);
  });
}
