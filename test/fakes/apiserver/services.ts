// What kube-apiserver does to a Service (k/k@1.24.1 pkg/registry/core/service/storage/{storage,alloc}.go,
// pkg/apis/core/v1/defaults.go SetDefaults_Service, pkg/apis/core/validation ValidateService): the
// defaults, a cluster IP allocated from the service CIDR when none is given (kubeadm's 10.96.0.0/12,
// chosen at random as the bitmap allocator does), a given one checked against the range and the IPs
// in use, the cluster IP kept on update, and the master service `kubernetes` in `default` that the
// API server's bootstrap controller keeps (the first IP of the range, port 443 "https").
import type { Service } from "kubernetes-types/core/v1";
import type { AnyObject } from "./objects";
import { resourceByKey } from "./resources";
import { target } from "./registry";
import { invalid, type ApiError } from "./status";

/** --service-cluster-ip-range (kubeadm's default). */
export const SERVICE_CIDR = "10.96.0.0/12";
const BASE = ipToInt("10.96.0.0");
const SIZE = 1 << 20;

/** The master service as the bootstrap controller creates it (pkg/controlplane/controller.go CreateOrUpdateMasterServiceIfNeeded). */
export const MASTER_SERVICE: Service = {
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "kubernetes", namespace: "default", labels: { component: "apiserver", provider: "kubernetes" } },
  spec: { type: "ClusterIP", clusterIP: intToIp(BASE + 1), ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: 6443 }], sessionAffinity: "None" },
};

function ipToInt(ip: string): number {
  return ip.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

function intToIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
}

const isIPv4 = (s: string) => /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(s) && s.split(".").every((p) => Number(p) <= 255);

const fail = (name: string | undefined, field: string, type: "FieldValueRequired" | "FieldValueInvalid", message: string): ApiError =>
  invalid(target(resourceByKey("services"), name), "Service", [{ field, type, message }]);

/**
 * Create: defaults, validation and the cluster IP. `inUse` are the cluster IPs of the services that exist.
 * Headless ("None") and ExternalName services get no IP.
 */
export function prepareServiceCreate(obj: AnyObject, inUse: ReadonlySet<string>): AnyObject {
  const svc = obj as unknown as Service;
  const name = svc.metadata?.name;
  const spec = { ...svc.spec };
  spec.type ||= "ClusterIP";
  spec.sessionAffinity ||= "None";
  const external = spec.type === "ExternalName";
  if (external) {
    if (!spec.externalName) throw fail(name, "spec.externalName", "FieldValueRequired", "Required value");
  } else if (spec.clusterIP !== "None" && !spec.ports?.length) {
    throw fail(name, "spec.ports", "FieldValueRequired", "Required value");
  }
  spec.ports = (spec.ports ?? []).map((p) => ({ ...p, protocol: p.protocol || "TCP", targetPort: p.targetPort ?? p.port }));
  if (!external) {
    const given = spec.clusterIP || spec.clusterIPs?.[0] || "";
    if (given === "None") spec.clusterIP = "None";
    else if (given) {
      if (!isIPv4(given))
        throw fail(name, "spec.clusterIPs[0]", "FieldValueInvalid", `Invalid value: "${given}": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`);
      const n = ipToInt(given);
      if (n <= BASE || n >= BASE + SIZE - 1) {
        throw fail(
          name,
          "spec.clusterIPs",
          "FieldValueInvalid",
          `Invalid value: []string{"${given}"}: failed to allocate IP ${given}: provided IP (${given}) is not in the valid range. The range of valid IPs is ${SERVICE_CIDR}`,
        );
      }
      if (inUse.has(given))
        throw fail(
          name,
          "spec.clusterIPs",
          "FieldValueInvalid",
          `Invalid value: []string{"${given}"}: failed to allocate IP ${given}: provided IP is already allocated`,
        );
      spec.clusterIP = given;
    } else spec.clusterIP = allocate(inUse);
    spec.clusterIPs = [spec.clusterIP];
    spec.ipFamilies = ["IPv4"];
    spec.ipFamilyPolicy = "SingleStack";
    spec.internalTrafficPolicy ||= "Cluster";
  }
  return { ...obj, spec, status: { loadBalancer: {} } } as AnyObject;
}

/** A free IP of the range, at random (not the network address nor the broadcast one). */
function allocate(inUse: ReadonlySet<string>): string {
  for (let tries = 0; tries < 10_000; tries++) {
    const ip = intToIp(BASE + 1 + Math.floor(Math.random() * (SIZE - 2)));
    if (!inUse.has(ip)) return ip;
  }
  throw new Error("test apiserver: no free service IP");
}

/**
 * Update: a cluster IP left out is kept (the registry's patchAllocatedValues), a changed one is refused
 * (`spec.clusterIPs[0]: Invalid value: []string{"…"}: may not change once set`); the defaults again.
 */
export function prepareServiceUpdate(old: AnyObject, next: AnyObject): AnyObject {
  const o = (old as unknown as Service).spec ?? {};
  const spec = { ...(next as unknown as Service).spec };
  if (o.type !== "ExternalName" && spec.type !== "ExternalName" && o.clusterIP) {
    const wanted = spec.clusterIP || spec.clusterIPs?.[0] || "";
    if (wanted && wanted !== o.clusterIP)
      throw fail(next.metadata?.name, "spec.clusterIPs[0]", "FieldValueInvalid", `Invalid value: []string{"${wanted}"}: may not change once set`);
    Object.assign(spec, { clusterIP: o.clusterIP, clusterIPs: o.clusterIPs, ipFamilies: o.ipFamilies, ipFamilyPolicy: o.ipFamilyPolicy });
  }
  spec.type ||= o.type ?? "ClusterIP";
  spec.sessionAffinity ||= "None";
  spec.ports = (spec.ports ?? []).map((p) => ({ ...p, protocol: p.protocol || "TCP", targetPort: p.targetPort ?? p.port }));
  if (spec.type !== "ExternalName") spec.internalTrafficPolicy ||= "Cluster";
  return { ...next, spec } as AnyObject;
}
