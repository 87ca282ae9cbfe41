// Every rule the linter has, with its stable id, default severity and documentation: what
// `--list-rules` prints, what SARIF's rule table and the config file refer to. Errors are what the
// kubelet itself rejects (pkg/kubelet/config/common.go, ValidatePodCreate, the static pod API
// references); warnings are what it runs but should not; infos are worth knowing.
import type { Severity } from "./types";

export interface Rule {
  id: string;
  severity: Severity;
  /** One line: what the rule finds. */
  summary: string;
  /** Why it matters, and which Kubernetes behaviour it follows. */
  description: string;
  /** What to do about a finding. */
  hint: string;
  /** Control-plane pods (kubeadm's kube-apiserver, etcd, …) are exempt, as Polaris exempts them. */
  controlPlaneExempt?: true;
}

const rule = (id: string, severity: Severity, summary: string, description: string, hint: string, controlPlaneExempt = false): Rule =>
  controlPlaneExempt ? { id, severity, summary, description, hint, controlPlaneExempt: true } : { id, severity, summary, description, hint };

export const RULES: readonly Rule[] = [
  // ---- the kubelet rejects the file ----
  rule(
    "file-too-large",
    "error",
    "The manifest is larger than the kubelet reads",
    "The kubelet reads at most 10 MB of a manifest (maxConfigLength) and rejects a larger file.",
    "Split the file, or move large data (scripts, certificates) into hostPath files the pod mounts.",
  ),
  rule(
    "yaml-syntax",
    "error",
    "The file is not valid YAML or JSON",
    "The kubelet converts the manifest with sigs.k8s.io/yaml (YAML 1.1) and rejects a file it cannot parse.",
    "Fix the YAML at the position shown; indentation with tabs and unbalanced brackets are the usual causes.",
  ),
  rule(
    "empty-manifest",
    "error",
    "The file holds no document",
    "An empty file (often one half-written by an editor) fails with \"Object 'Kind' is missing in 'null'\".",
    "Write the pod into the file, or remove the file from the manifest directory.",
  ),
  rule(
    "multiple-documents",
    "error",
    "The file holds more than one YAML document",
    "The kubelet decodes only the first document of a static pod file and silently ignores the others.",
    "Put each pod into a file of its own.",
  ),
  rule(
    "not-a-pod",
    "error",
    "The document is not a v1 Pod",
    'A static pod file must hold `apiVersion: v1` and `kind: Pod`; anything else fails with "couldn\'t parse as pod".',
    "Static pod directories hold Pods only: run Deployments and DaemonSets through the API server.",
  ),
  rule(
    "wrong-type",
    "error",
    "A field has a value of the wrong type",
    "The kubelet decodes the pod into Go structs: a string where a number belongs (or a list where a mapping does) fails the whole pod.",
    'Write the value with the type the field has: quote strings such as "yes" and "0644" only where a string is meant.',
  ),
  rule(
    "name-required",
    "error",
    "The pod has no metadata.name",
    'The kubelet rejects a static pod without a name: "name is needed for the pod".',
    "Set metadata.name; the kubelet adds the node name to it.",
  ),
  rule(
    "name-with-node-suffix",
    "error",
    "The name is invalid once the kubelet adds the node name",
    "The kubelet names a static pod <name>-<node name> before it validates it, so the name and the node name together must form a valid DNS subdomain of at most 253 characters.",
    "Shorten metadata.name.",
  ),
  rule(
    "invalid-metadata",
    "error",
    "The pod's name, namespace, labels or annotations are invalid",
    "ValidatePodCreate checks the name (DNS-1123 subdomain), namespace (DNS-1123 label), label keys and values, and annotation keys and their total size (256 KiB).",
    "Use lower-case letters, digits and '-' in names; label values are at most 63 characters.",
  ),
  rule(
    "invalid-container",
    "error",
    "A container's name, image or policy is invalid",
    "Container names must be unique DNS-1123 labels; image is required; imagePullPolicy, terminationMessagePolicy and restartPolicy take fixed values.",
    "Fix the container field named in the message.",
  ),
  rule(
    "invalid-port",
    "error",
    "A container port is invalid or conflicts",
    "Ports must be 1-65535, protocols TCP, UDP or SCTP, port names unique IANA service names, host ports unique per protocol and IP; with hostNetwork, hostPort must equal containerPort.",
    "Fix the port named in the message.",
  ),
  rule(
    "invalid-handler",
    "error",
    "A probe or lifecycle hook is invalid",
    "A probe or hook needs exactly one handler (exec, httpGet, tcpSocket, grpc or sleep) with valid ports; liveness and startup probes need successThreshold 1.",
    "Give the probe or hook one handler and valid numbers.",
  ),
  rule(
    "invalid-env",
    "error",
    "An environment variable is invalid",
    "Env names must be printable ASCII without '='; valueFrom needs exactly one source and no value beside it; fieldRef paths are limited to the pod's own fields.",
    "Fix the env entry named in the message.",
  ),
  rule(
    "invalid-volume",
    "error",
    "A volume is invalid",
    "Volumes need unique DNS-1123 names and exactly one source; hostPath needs an absolute path without '..' and a known type.",
    "Fix the volume named in the message.",
  ),
  rule(
    "invalid-volume-mount",
    "error",
    "A volume mount is invalid",
    "A mount must name a volume of the pod, have a unique mountPath, and use subPath or subPathExpr (relative, no '..') but not both.",
    "Fix the mount named in the message, or add the volume it names.",
  ),
  rule(
    "invalid-resources",
    "error",
    "Resource requests or limits are invalid",
    "Quantities must parse and not be negative, resource names must be known, and a request must not exceed its limit (hugepages and extended resources must equal it).",
    "Write quantities such as 100m, 0.5 or 128Mi, and keep requests at or below limits.",
  ),
  rule(
    "invalid-pod-spec",
    "error",
    "A pod-level field is invalid",
    "restartPolicy, dnsPolicy, dnsConfig, tolerations, hostname and the other PodSpec fields are validated by ValidatePodCreate.",
    "Fix the field named in the message.",
  ),
  rule(
    "ephemeral-containers",
    "error",
    "The pod sets ephemeral containers",
    "Ephemeral containers cannot be set when a pod is created (spec.ephemeralContainers: Forbidden), and static pods do not support them at all.",
    "Remove spec.ephemeralContainers; debug a static pod with `kubectl debug node/...` instead.",
  ),
  rule(
    "scheduling-gates",
    "error",
    "The pod sets scheduling gates",
    'The kubelet binds every static pod to its node, and a bound pod may not have scheduling gates ("cannot be set until all schedulingGates have been cleared").',
    "Remove spec.schedulingGates.",
  ),
  rule(
    "static-pod-api-reference",
    "error",
    "The pod refers to objects of the API server",
    "With PreventStaticPodAPIReferences (on by default since 1.34), the kubelet rejects static pods that name a service account, secret, config map, resource claim, or a volume that needs the API server.",
    "Use hostPath volumes for files and certificates, and put configuration into the manifest or onto the node.",
  ),
  rule(
    "duplicate-pod-name",
    "error",
    "Two files define a pod with the same namespace and name",
    "The kubelet reads every file in the directory; when two define the same pod, which one runs is undefined, so a stale copy can silently win.",
    "Remove or rename one of the two files (a backup kept beside the manifest is the usual cause).",
  ),
  // ---- the kubelet runs it, but it hurts ----
  rule(
    "unknown-field",
    "warning",
    "A field the Pod does not have",
    "The kubelet's decoder is not strict: a misspelt or misplaced field is dropped without a word, so the setting it was meant for has no effect.",
    "Check the spelling and the indentation.",
  ),
  rule(
    "duplicate-key",
    "warning",
    "A key appears twice in one mapping",
    "sigs.k8s.io/yaml keeps one of the two values (which one is not specified), so one of the settings is silently lost.",
    "Remove one of the two keys.",
  ),
  rule(
    "backup-file",
    "warning",
    "A backup or editor file in the manifest directory",
    "The kubelet runs every file in the directory that does not start with a dot, whatever its extension: a `.bak`, `~` or `.swp` file is a pod too.",
    "Move backups out of the manifest directory, or give them a name that starts with a dot.",
  ),
  rule(
    "ignored-directory",
    "info",
    "A subdirectory the kubelet does not read",
    'The kubelet does not recurse into subdirectories of the manifest directory ("not recursing into manifest path").',
    "Move the manifests it holds up into the directory if they are meant to run.",
  ),
  rule(
    "latest-tag",
    "warning",
    "An image without a tag, or tagged latest",
    "The image the pod runs then changes whenever the registry changes, and the pull policy defaults to Always, so a node without registry access cannot start the pod.",
    "Pin the image to a version tag or a digest.",
  ),
  rule(
    "missing-resources",
    "warning",
    "A container without CPU and memory requests or a memory limit",
    "Without requests the container is BestEffort, the first to be evicted and the last to get CPU; without a memory limit it can take the node's memory.",
    "Set resources.requests.cpu, resources.requests.memory and resources.limits.memory.",
    true,
  ),
  rule(
    "missing-liveness-probe",
    "warning",
    "A container without a liveness probe",
    "Without a liveness probe the kubelet restarts the container only when it exits, not when it hangs.",
    "Add a livenessProbe that fails when the process no longer works.",
    true,
  ),
  rule(
    "missing-readiness-probe",
    "warning",
    "A container without a readiness probe",
    "Without a readiness probe the pod is Ready as soon as its containers start, before they can serve.",
    "Add a readinessProbe that succeeds once the container can serve.",
    true,
  ),
  rule(
    "probe-port-not-found",
    "warning",
    "A probe names a port the container does not declare",
    "The kubelet resolves a named probe port among the container's ports; when it is not there, every probe fails.",
    "Declare the port under ports with that name, or give the probe the port number.",
  ),
  rule(
    "privileged",
    "warning",
    "A privileged container",
    "A privileged container has every capability and all host devices: it owns the node.",
    "Remove securityContext.privileged, and add only the capabilities the container needs.",
    true,
  ),
  rule(
    "privilege-escalation",
    "warning",
    "A container that may gain privileges",
    "allowPrivilegeEscalation: true or the SYS_ADMIN capability let a process gain more privileges than its parent.",
    "Set allowPrivilegeEscalation: false and do not add SYS_ADMIN.",
  ),
  rule(
    "sensitive-host-mount",
    "warning",
    "A hostPath mount of a sensitive host directory",
    "Mounting /, /etc, /proc, /sys, /dev, /boot, /lib, /usr or a container runtime socket gives the container control of the node.",
    "Mount only the files or subdirectories the container needs, read-only where possible.",
  ),
  rule(
    "host-namespaces",
    "warning",
    "The pod shares the host's network, PID or IPC namespace",
    "hostNetwork, hostPID and hostIPC let the pod see and reach the node's processes and interfaces.",
    "Remove hostNetwork, hostPID and hostIPC unless the pod is part of the node itself.",
    true,
  ),
  rule(
    "run-as-non-root",
    "warning",
    "A container that may run as root",
    "Neither runAsNonRoot: true nor a non-zero runAsUser is set (on the container or the pod), or runAsUser is 0.",
    "Set securityContext.runAsNonRoot: true and a runAsUser other than 0.",
    true,
  ),
  rule(
    "fixed-uid",
    "warning",
    "The manifest sets metadata.uid",
    "The kubelet keeps a UID written in the manifest instead of hashing the manifest, so an edited manifest is not seen as a new pod, and copies on several nodes share one UID.",
    "Remove metadata.uid.",
  ),
  rule(
    "invalid-ignore-annotation",
    "warning",
    "The lint.nodeagent.io/ignore annotation names an unknown rule",
    "The annotation takes a comma-separated list of rule ids; an unknown id suppresses nothing.",
    "Use the ids `nodeagent staticpod lint --list-rules` prints.",
  ),
];

const BY_ID = new Map(RULES.map((r) => [r.id, r]));

export function ruleById(id: string): Rule | undefined {
  return BY_ID.get(id);
}

export function isRuleId(id: string): boolean {
  return BY_ID.has(id);
}
