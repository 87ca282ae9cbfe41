// src/hollow owns hollow nodes (`nodeagent hollow`): many real nodes of a cluster in one process, each the
// whole agent — sync loop, pod workers, PLEG, probes, status manager, Lease, Node status, events — over
// an in-memory runtime, cgroup tree and host, sharing one clock, one runtime schedule and one HTTP pool.
export { HollowFleet, type FleetStatus } from "./hollow-fleet";
export { hollowAddresses, MAX_HOLLOW_NODES, type HollowAddresses } from "./hollow-addresses";
export { parseCapacity, type HollowCapacity, type HollowOptions } from "./hollow-options";
