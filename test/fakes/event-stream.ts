// A GetContainerEvents stream a test drives (the fake runtime's containerEvents): the in-memory
// runtime's own stream, whose push, fail and close a test calls directly.
export { MemoryEventStream as FakeEventStream } from "../../src/cri/memory-events";
