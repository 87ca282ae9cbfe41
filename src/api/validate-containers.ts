// spec.containers and spec.initContainers as validateContainers and validateInitContainers check them:
// each container's name, image, ports, env, volume mounts, pull policy and resources, unique names
// and host ports, and which containers may carry probes, lifecycle hooks and a restartPolicy.
import type { Container, PodSpec } from "kubernetes-types/core/v1";
import { child, duplicate, type FieldError, forbidden, index, invalid, notFound, notSupported, required } from "./field-error";
import { isDNS1123Label, isValidPortName, isValidPortNum } from "./name-validation";
import { type PodValidationOptions, validateEnv, validateEnvFrom } from "./validate-env";
import { validateLifecycleAndProbes } from "./validate-handlers";
import { validateResources } from "./validate-resources";
import { validateLocalDescendingPath } from "./validate-volumes";

const PORT_PROTOCOLS = ["SCTP", "TCP", "UDP"];
const PULL_POLICIES = ["Always", "IfNotPresent", "Never"];
const TERMINATION_MESSAGE_POLICIES = ["File", "FallbackToLogsOnError"];
const MOUNT_PROPAGATION_MODES = ["Bidirectional", "HostToContainer", "None"];

function validatePorts(c: Container, path: string, errs: FieldError[]): void {
  const names = new Set<string>();
  (c.ports ?? []).forEach((port, i) => {
    const idx = index(path, i);
    if (port.name) {
      const msgs = isValidPortName(port.name);
      if (msgs.length > 0) for (const m of msgs) errs.push(invalid(child(idx, "name"), port.name, m));
      else if (names.has(port.name)) errs.push(duplicate(child(idx, "name"), port.name));
      else names.add(port.name);
    }
    if (!port.containerPort) errs.push(required(child(idx, "containerPort")));
    else for (const m of isValidPortNum(port.containerPort)) errs.push(invalid(child(idx, "containerPort"), port.containerPort, m));
    if (port.hostPort) for (const m of isValidPortNum(port.hostPort)) errs.push(invalid(child(idx, "hostPort"), port.hostPort, m));
    if (!port.protocol) errs.push(required(child(idx, "protocol")));
    else if (!PORT_PROTOCOLS.includes(port.protocol)) errs.push(notSupported(child(idx, "protocol"), port.protocol, PORT_PROTOCOLS));
  });
}

function validateVolumeMounts(c: Container, volumes: Map<string, Record<string, unknown>>, path: string, errs: FieldError[]): void {
  const mountPoints = new Set<string>();
  (c.volumeMounts ?? []).forEach((m, i) => {
    const idx = index(path, i);
    if (!m.name) errs.push(required(child(idx, "name")));
    const vol = volumes.get(m.name ?? "");
    if (!vol) errs.push(notFound(child(idx, "name"), m.name ?? ""));
    if (!m.mountPath) errs.push(required(child(idx, "mountPath")));
    if (mountPoints.has(m.mountPath ?? "")) errs.push(invalid(child(idx, "mountPath"), m.mountPath ?? "", "must be unique"));
    mountPoints.add(m.mountPath ?? "");
    if (vol && vol.image !== undefined && vol.image !== null) {
      if (m.subPath) errs.push(invalid(child(idx, "subPath"), m.subPath, "not allowed in image volume sources"));
      if (m.subPathExpr) errs.push(invalid(child(idx, "subPathExpr"), m.subPathExpr, "not allowed in image volume sources"));
    }
    // Upstream passes the list path, not the item path, for these two (validateLocalDescendingPath).
    if (m.subPath) errs.push(...validateLocalDescendingPath(m.subPath, child(path, "subPath")));
    if (m.subPathExpr) {
      if (m.subPath) errs.push(invalid(child(idx, "subPathExpr"), m.subPathExpr, "subPathExpr and subPath are mutually exclusive"));
      errs.push(...validateLocalDescendingPath(m.subPathExpr, child(path, "subPathExpr")));
    }
    if (m.mountPropagation !== undefined && m.mountPropagation !== null) {
      const propPath = child(path, "mountPropagation");
      if (!MOUNT_PROPAGATION_MODES.includes(m.mountPropagation)) {
        errs.push(notSupported(propPath, m.mountPropagation, MOUNT_PROPAGATION_MODES));
      } else if (m.mountPropagation === "Bidirectional" && c.securityContext?.privileged !== true) {
        errs.push(forbidden(propPath, "Bidirectional mount propagation is available only to privileged containers"));
      }
    }
  });
}

