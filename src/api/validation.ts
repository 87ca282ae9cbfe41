// Pod validation as the kubelet runs it on a static pod before accepting it: the subset of
// ValidatePodCreate (k/k pkg/apis/core/validation/validation.go) that decides whether a pod can run
// on a node, with the field paths and the wording of apimachinery's field.Error, so that a message
// here reads exactly like the one `kubectl apply` or the kubelet's log would print. This file holds
// the entry point and the pod-level spec fields; metadata, volumes, containers (env, resources,
// probes) and security contexts each have their validate-*.ts. The static pod API-reference rule
// (PreventStaticPodAPIReferences) is separate, in static-pod-references.ts.
import { isIP } from "node:net";
import type { Pod, PodSpec } from "kubernetes-types/core/v1";
import { child, type FieldError, forbidden, index, invalid, notSupported, required } from "./field-error";
import { inclusiveRangeError, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from "./name-validation";
import { validateContainers, validateInitContainers } from "./validate-containers";
import type { PodValidationOptions } from "./validate-env";
import { validateLabels, validateMetadata } from "./validate-metadata";
import { validateSecurityContexts } from "./validate-security-context";
import { validateVolumes } from "./validate-volumes";

export type { PodValidationOptions } from "./validate-env";

const RESTART_POLICIES = ["Always", "OnFailure", "Never"];
const DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

function validateTolerations(spec: PodSpec, errs: FieldError[]): void {
  (spec.tolerations ?? []).forEach((t, i) => {
    const idx = index("spec.tolerations", i);
    const k = t.key ?? "";
    if (k) for (const m of isQualifiedName(k)) errs.push(invalid(child(idx, "key"), k, m));
    if (!k && t.operator !== "Exists") {
      errs.push(invalid(child(idx, "operator"), t.operator ?? "", 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && t.effect !== "NoExecute") {
      errs.push(invalid(child(idx, "effect"), t.effect ?? "", "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    const op = t.operator ?? "";
    if (op === "Equal" || op === "") {
      const msgs = isValidLabelValue(t.value ?? "");
      if (msgs.length > 0) errs.push(invalid(child(idx, "operator"), t.value ?? "", msgs.join(";")));
    } else if (op === "Exists") {
      if (t.value) errs.push(invalid(child(idx, "operator"), t.value, "value must be empty when `operator` is 'Exists'"));
    } else {
      errs.push(notSupported(child(idx, "operator"), op, ["Equal", "Exists"]));
    }
    if (t.effect && !TAINT_EFFECTS.includes(t.effect)) errs.push(notSupported(child(idx, "effect"), t.effect, TAINT_EFFECTS));
  });
}

function validateDNSConfig(spec: PodSpec, errs: FieldError[]): void {
  const path = "spec.dnsConfig";
  const cfg = spec.dnsConfig;
  if (spec.dnsPolicy === "None") {
    if (!cfg) {
      errs.push(required(path, "must provide `dnsConfig` when `dnsPolicy` is None"));
      return;
    }
    if ((cfg.nameservers ?? []).length === 0) {
      errs.push(required(child(path, "nameservers"), "must provide at least one DNS nameserver when `dnsPolicy` is None"));
      return;
    }
  }
  if (!cfg) return;
  const ns = cfg.nameservers ?? [];
  if (ns.length > 3) errs.push(invalid(child(path, "nameservers"), ns, "must not have more than 3 nameservers"));
  ns.forEach((n, i) => {
    if (isIP(n) === 0) errs.push(invalid(index(child(path, "nameservers"), i), n, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
  });
  const searches = cfg.searches ?? [];
  if (searches.length > 32) errs.push(invalid(child(path, "searches"), searches, "must not have more than 32 search paths"));
  if (searches.join(" ").length > 2048) {
    errs.push(invalid(child(path, "searches"), searches, "must not have more than 2048 characters (including spaces) in the search list"));
  }
  (cfg.options ?? []).forEach((o, i) => {
    if (!o.name) errs.push(required(index(child(path, "options"), i), "must not be empty"));
  });
}

function validateSpec(pod: Pod, opts: Required<PodValidationOptions>, errs: FieldError[]): void {
  const spec: PodSpec = pod.spec ?? { containers: [] };
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) {
    errs.push(required("spec.terminationGracePeriodSeconds"));
  }
  const volumes = validateVolumes(spec.volumes ?? [], "spec.volumes", errs);
  validateContainers(spec, volumes, opts, errs);
  validateInitContainers(spec, volumes, opts, errs);
  validateSecurityContexts(pod, errs);
  // ValidatePodCreate: ephemeral containers are added through a subresource, never on create.
  if ((spec.ephemeralContainers ?? []).length > 0) errs.push(forbidden("spec.ephemeralContainers", "cannot be set on create"));

  // validatePodHostNetworkDeps: a Pod (ResourceIsPod) must have hostPort == containerPort.
  if (spec.hostNetwork) {
    (spec.containers ?? []).forEach((c, i) => {
      (c.ports ?? []).forEach((p, j) => {
        if ((p.hostPort ?? 0) !== p.containerPort) {
          errs.push(invalid(`spec.containers[${i}].ports[${j}].hostPort`, p.hostPort ?? 0, "must match `containerPort` when `hostNetwork` is true"));
        }
      });
    });
  }
  const rp = spec.restartPolicy ?? "";
  if (!rp) errs.push(required("spec.restartPolicy"));
  else if (!RESTART_POLICIES.includes(rp)) errs.push(notSupported("spec.restartPolicy", rp, RESTART_POLICIES));
  const dp = spec.dnsPolicy ?? "";
  if (!dp) errs.push(required("spec.dnsPolicy"));
  else if (!DNS_POLICIES.includes(dp)) errs.push(notSupported("spec.dnsPolicy", dp, DNS_POLICIES));
  validateLabels(spec.nodeSelector, "spec.nodeSelector", errs);
  validateDNSConfig(spec, errs);
  if (spec.serviceAccountName) {
    for (const m of isDNS1123Subdomain(spec.serviceAccountName)) errs.push(invalid("spec.serviceAccountName", spec.serviceAccountName, m));
  }
  if (spec.nodeName) for (const m of isDNS1123Subdomain(spec.nodeName)) errs.push(invalid("spec.nodeName", spec.nodeName, m));
  const ads = spec.activeDeadlineSeconds;
  if (ads !== undefined && ads !== null && (ads < 1 || ads > 2147483647)) {
    errs.push(invalid("spec.activeDeadlineSeconds", ads, inclusiveRangeError(1, 2147483647)));
  }
  if (spec.hostname) for (const m of isDNS1123Label(spec.hostname)) errs.push(invalid("spec.hostname", spec.hostname, m));
  if (spec.subdomain) for (const m of isDNS1123Label(spec.subdomain)) errs.push(invalid("spec.subdomain", spec.subdomain, m));
  validateTolerations(spec, errs);
  if (spec.priorityClassName) {
    for (const m of isDNS1123Subdomain(spec.priorityClassName)) errs.push(invalid("spec.priorityClassName", spec.priorityClassName, m));
  }
  if (spec.runtimeClassName !== undefined && spec.runtimeClassName !== null) {
    for (const m of isDNS1123Subdomain(spec.runtimeClassName)) errs.push(invalid("spec.runtimeClassName", spec.runtimeClassName, m));
  }
  const pp = spec.preemptionPolicy;
  if (pp !== undefined && pp !== null) {
    if (!pp) errs.push(required("spec.preemptionPolicy"));
    else if (pp !== "PreemptLowerPriority" && pp !== "Never") errs.push(notSupported("spec.preemptionPolicy", pp, ["PreemptLowerPriority", "Never"]));
  }
  // ValidatePodCreate: a bound pod may not carry scheduling gates; the kubelet always binds static pods.
  if (spec.nodeName && (spec.schedulingGates ?? []).length > 0) {
    errs.push(forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared"));
  }
  // validateContainersOnlyForPod.
  for (const [list, path] of [
    [spec.containers ?? [], "spec.containers"],
    [spec.initContainers ?? [], "spec.initContainers"],
  ] as const) {
    list.forEach((c, i) => {
      const image = c.image ?? "";
      if (image !== image.trim()) errs.push(invalid(child(index(path, i), "image"), image, "must not have leading or trailing whitespace"));
    });
  }
}

/**
 * Validates a defaulted pod the way ValidatePodCreate does, in the same order, and returns every
 * error with Kubernetes' field path and wording. For a static pod, call it after the kubelet's own
 * defaulting (name suffix, namespace, nodeName), as the kubelet does.
 */
export function validatePod(pod: Pod, options: PodValidationOptions = {}): FieldError[] {
  const opts: Required<PodValidationOptions> = { relaxedEnvVarNames: options.relaxedEnvVarNames ?? true };
  const errs: FieldError[] = [];
  validateMetadata(pod, errs);
  validateSpec(pod, opts, errs);
  return errs;
}
