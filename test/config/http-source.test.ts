import { afterEach, describe, expect, test } from "bun:test";
import { HttpSource, type HttpSourceOptions } from "../../src/config/http-source";
import type { SourceReport } from "../../src/config/pod-config";
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
    state.body = JSON.stringify({ items: [{ name: "a", image: "x" }, { name: "b", image: "y" }] });
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

  test("a non-200 answer is an error and keeps the pods served last", async () => {
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

  test("an empty body is an empty set and an error, as the kubelet; the old body later brings the pods back", async () => {
    const { url, state } = manifestServer();
    const { src } = httpSource(url);
    const good = await src.scan();
    state.body = "";
    const empty = await src.scan();
    expect(empty.pods).toEqual([]);
    expect(empty.complete).toBe(true);
    expect(messages(empty)).toEqual([`zero-length data received from ${url}`]);
    state.body = manifest("web");
    expect(await src.scan()).toEqual(good);
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
