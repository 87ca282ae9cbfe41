import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpSource, type HttpSourceOptions } from "../../src/config/http-source";
import { PodConfig, type SourceReport } from "../../src/config/pod-config";
import { MAX_PODS_PER_SOURCE } from "../../src/config/source-limits";
import { FakeClock } from "../../src/util/clock";
import { fakeLoader, manifest, quietLog } from "./fake-loader";

/** A manifest server on 127.0.0.1 whose answer the test sets; it records the requests it saw. */
function manifestServer() {
  const state = { status: 200, body: manifest("web"), hang: false };
  const requests: { method: string; headers: Headers }[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      requests.push({ method: req.method, headers: new Headers(req.headers) });
      if (state.hang) return new Promise<Response>(() => {});
      return new Response(state.body, { status: state.status });
    },
  });
  servers.push(server);
  return { state, requests, server, url: `http://127.0.0.1:${server.port}/pods` };
}

const servers: ReturnType<typeof Bun.serve>[] = [];
const sources: HttpSource[] = [];

afterEach(() => {
  for (const s of sources.splice(0)) s.stop();
  for (const s of servers.splice(0)) s.stop(true);
});

function httpSource(url: string, opts: Partial<HttpSourceOptions> = {}) {
  const clock = new FakeClock();
  const src = new HttpSource({ url, nodeName: "node1", loader: fakeLoader, clock, log: quietLog(), ...opts });
  sources.push(src);
  return { clock, src };
}

const names = (s: SourceReport) => s.pods.map((p) => p.metadata?.name);
const uids = (s: SourceReport) => s.pods.map((p) => p.metadata?.uid);
const messages = (s: SourceReport) => s.errors.map((e) => e.message);

