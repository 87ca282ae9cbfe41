// The client half of `nodeagent logs` (default container, query) and the server's query decoding.
import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { errorBodyMessage } from "../../src/client/agent-client";
import { defaultContainer, type LogQueryError, logsQuery, parsePodLogOptions } from "../../src/logs";
import { logOptionsOf } from "../../cmd/logs";

const pod = (containers: string[], inits: string[] = [], annotation?: string): Pod => ({
  metadata: { name: "web", ...(annotation ? { annotations: { "kubectl.kubernetes.io/default-container": annotation } } : {}) },
  spec: { containers: containers.map((name) => ({ name })), initContainers: inits.map((name) => ({ name })) },
});

describe("the default container (kubectl's rule)", () => {
  test("the only container", () => expect(defaultContainer(pod(["app"], ["init"]))).toBe("app"));
  test("the annotation's, when it names one of the pod's containers", () => {
    expect(defaultContainer(pod(["app", "sidecar"], [], "sidecar"))).toBe("sidecar");
    expect(() => defaultContainer(pod(["app", "sidecar"], [], "gone"))).toThrow("choose one of");
  });
  test("several and no annotation: an error naming them, init containers apart", () => {
    expect(() => defaultContainer(pod(["app", "sidecar"], ["init"]))).toThrow(
      "a container name must be specified for pod web, choose one of: [app sidecar] or one of the init containers: [init]",
    );
  });
});

describe("the query", () => {
  test("the command's flags become the kubelet's query; only what differs from the defaults is sent", () => {
    expect(logsQuery(logOptionsOf({}))).toBe("");
    expect(logsQuery(logOptionsOf({ tail: "-1" }))).toBe("");
    expect(logsQuery(logOptionsOf({ follow: true, previous: true, timestamps: true, tail: "5", since: "2m", "limit-bytes": "100" }))).toBe(
      "?follow=true&previous=true&timestamps=true&tailLines=5&limitBytes=100&sinceSeconds=120",
    );
    expect(logOptionsOf({ since: "200ms" }).sinceSeconds).toBe(1);
    expect(() => logOptionsOf({ tail: "-2" })).toThrow("--tail");
    expect(() => logOptionsOf({ since: "soon" })).toThrow("--since");
  });

  test("round trip: what the client sends, the server decodes", () => {
    const o = { follow: true, timestamps: true, tailLines: 3, sinceSeconds: 60 };
    expect(parsePodLogOptions(new URL(`http://x/${logsQuery(o)}`).searchParams)).toEqual(o);
  });

  test("booleans as apimachinery decodes them: false only for 0 or false", () => {
    const b = (q: string) => parsePodLogOptions(new URLSearchParams(q)).follow;
    expect([b("follow=true"), b("follow=1"), b("follow="), b("follow=yes"), b("follow=0"), b("follow=FALSE"), b("")]).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
      undefined,
    ]);
  });

  test("decoding and validation errors carry the kubelet's status", () => {
    const err = (q: string) => {
      try {
        parsePodLogOptions(new URLSearchParams(q));
      } catch (e) {
        return (e as LogQueryError).status;
      }
      return 200;
    };
    expect([err("tailLines=1.5"), err("limitBytes=-3"), err("sinceSeconds=0"), err("sinceTime=2026-01-01T00:00:00Z"), err("tail=all")]).toEqual([
      400, 422, 422, 200, 200,
    ]);
  });

  test("an error body: a v1 Status's message, or the kubelet's text as it is", () => {
    expect(errorBodyMessage('{"kind":"Status","message":"Unauthorized: x"}')).toBe("Unauthorized: x");
    expect(errorBodyMessage('pod "web" does not exist')).toBe('pod "web" does not exist');
    expect(errorBodyMessage('{"message": "Unable to decode query."}')).toBe('{"message": "Unable to decode query."}');
  });
});
