// The one fake ServiceLister (src/objects/types.ts), for the env and agent tests: services a test adds,
// changes and removes by hand, "not yet listed" until the test says so when it starts unsynced, and
// a count of the lists (to check that a pod that must wait does not read them).
import type { Service, ServicePort } from "kubernetes-types/core/v1";
import type { ServiceLister } from "../../src/objects/types";

export class FakeServiceLister implements ServiceLister {
  readonly description = "a fake service lister";
  readonly services = new Map<string, Service>();
  synced: boolean;
  lists = 0;
  closed = false;

  /** Synced (with no services) unless `{ synced: false }`. */
  constructor(o: { synced?: boolean } = {}) {
    this.synced = o.synced ?? true;
  }

  /** Adds or replaces a service: a ClusterIP one with these ports, headless with "None", ExternalName with "". */
  put(namespace: string, name: string, clusterIP: string, ports: ServicePort[] = []): Service {
    const service: Service = { apiVersion: "v1", kind: "Service", metadata: { name, namespace }, spec: { clusterIP, ports } };
    this.services.set(`${namespace}/${name}`, service);
    return service;
  }

  remove(namespace: string, name: string): void {
    this.services.delete(`${namespace}/${name}`);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  list(): readonly Service[] {
    this.lists++;
    return [...this.services.values()].map((s) => structuredClone(s));
  }

  close(): void {
    this.closed = true;
  }
}