function validateContainerCommon(
  c: Container,
  volumes: Map<string, Record<string, unknown>>,
  path: string,
  opts: Required<PodValidationOptions>,
  errs: FieldError[],
): void {
  if (!c.name) errs.push(required(child(path, "name")));
  else for (const m of isDNS1123Label(c.name)) errs.push(invalid(child(path, "name"), c.name, m));
  if (!c.image) errs.push(required(child(path, "image")));
  const tmp = c.terminationMessagePolicy;
  if (!tmp) errs.push(required(child(path, "terminationMessagePolicy")));
  else if (!TERMINATION_MESSAGE_POLICIES.includes(tmp)) {
    errs.push(notSupported(child(path, "terminationMessagePolicy"), tmp, TERMINATION_MESSAGE_POLICIES));
  }
  validatePorts(c, child(path, "ports"), errs);
  validateEnv(c.env ?? [], child(path, "env"), opts, errs);
  validateEnvFrom(c, child(path, "envFrom"), opts, errs);
  validateVolumeMounts(c, volumes, child(path, "volumeMounts"), errs);
  const pull = c.imagePullPolicy;
  if (!pull) errs.push(required(child(path, "imagePullPolicy")));
  else if (!PULL_POLICIES.includes(pull)) errs.push(notSupported(child(path, "imagePullPolicy"), pull, PULL_POLICIES));
  validateResources(c.resources, child(path, "resources"), errs);
}

/** AccumulateUniqueHostPorts: "<protocol>/<hostIP>/<hostPort>" must be unique. */
function checkHostPortConflicts(containers: Container[], path: string, errs: FieldError[]): void {
  const seen = new Set<string>();
  containers.forEach((c, ci) => {
    (c.ports ?? []).forEach((p, pi) => {
      if (!p.hostPort) return;
      const k = `${p.protocol ?? ""}/${p.hostIP ?? ""}/${p.hostPort}`;
      if (seen.has(k)) errs.push(duplicate(child(index(child(index(path, ci), "ports"), pi), "hostPort"), k));
      else seen.add(k);
    });
  });
}

export function validateContainers(
  spec: PodSpec,
  volumes: Map<string, Record<string, unknown>>,
  opts: Required<PodValidationOptions>,
  errs: FieldError[],
): void {
  const path = "spec.containers";
  const containers = spec.containers ?? [];
  if (containers.length === 0) {
    errs.push(required(path));
    return;
  }
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const idx = index(path, i);
    validateContainerCommon(c, volumes, idx, opts, errs);
    if (names.has(c.name ?? "")) errs.push(duplicate(child(idx, "name"), c.name ?? ""));
    else names.add(c.name ?? "");
    validateLifecycleAndProbes(c, spec.terminationGracePeriodSeconds, idx, errs);
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) errs.push(forbidden(child(idx, "restartPolicy"), "may not be set for non-init containers"));
  });
  checkHostPortConflicts(containers, path, errs);
}

export function validateInitContainers(
  spec: PodSpec,
  volumes: Map<string, Record<string, unknown>>,
  opts: Required<PodValidationOptions>,
  errs: FieldError[],
): void {
  const path = "spec.initContainers";
  const names = new Set((spec.containers ?? []).map((c) => c.name ?? ""));
  (spec.initContainers ?? []).forEach((c, i) => {
    const idx = index(path, i);
    validateContainerCommon(c, volumes, idx, opts, errs);
    let restartAlways = false;
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) {
      if (c.restartPolicy !== "Always") errs.push(notSupported(child(idx, "restartPolicy"), c.restartPolicy, ["Always"]));
      restartAlways = c.restartPolicy === "Always";
    }
    if (names.has(c.name ?? "")) errs.push(duplicate(child(idx, "name"), c.name ?? ""));
    else if (c.name) names.add(c.name);
    // Init containers run one at a time, so only their own ports can collide.
    checkHostPortConflicts([c], path, errs);
    if (restartAlways) {
      validateLifecycleAndProbes(c, spec.terminationGracePeriodSeconds, idx, errs);
    } else {
      for (const f of ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"] as const) {
        if (c[f]) errs.push(forbidden(child(idx, f), "may not be set for init containers without restartPolicy=Always"));
      }
    }
  });
}
