// The API sink against the in-process test API server with the node's own credentials, as the
// kubelet writes events: create and patch are allowed (system:node), list is not.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Event } from "kubernetes-types/core/v1";
import { EventBroadcaster, containerReference, nodeReference } from "../../src/events";
import { ApiEventSink } from "../../src/events/api-event-sink";
import { apiErrorCode } from "../../src/kube/errors";
import { count, heartbeatEnv, type HeartbeatEnv } from "../cluster/node-heartbeat-env";

let env: HeartbeatEnv;
beforeEach(async () => {
  env = await heartbeatEnv("n1");
});
afterEach(async () => {
  await env.close();
});

const pod = { metadata: { name: "web", namespace: "default", uid: "u-1" }, spec: { containers: [{ name: "app" }] } };

function storedEvents(): Event[] {
  return env.api.store.list("events") as unknown as Event[];
}

describe("ApiEventSink", () => {
  test("a new event is a POST, a repeat a PATCH of count and lastTimestamp; node events land in default", async () => {
    const b = new EventBroadcaster({ clock: env.clock, log: env.log });
    b.startRecordingToSink("api", new ApiEventSink(env.client));
    const r = b.newRecorder({ component: "kubelet", host: "n1" });
    r.event(nodeReference("n1"), "Normal", "Starting", "Starting kubelet.");
    r.event(containerReference(pod, "app"), "Warning", "BackOff", "Back-off restarting failed container");
    await b.idle();
    await env.clock.advance(20_000);
    r.event(containerReference(pod, "app"), "Warning", "BackOff", "Back-off restarting failed container");
    await b.idle();
    expect(env.warnings).toEqual([]);
    expect(count(env.api, "create", "events")).toBe(2);
    expect(count(env.api, "patch", "events")).toBe(1);
    const byReason = new Map(storedEvents().map((e) => [e.reason, e]));
    expect(byReason.get("Starting")).toMatchObject({
      metadata: { namespace: "default" },
      involvedObject: { kind: "Node", name: "n1", uid: "n1" },
      source: { component: "kubelet", host: "n1" },
      count: 1,
    });
    expect(byReason.get("BackOff")).toMatchObject({
      type: "Warning",
      count: 2,
      firstTimestamp: "2026-01-01T00:00:00Z",
      lastTimestamp: "2026-01-01T00:00:20Z",
      involvedObject: { kind: "Pod", name: "web", uid: "u-1", fieldPath: "spec.containers{app}" },
    });
    expect(byReason.get("BackOff")!.metadata.name).toMatch(/^web\.[0-9a-f]+$/);
  });

  test("an event deleted on the server is created again at its next repeat", async () => {
    const b = new EventBroadcaster({ clock: env.clock, log: env.log });
    b.startRecordingToSink("api", new ApiEventSink(env.client));
    const r = b.newRecorder({ component: "kubelet", host: "n1" });
    r.event(containerReference(pod, "app"), "Warning", "BackOff", "m");
    await b.idle();
    const [e] = storedEvents();
    env.api.store.delete("events", "default", e!.metadata.name!);
    r.event(containerReference(pod, "app"), "Warning", "BackOff", "m");
    await b.idle();
    expect(storedEvents().map((x) => x.count)).toEqual([2]);
  });

  test("the node may not list events (the Node authorizer)", async () => {
    const err = await env.client.getJson("/api/v1/namespaces/default/events").catch((e: unknown) => e);
    expect(apiErrorCode(err)).toBe(403);
  });
});
