// A recorder that keeps what it was given, for the managers' unit tests: each event's object,
// type, reason and message, in order.
import type { ObjectReference } from "kubernetes-types/core/v1";
import type { EventRecorder, EventType } from "../../src/events/types";

export interface RecordedEvent {
  ref: ObjectReference;
  type: EventType;
  reason: string;
  message: string;
}

export class FakeRecorder implements EventRecorder {
  readonly events: RecordedEvent[] = [];

  event(ref: ObjectReference, type: EventType, reason: string, message: string): void {
    this.events.push({ ref, type, reason, message });
  }

  /** "Type Reason: message" lines, the easiest thing to compare. */
  lines(): string[] {
    return this.events.map((e) => `${e.type} ${e.reason}: ${e.message}`);
  }

  reasons(): string[] {
    return this.events.map((e) => e.reason);
  }
}