async function waitFor(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

describe("HttpSource", () => {
  test("GETs the URL with every configured header value and loads a Pod", async () => {
    const { url, requests } = manifestServer();
    const { src } = httpSource(url, { headers: { "X-Token": ["abc"], Accept: ["application/json", "application/yaml"] } });
    const snap = await src.scan();
    expect(snap).toMatchObject({ source: "http", errors: [], complete: true });
    expect(names(snap)).toEqual(["web-node1"]);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.method).toBe("GET");
    expect(requests[0]!.headers.get("x-token")).toBe("abc");
    expect(requests[0]!.headers.get("accept")).toBe("application/json, application/yaml");
  });

  test("the loader decides on a PodList; its pods are named with the origin http", async () => {
    const { url, state } = manifestServer();
    state.body = JSON.stringify({
      items: [
        { name: "a", image: "x" },
        { name: "b", image: "y" },
      ],
    });
    const { src } = httpSource(url);
    expect(names(await src.scan())).toEqual(["a-node1", "b-node1"]);
  });

  test("identical bytes are not decoded again", async () => {
    const { url, state } = manifestServer();
    const { src } = httpSource(url);
    const first = await src.scan();
    expect(await src.scan()).toEqual(first);
    expect(src.stats).toMatchObject({ requests: 2, loads: 1 });
    state.body = manifest("web", "nginx");
    const second = await src.scan();
    expect(src.stats.loads).toBe(2);
    expect(uids(second)).not.toEqual(uids(first));
  });

  test("a non-200 answer is an error and keeps the pods served last; its body is not read", async () => {
    const { url, state } = manifestServer();
    const { src } = httpSource(url);
    const good = await src.scan();
    state.status = 503;
    state.body = "upstream down";
    const snap = await src.scan();
    expect(uids(snap)).toEqual(uids(good));
    expect(messages(snap)).toEqual([`GET ${url}: 503 Service Unavailable`]);
    expect(snap.errors[0]!.file).toBe(url);
    state.status = 200;
    state.body = manifest("web");
    expect(await src.scan()).toEqual(good);
  });

  test("an unreachable URL keeps the pods it served; the same body afterwards clears the error", async () => {
    const { url, server } = manifestServer();
    const port = server.port;
    const { src } = httpSource(url);
    const good = await src.scan();
    server.stop(true);
    const down = await src.scan();
    expect(uids(down)).toEqual(uids(good));
    expect(down.errors).toHaveLength(1);
    expect(down.errors[0]!.message).toStartWith(`GET ${url}: `);
    const again = Bun.serve({ hostname: "127.0.0.1", port, fetch: () => new Response(manifest("web")) });
    servers.push(again);
    expect(await src.scan()).toEqual(good);
  });

  test("unreachable before any answer: an error, and the source is not complete (not seen)", async () => {
    const { url, server } = manifestServer();
    server.stop(true);
    const { src } = httpSource(url);
    const snap = await src.scan();
    expect(snap.pods).toEqual([]);
    expect(snap.complete).toBe(false);
    expect(snap.errors).toHaveLength(1);
  });

  test("a body that does not load keeps the last pods and reports the errors; before any good body it is not complete", async () => {
    const { url, state } = manifestServer();
    state.body = "INVALID";
    const { src } = httpSource(url);
    const first = await src.scan();
    expect(first).toMatchObject({ pods: [], complete: false });
    expect(messages(first)).toEqual(["INVALID marker found"]);
    state.body = manifest("web");
    const good = await src.scan();
    expect(good.complete).toBe(true);
    state.body = '{"name": "web"}';
    const bad = await src.scan();
    expect(uids(bad)).toEqual(uids(good));
    expect(bad.errors.map((e) => e.field)).toEqual(["spec.containers[0].image"]);
    expect(bad.complete).toBe(true);
  });

  test("an empty or blank body is an error that keeps the pods (the kubelet would remove them all)", async () => {
    const { url, state } = manifestServer();
    const { src } = httpSource(url);
    const good = await src.scan();
    for (const body of ["", "  \n\t\r\n"]) {
      state.body = body;
      const empty = await src.scan();
      expect(uids(empty)).toEqual(uids(good));
      expect(empty.complete).toBe(true);
      expect(messages(empty)).toEqual([`GET ${url}: empty body (${body.length} bytes); keeping the last good pods (serve an empty PodList to remove them)`]);
      expect(src.problems()[0]).toStartWith(`GET ${url}: empty body`);
      expect(src.problems()[0]).toContain("keeping the 1 pod(s) it served last");
    }
    // An empty PodList is how the URL removes its pods.
    state.body = JSON.stringify({ items: [] });
    const none = await src.scan();
    expect(none).toMatchObject({ pods: [], errors: [], complete: true });
    expect(src.problems()).toEqual([]);
    state.body = manifest("web");
    expect(await src.scan()).toEqual(good);
  });

  test("before any good answer, an empty body is not a set: the source is not complete", async () => {
    const { url, state } = manifestServer();
    state.body = "";
    const { src } = httpSource(url);
    expect(await src.scan()).toMatchObject({ pods: [], complete: false });
  });

  test("a request without an answer times out after 10 s", async () => {
    const { url, state } = manifestServer();
    const { src, clock } = httpSource(url);
    const good = await src.scan();
    state.hang = true;
    const pending = src.scan();
    let settled = false;
    void pending.then(() => (settled = true));
    await clock.advance(9_999);
    expect(settled).toBe(false);
    await clock.advance(1);
    const snap = await pending;
    expect(uids(snap)).toEqual(uids(good));
    expect(messages(snap)).toEqual([`GET ${url}: no answer within 10s`]);
  });

  test("polls every 20 s after the previous poll ended and emits only when something changed", async () => {
    const { url, state, requests } = manifestServer();
    const { src, clock } = httpSource(url);
    const snaps: SourceReport[] = [];
    src.start((s) => snaps.push(s));
    await waitFor(() => snaps.length === 1, "the first poll");
    expect(names(snaps[0]!)).toEqual(["web-node1"]);

    await clock.advance(19_999);
    expect(requests).toHaveLength(1);
    await clock.advance(1);
    await waitFor(() => src.stats.requests === 2 && !src.busy, "the second poll to end");
    expect(snaps).toHaveLength(1);

    state.body = manifest("api", "nginx");
    await clock.advance(20_000);
    await waitFor(() => snaps.length === 2 && !src.busy, "the changed body");
    expect(names(snaps[1]!)).toEqual(["api-node1"]);

    state.status = 500;
    await clock.advance(20_000);
    await waitFor(() => snaps.length === 3, "the error");
    expect(names(snaps[2]!)).toEqual(["api-node1"]);
    expect(snaps[2]!.errors).toHaveLength(1);

    src.stop();
    expect(clock.pending()).toBe(0);
  });
});

