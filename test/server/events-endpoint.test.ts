// GET /events: the node's recent events as a v1 EventList, behind the same gate as /pods.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { EventList } from "kubernetes-types/core/v1";
import { AgentMetrics } from "../../src/server/metrics";
import { startAgentServer, type AgentServer } from "../../src/server/server";
import { FakeAgentView } from "../fakes/agent-view";

const silent = { info() {}, warn() {}, error() {}, debug() {} };
const TOKEN = "s3cret-token";

describe("GET /events", () => {
  let view: FakeAgentView;
  let server: AgentServer;
  beforeAll(async () => {
    view = new FakeAgentView();
    view.eventList = [
      {
        metadata: { name: "web.1", namespace: "default" },
        involvedObject: { kind: "Pod", name: "web" },
        reason: "Started",
        message: "Started container app",
        count: 1,
        type: "Normal",
      },
    ];
    server = await startAgentServer({ address: "127.0.0.1", port: 0, token: TOKEN, view, metrics: new AgentMetrics(), log: silent });
  });
  afterAll(async () => {
    await server.stop();
  });

  test("answers the view's events as an EventList", async () => {
    const res = await fetch(`${server.url}/events`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    const list = (await res.json()) as EventList;
    expect(list.kind).toBe("EventList");
    expect(list.apiVersion).toBe("v1");
    expect(list.items.map((e) => `${e.reason}: ${e.message}`)).toEqual(["Started: Started container app"]);
  });

  test("needs the credentials /pods needs", async () => {
    expect((await fetch(`${server.url}/events`)).status).toBe(401);
    expect((await fetch(`${server.url}/pods`)).status).toBe(401);
  });

  test("only GET", async () => {
    const res = await fetch(`${server.url}/events`, { method: "POST", headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(405);
  });
});
