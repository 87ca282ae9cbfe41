import { describe, expect, test } from "bun:test";
import type { Event } from "kubernetes-types/core/v1";
import { eventTable, filterEvents, humanAge } from "../../cmd/events";

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const ev = ({ ns, objKind, name, ...o }: Partial<Event> & { ns?: string; objKind?: string; name?: string }): Event => ({
  metadata: { name: `${name ?? "web"}.1`, namespace: ns ?? "default" },
  involvedObject: { kind: objKind ?? "Pod", name: name ?? "web" },
  type: "Normal",
  count: 1,
  firstTimestamp: "2026-01-01T11:59:30Z",
  lastTimestamp: "2026-01-01T11:59:30Z",
  ...o,
});

describe("nodeagent events", () => {
  test("ages as kubectl prints them", () => {
    expect([45_000, 150_000, 300_000, 3_600_000, 5 * 3_600_000 + 60_000, 72 * 3_600_000].map(humanAge)).toEqual(["45s", "2m30s", "5m", "60m", "5h1m", "3d"]);
  });

  test("the table: LAST SEEN with (xN over AGE) for a repeat, kind/name, the message", () => {
    const table = eventTable(
      [
        ev({ reason: "Started", message: "Started container app" }),
        ev({
          reason: "BackOff",
          type: "Warning",
          message: "Back-off restarting failed container",
          count: 4,
          firstTimestamp: "2026-01-01T11:55:00Z",
          lastTimestamp: "2026-01-01T11:59:50Z",
        }),
      ],
      NOW,
      { namespaces: true, header: true },
    );
    expect(table.split("\n")).toEqual([
      "NAMESPACE   LAST SEEN          TYPE      REASON    OBJECT    MESSAGE",
      "default     30s                Normal    Started   pod/web   Started container app",
      "default     10s (x4 over 5m)   Warning   BackOff   pod/web   Back-off restarting failed container",
      "",
    ]);
  });

  test("--for NAME is a pod, KIND/NAME any object; -n a namespace; a bad --for is a usage error", () => {
    const events = [
      ev({ name: "web", reason: "A" }),
      ev({ name: "db", reason: "B" }),
      ev({ objKind: "Node", name: "n1", reason: "Starting" }),
      ev({ ns: "kube-system", name: "web", reason: "C" }),
    ];
    expect(filterEvents(events, { forObject: "web" }).map((e) => e.reason)).toEqual(["A", "C"]);
    expect(filterEvents(events, { forObject: "web", namespace: "default" }).map((e) => e.reason)).toEqual(["A"]);
    expect(filterEvents(events, { forObject: "node/n1" }).map((e) => e.reason)).toEqual(["Starting"]);
    expect(() => filterEvents(events, { forObject: "a/b/c" })).toThrow(/use NAME \(a pod\) or KIND\/NAME/);
  });
});