describe("HttpSource, limits", () => {
  /** Serves `total` bytes of spaces in 64 KiB chunks, counting what the stream handed over. */
  function streamingServer(total: number) {
    const served = { bytes: 0, cancelled: false };
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        if (new URL(req.url).pathname === "/with-length") return new Response(new Uint8Array(total).fill(0x20));
        return new Response(
          new ReadableStream({
            pull(c) {
              if (served.bytes >= total) return c.close();
              c.enqueue(chunk);
              served.bytes += chunk.length;
            },
            cancel() {
              served.cancelled = true;
            },
          }),
        );
      },
    });
    servers.push(server);
    return { served, base: `http://127.0.0.1:${server.port}` };
  }

  test("a Content-Length over the limit is refused before reading; the pods stay", async () => {
    const { url, state } = manifestServer();
    const big = streamingServer(8 * 1024 * 1024);
    let target = url;
    const { src } = httpSource(url, { maxBodyBytes: 64 * 1024, fetch: (_u, init) => fetch(target, init) });
    const good = await src.scan();
    target = `${big.base}/with-length`;
    const snap = await src.scan();
    expect(uids(snap)).toEqual(uids(good));
    expect(messages(snap)).toEqual([`GET ${url}: Content-Length ${8 * 1024 * 1024} is over the 65536-byte limit: not read; keeping the last good pods`]);
    expect(src.stats.loads).toBe(1);
    // The same good body afterwards: back to clean, not decoded again.
    target = url;
    state.body = manifest("web");
    expect(await src.scan()).toEqual(good);
    expect(src.stats.loads).toBe(1);
  });

  test("a streamed body is cut off once past the limit, never decoded, and the pods stay", async () => {
    const { url } = manifestServer();
    const total = 64 * 1024 * 1024;
    const big = streamingServer(total);
    let target = url;
    const { src } = httpSource(url, { maxBodyBytes: 256 * 1024, fetch: (_u, init) => fetch(target, init) });
    const good = await src.scan();
    target = `${big.base}/stream`;
    const snap = await src.scan();
    expect(uids(snap)).toEqual(uids(good));
    expect(snap.errors).toHaveLength(1);
    expect(snap.errors[0]!.message).toMatch(/^GET .*: the body is over the 262144-byte limit: stopped reading after \d+ bytes; keeping the last good pods$/);
    const readUpTo = Number(/after (\d+) bytes/.exec(snap.errors[0]!.message)![1]);
    // Past the limit by at most what one read of the socket delivers, nowhere near the whole body.
    expect(readUpTo).toBeGreaterThan(256 * 1024);
    expect(readUpTo).toBeLessThan(2 * 1024 * 1024);
    expect(src.stats.loads).toBe(1);
    await waitFor(() => big.served.cancelled, "the server's stream to be cancelled");
    expect(big.served.bytes).toBeLessThan(total / 2);
  });

  test(`a PodList of more than ${MAX_PODS_PER_SOURCE} pods is an error that keeps the last good set`, async () => {
    const { url, state } = manifestServer();
    const { src } = httpSource(url);
    const good = await src.scan();
    state.body = JSON.stringify({ items: Array.from({ length: MAX_PODS_PER_SOURCE + 1 }, (_, i) => ({ name: `p${i}`, image: "x" })) });
    const snap = await src.scan();
    expect(uids(snap)).toEqual(uids(good));
    expect(messages(snap)).toEqual([
      `the body has ${MAX_PODS_PER_SOURCE + 1} pods, over the limit of ${MAX_PODS_PER_SOURCE} pods per source; keeping the last good pods`,
    ]);
    state.body = JSON.stringify({ items: Array.from({ length: MAX_PODS_PER_SOURCE }, (_, i) => ({ name: `p${i}`, image: "x" })) });
    expect((await src.scan()).pods).toHaveLength(MAX_PODS_PER_SOURCE);
  });
});

