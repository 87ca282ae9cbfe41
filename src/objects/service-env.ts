// The service-link variables of a container: which services a pod sees (the kubelet's
// getServiceEnvVarMap, k/k@1.24.1 pkg/kubelet/kubelet_pods.go) and the variables each one gives
// (FromServices, pkg/kubelet/envvars/envvars.go).
//
// Which services: only those with a cluster IP (not "" — ExternalName — and not "None" — headless:
// v1helper.IsServiceIPSet); of those, the master service `kubernetes` of the `default` namespace
// always, even with enableServiceLinks false (in-cluster clients find the API server through
// KUBERNETES_SERVICE_HOST/PORT), and every service of the pod's own namespace when enableServiceLinks
// is not false. A service named `kubernetes` in the pod's own namespace wins over the master one (the
// kubelet adds the master one only where the name is still free, and a namespace service always).
//
// What each service gives, its name upper-cased with "-" as "_" (makeEnvVariableName), for
// `redis-primary` at 10.96.0.11 with port 6379 named "client" (TCP):
//   REDIS_PRIMARY_SERVICE_HOST=10.96.0.11
//   REDIS_PRIMARY_SERVICE_PORT=6379                   (the first port)
//   REDIS_PRIMARY_SERVICE_PORT_CLIENT=6379            (every named port)
//   REDIS_PRIMARY_PORT=tcp://10.96.0.11:6379          (docker links: the first port…)
//   REDIS_PRIMARY_PORT_6379_TCP=tcp://10.96.0.11:6379 (…then per port: the URL,
//   REDIS_PRIMARY_PORT_6379_TCP_PROTO=tcp              the protocol,
//   REDIS_PRIMARY_PORT_6379_TCP_PORT=6379              the port,
//   REDIS_PRIMARY_PORT_6379_TCP_ADDR=10.96.0.11        the address)
// The protocol defaults to TCP; an IPv6 address is bracketed in the URLs (net.JoinHostPort).
import type { Service } from "kubernetes-types/core/v1";

/** The master services (the kubelet's masterServices) and their namespace (--master-service-namespace's default). */
export const MASTER_SERVICES: readonly string[] = ["kubernetes"];
export const MASTER_SERVICE_NAMESPACE = "default";

/** The kubelet's message while the services have not been listed (makeEnvironmentVariables). */
export const SERVICES_NOT_SYNCED = "services have not yet been read at least once, cannot construct envvars";

/** v1helper.IsServiceIPSet: a cluster IP that is neither empty (ExternalName) nor "None" (headless). */
export function isServiceIPSet(service: Service): boolean {
  const ip = service.spec?.clusterIP ?? "";
  return ip !== "" && ip !== "None";
}

/** makeEnvVariableName: upper case, "-" as "_" (1.24 leaves dots and leading digits as they are). */
export function envVariableName(name: string): string {
  return name.replaceAll("-", "_").toUpperCase();
}

/** net.JoinHostPort: an address with a colon (IPv6) is bracketed. */
function joinHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * FromServices: the variables of each service that has a cluster IP, in the services' order. A
 * service with a cluster IP and no port (which validation does not let through) gives none: the
 * kubelet would index its first port.
 */
export function envVarsFromServices(services: readonly Service[]): Array<{ name: string; value: string }> {
  const result: Array<{ name: string; value: string }> = [];
  for (const service of services) {
    const ports = service.spec?.ports ?? [];
    if (!isServiceIPSet(service) || ports.length === 0) continue;
    const ip = service.spec!.clusterIP!;
    const prefix = envVariableName(service.metadata?.name ?? "");
    result.push({ name: `${prefix}_SERVICE_HOST`, value: ip });
    const portName = `${prefix}_SERVICE_PORT`;
    result.push({ name: portName, value: String(ports[0]!.port) });
    // Every named port (validation lets only the first be unnamed).
    for (const sp of ports) if (sp.name) result.push({ name: `${portName}_${envVariableName(sp.name)}`, value: String(sp.port) });
    // Docker-link variables (makeLinkVariables).
    ports.forEach((sp, i) => {
      const protocol = sp.protocol || "TCP";
      const url = `${protocol.toLowerCase()}://${joinHostPort(ip, sp.port)}`;
      if (i === 0) result.push({ name: `${prefix}_PORT`, value: url }); // Docker special-cases the first port.
      const portPrefix = `${prefix}_PORT_${sp.port}_${protocol.toUpperCase()}`;
      result.push(
        { name: portPrefix, value: url },
        { name: `${portPrefix}_PROTO`, value: protocol.toLowerCase() },
        { name: `${portPrefix}_PORT`, value: String(sp.port) },
        { name: `${portPrefix}_ADDR`, value: ip },
      );
    });
  }
  return result;
}

/**
 * getServiceEnvVarMap: the service-link variables a pod of `namespace` gets (see the top of the file).
 * The kubelet walks its lister in no fixed order; the services are taken here by namespace and name,
 * so the same services always give the same variables in the same order.
 */
export function serviceEnvVarMap(services: readonly Service[], namespace: string, enableServiceLinks: boolean): Map<string, string> {
  const chosen = new Map<string, Service>();
  const sorted = [...services].sort((a, b) => compare(keyOf(a), keyOf(b)));
  for (const service of sorted) {
    if (!isServiceIPSet(service)) continue;
    const name = service.metadata?.name ?? "";
    const ns = service.metadata?.namespace ?? "";
    if (ns === MASTER_SERVICE_NAMESPACE && MASTER_SERVICES.includes(name)) {
      if (!chosen.has(name)) chosen.set(name, service);
    } else if (ns === namespace && enableServiceLinks) {
      chosen.set(name, service);
    }
  }
  const byName = [...chosen.values()].sort((a, b) => compare(a.metadata?.name ?? "", b.metadata?.name ?? ""));
  return new Map(envVarsFromServices(byName).map((e) => [e.name, e.value]));
}

const keyOf = (s: Service) => `${s.metadata?.namespace ?? ""}/${s.metadata?.name ?? ""}`;
/** By code unit, as Go compares strings (not by locale). */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