describe("HttpSource, last good set across restarts", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });
  async function stateDir(): Promise<string> {
    const d = await mkdtemp(join(tmpdir(), "nodeagent-http-state-"));
    dirs.push(d);
    return join(d, "sources");
  }

  test("restarted while the URL is unreachable, serves an empty body or an invalid one: the same pods (same UIDs), complete", async () => {
    const dir = await stateDir();
    const { url, state, server } = manifestServer();
    state.body = JSON.stringify({
      items: [
        { name: "a", image: "x" },
        { name: "b", image: "y" },
      ],
    });
    const first = httpSource(url, { stateDir: dir });
    const good = await first.src.scan();
    first.src.stop();
    expect((await stat(join(dir, "http.json"))).mode & 0o777).toBe(0o600);

    for (const body of ["", "INVALID"]) {
      state.body = body;
      const again = httpSource(url, { stateDir: dir });
      const snap = await again.src.scan();
      expect(uids(snap)).toEqual(uids(good));
      expect(snap.complete).toBe(true);
      expect(snap.errors).toHaveLength(1);
      again.src.stop();
    }
    server.stop(true);
    const down = httpSource(url, { stateDir: dir });
    const snap = await down.src.scan();
    expect(uids(snap)).toEqual(uids(good));
    expect(snap.complete).toBe(true);
    expect(snap.errors[0]!.message).toStartWith(`GET ${url}: `);
    expect(down.src.problems()).toHaveLength(1);
    expect(down.src.problems()[0]).toContain("keeping the 2 pod(s) it served last");
    // Through PodConfig: the very pods of before, so their containers are adopted.
    const config = new PodConfig({ clock: down.clock, log: quietLog() });
    config.apply(snap);
    expect(config.pods().map((p) => p.metadata?.uid)).toEqual(uids(good));
    expect(config.seenAllSources(["http"])).toBe(true);
  });

  test("the same body at start is not decoded again; a new good body replaces the state", async () => {
    const dir = await stateDir();
    const { url, state } = manifestServer();
    const first = httpSource(url, { stateDir: dir });
    const good = await first.src.scan();
    first.src.stop();
    const second = httpSource(url, { stateDir: dir });
    expect(await second.src.scan()).toEqual(good);
    expect(second.src.stats.loads).toBe(0);
    state.body = manifest("api", "nginx");
    const changed = await second.src.scan();
    second.src.stop();
    state.body = "INVALID";
    const third = httpSource(url, { stateDir: dir });
    expect(uids(await third.src.scan())).toEqual(uids(changed));
  });

  test("the state of another URL is not used: not complete until the first good answer", async () => {
    const dir = await stateDir();
    const { url, server } = manifestServer();
    const first = httpSource(url, { stateDir: dir });
    await first.src.scan();
    first.src.stop();
    server.stop(true);
    const other = httpSource(`${url}?other`, { stateDir: dir });
    expect(await other.src.scan()).toMatchObject({ pods: [], complete: false });
  });

  test("an unreadable state file is reported; not complete until the first good answer, which rewrites it", async () => {
    const dir = await stateDir();
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, "http.json"),
      JSON.stringify({ apiVersion: "nodeagent.io/v1", kind: "SourceState", source: "http", location: "x", entries: { x: { pods: "no" } } }),
    );
    const { url, state } = manifestServer();
    state.body = "";
    const { src } = httpSource(url, { stateDir: dir });
    expect(src.problems()).toHaveLength(1);
    expect(src.problems()[0]).toContain("not usable");
    expect((await src.scan()).complete).toBe(false);
    state.body = manifest("web");
    expect((await src.scan()).complete).toBe(true);
    expect(src.problems()).toEqual([]);
    expect(JSON.parse(await readFile(join(dir, "http.json"), "utf8")).location).toBe(url);
  });
});
