import { describe, expect, test } from "bun:test";
import type { Container, Pod } from "kubernetes-types/core/v1";
import { applyPodDefaults } from "../../src/api/defaults";
import { fieldErrorBody, fieldErrorMessage, goQuote, staticPodApiReferenceErrors, validatePod } from "../../src/api";

/** A valid pod, defaulted, as the kubelet validates a static pod: already named <name>-<node>. */
function validPod(): Pod {
  return applyPodDefaults({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web-node1", namespace: "default", labels: { app: "web" }, annotations: { "kubernetes.io/config.hash": "abc" } },
    spec: {
      nodeName: "node1",
      tolerations: [{ operator: "Exists", effect: "NoExecute" }],
      initContainers: [{ name: "init", image: "busybox:1.36", command: ["true"] }],
      containers: [
        {
          name: "app",
          image: "busybox:1.36",
          ports: [{ name: "http", containerPort: 8080 }],
          env: [
            { name: "MODE", value: "prod" },
            { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
          ],
          volumeMounts: [{ name: "data", mountPath: "/data" }],
          resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { cpu: "500m", memory: "128Mi" } },
          livenessProbe: { httpGet: { port: "http" } },
          readinessProbe: { tcpSocket: { port: 8080 } },
        },
      ],
      volumes: [
        { name: "data", emptyDir: {} },
        { name: "etc", hostPath: { path: "/etc/app", type: "Directory" } },
      ],
    },
  });
}

const app = (pod: Pod): Container => pod.spec!.containers[0]!;

/** Mutate a valid pod and return the messages validatePod gives. */
function messages(mutate: (pod: Pod) => void): string[] {
  const pod = validPod();
  mutate(pod);
  return validatePod(pod).map((e) => e.message);
}

describe("validatePod", () => {
  test("a valid pod has no errors", () => {
    expect(validatePod(validPod())).toEqual([]);
  });

  test("field errors carry type, value and the formatted message", () => {
    const errs = validatePod(Object.assign(validPod(), {}), {});
    expect(errs).toEqual([]);
    const pod = validPod();
    app(pod).ports![0]!.containerPort = 70000;
    const [e] = validatePod(pod);
    expect(e).toEqual({
      field: "spec.containers[0].ports[0].containerPort",
      type: "Invalid",
      value: 70000,
      detail: "must be between 1 and 65535, inclusive",
      message: "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
    });
    expect(fieldErrorBody(e!)).toBe("Invalid value: 70000: must be between 1 and 65535, inclusive");
    expect(fieldErrorMessage(e!)).toBe(e!.message);
  });

  test("metadata.name: DNS-1123 subdomain, at most 253", () => {
    expect(messages((p) => (p.metadata!.name = "Web_1"))).toEqual([
      `metadata.name: Invalid value: "Web_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
    const long = "a".repeat(254);
    expect(messages((p) => (p.metadata!.name = long))).toEqual([`metadata.name: Invalid value: "${long}": must be no more than 253 characters`]);
    expect(messages((p) => (p.metadata!.name = ""))).toEqual(["metadata.name: Required value: name or generateName is required"]);
  });

  test("metadata.namespace: DNS-1123 label", () => {
    expect(messages((p) => (p.metadata!.namespace = "kube.system"))).toEqual([`metadata.namespace: Invalid value: "kube.system": must not contain dots`]);
    expect(messages((p) => (p.metadata!.namespace = "Kube"))).toEqual([
      `metadata.namespace: Invalid value: "Kube": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ]);
  });

  test("labels", () => {
    expect(messages((p) => (p.metadata!.labels = { "bad key!": "v", ok: "-bad-" }))).toEqual([
      `metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      `metadata.labels[ok]: Invalid value: "-bad-": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ]);
  });

  test("containers must not be empty", () => {
    expect(messages((p) => (p.spec!.containers = []))).toEqual(["spec.containers: Required value"]);
  });

  test("container name: DNS-1123 label, required", () => {
    expect(messages((p) => (app(p).name = "App"))[0]).toStartWith(`spec.containers[0].name: Invalid value: "App": a lowercase RFC 1123 label`);
    expect(messages((p) => (app(p).name = ""))).toEqual(["spec.containers[0].name: Required value"]);
  });

  test("container names are unique across init and app containers", () => {
    expect(messages((p) => (p.spec!.initContainers![0]!.name = "app"))).toEqual([`spec.initContainers[0].name: Duplicate value: "app"`]);
    expect(messages((p) => p.spec!.containers.push({ ...structuredClone(app(p)), ports: [] }))).toEqual([`spec.containers[1].name: Duplicate value: "app"`]);
  });

  test("image is required and must not carry whitespace", () => {
    expect(messages((p) => delete app(p).image)).toEqual(["spec.containers[0].image: Required value"]);
    expect(messages((p) => (app(p).image = " busybox"))).toEqual([
      `spec.containers[0].image: Invalid value: " busybox": must not have leading or trailing whitespace`,
    ]);
  });

  test("ports", () => {
    expect(messages((p) => (app(p).ports![0]!.containerPort = 0))).toEqual(["spec.containers[0].ports[0].containerPort: Required value"]);
    expect(messages((p) => (app(p).ports![0]!.protocol = "tcp"))).toEqual([
      `spec.containers[0].ports[0].protocol: Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP"`,
    ]);
    expect(messages((p) => (app(p).ports![0]!.name = "a-very-long-port-name"))).toEqual([
      `spec.containers[0].ports[0].name: Invalid value: "a-very-long-port-name": must be no more than 15 characters`,
    ]);
    expect(messages((p) => (app(p).ports![0]!.name = "8080"))).toEqual([
      `spec.containers[0].ports[0].name: Invalid value: "8080": must contain at least one letter (a-z)`,
    ]);
    expect(messages((p) => app(p).ports!.push({ name: "http", containerPort: 8081, protocol: "TCP" }))).toEqual([
      `spec.containers[0].ports[1].name: Duplicate value: "http"`,
    ]);
    expect(messages((p) => (app(p).ports![0]!.hostPort = 99999))).toEqual([
      "spec.containers[0].ports[0].hostPort: Invalid value: 99999: must be between 1 and 65535, inclusive",
    ]);
  });

  test("host ports must not collide across containers", () => {
    expect(
      messages((p) => {
        app(p).ports![0]!.hostPort = 80;
        p.spec!.containers.push({ ...structuredClone(app(p)), name: "second" });
      }),
    ).toEqual([`spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//80"`]);
  });

  test("hostNetwork: hostPort must equal containerPort", () => {
    expect(
      messages((p) => {
        p.spec!.hostNetwork = true;
        app(p).ports![0]!.hostPort = 9090;
      }),
    ).toEqual(["spec.containers[0].ports[0].hostPort: Invalid value: 9090: must match `containerPort` when `hostNetwork` is true"]);
  });

  test("env names", () => {
    expect(messages((p) => (app(p).env![0]!.name = "A=B"))).toEqual([
      `spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
    ]);
    // Relaxed validation (on by default since 1.32) accepts what the C-like rule rejected.
    expect(messages((p) => (app(p).env![0]!.name = "1-MODE"))).toEqual([]);
    const pod = validPod();
    app(pod).env![0]!.name = "1-MODE";
    expect(validatePod(pod, { relaxedEnvVarNames: false }).map((e) => e.message)).toEqual([
      `spec.containers[0].env[0].name: Invalid value: "1-MODE": a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')`,
    ]);
    expect(messages((p) => (app(p).env![0]!.name = ""))).toEqual(["spec.containers[0].env[0].name: Required value"]);
  });

  test("env valueFrom", () => {
    expect(messages((p) => (app(p).env![1]!.valueFrom = {}))).toEqual([
      'spec.containers[0].env[1].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
    ]);
    expect(messages((p) => (app(p).env![1]!.value = "x"))).toEqual([
      'spec.containers[0].env[1].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
    ]);
    expect(messages((p) => (app(p).env![1]!.valueFrom!.fieldRef!.fieldPath = "status.phase"))).toEqual([
      `spec.containers[0].env[1].valueFrom.fieldRef.fieldPath: Unsupported value: "status.phase": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"`,
    ]);
  });

  test("volumes: names unique, DNS-1123 labels, exactly one source", () => {
    expect(messages((p) => (p.spec!.volumes![1]!.name = "data"))).toEqual([`spec.volumes[1].name: Duplicate value: "data"`]);
    expect(messages((p) => (p.spec!.volumes![1]!.name = "Etc"))[0]).toStartWith(`spec.volumes[1].name: Invalid value: "Etc": a lowercase RFC 1123 label`);
    // An invalid volume is not registered, so mounts of it are "Not found" too, as upstream reports.
    expect(messages((p) => (p.spec!.volumes![0]!.hostPath = { path: "/x", type: "" }))).toEqual([
      "spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type",
      `spec.containers[0].volumeMounts[0].name: Not found: "data"`,
    ]);
    expect(messages((p) => delete p.spec!.volumes![1]!.hostPath)).toEqual(["spec.volumes[1]: Required value: must specify a volume type"]);
    expect(messages((p) => (p.spec!.volumes![1]!.hostPath!.type = "Dir"))).toEqual([
      `spec.volumes[1].hostPath.type: Unsupported value: "Dir": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"`,
    ]);
    expect(messages((p) => (p.spec!.volumes![1]!.hostPath!.path = "/etc/../root"))).toEqual([
      `spec.volumes[1].hostPath.path: Invalid value: "/etc/../root": must not contain '..'`,
    ]);
  });

  test("volumeMounts refer to existing volumes and have unique mount paths", () => {
    expect(messages((p) => (app(p).volumeMounts![0]!.name = "nope"))).toEqual([`spec.containers[0].volumeMounts[0].name: Not found: "nope"`]);
    expect(messages((p) => app(p).volumeMounts!.push({ name: "etc", mountPath: "/data" }))).toEqual([
      `spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/data": must be unique`,
    ]);
    expect(messages((p) => (app(p).volumeMounts![0]!.mountPath = ""))).toEqual(["spec.containers[0].volumeMounts[0].mountPath: Required value"]);
  });

  test("restartPolicy, dnsPolicy and imagePullPolicy are enums", () => {
    expect(messages((p) => (p.spec!.restartPolicy = "Sometimes"))).toEqual([
      `spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`,
    ]);
    expect(messages((p) => (p.spec!.dnsPolicy = "Cluster"))).toEqual([
      `spec.dnsPolicy: Unsupported value: "Cluster": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"`,
    ]);
    expect(messages((p) => (app(p).imagePullPolicy = "always"))).toEqual([
      `spec.containers[0].imagePullPolicy: Unsupported value: "always": supported values: "Always", "IfNotPresent", "Never"`,
    ]);
  });

  test("terminationGracePeriodSeconds is required (defaulting sets it)", () => {
    expect(messages((p) => delete p.spec!.terminationGracePeriodSeconds)).toEqual(["spec.terminationGracePeriodSeconds: Required value"]);
  });

  test("probes: exactly one handler, liveness successThreshold 1", () => {
    expect(messages((p) => (app(p).livenessProbe!.exec = { command: ["true"] }))).toEqual([
      "spec.containers[0].livenessProbe.httpGet: Forbidden: may not specify more than 1 handler type",
    ]);
    expect(messages((p) => delete app(p).readinessProbe!.tcpSocket)).toEqual([
      "spec.containers[0].readinessProbe: Required value: must specify a handler type",
    ]);
    expect(messages((p) => (app(p).livenessProbe!.successThreshold = 2))).toEqual([
      "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
    ]);
    expect(messages((p) => (app(p).readinessProbe!.periodSeconds = -1))).toEqual([
      "spec.containers[0].readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0",
    ]);
    expect(messages((p) => (app(p).readinessProbe!.tcpSocket!.port = "8080"))).toEqual([
      `spec.containers[0].readinessProbe.tcpSocket.port: Invalid value: "8080": must contain at least one letter (a-z)`,
    ]);
  });

  test("init containers may not have probes unless restartPolicy=Always", () => {
    const probe = { exec: { command: ["true"] }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 };
    expect(messages((p) => (p.spec!.initContainers![0]!.livenessProbe = structuredClone(probe)))).toEqual([
      "spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always",
    ]);
    expect(
      messages((p) => {
        p.spec!.initContainers![0]!.livenessProbe = structuredClone(probe);
        p.spec!.initContainers![0]!.restartPolicy = "Always";
      }),
    ).toEqual([]);
    expect(messages((p) => (app(p).restartPolicy = "Always"))).toEqual(["spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers"]);
  });

  test("resources: requests at most limits, in the API server's words", () => {
    expect(messages((p) => (app(p).resources!.requests!.cpu = "1"))).toEqual([
      `spec.containers[0].resources.requests: Invalid value: "1": must be less than or equal to cpu limit of 500m`,
    ]);
    expect(messages((p) => (app(p).resources!.requests!.memory = "0.2Gi"))).toEqual([
      `spec.containers[0].resources.requests: Invalid value: "214748364800m": must be less than or equal to memory limit of 128Mi`,
    ]);
    expect(messages((p) => (app(p).resources!.requests!.cpu = "500m"))).toEqual([]);
    expect(messages((p) => (app(p).resources!.limits!.cpu = "-1"))).toEqual([
      `spec.containers[0].resources.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0`,
      `spec.containers[0].resources.requests: Invalid value: "100m": must be less than or equal to cpu limit of -1`,
    ]);
    expect(messages((p) => (app(p).resources!.limits!.gpu = "1"))).toEqual([
      `spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource for containers`,
    ]);
    expect(messages((p) => (app(p).resources!.limits!.cpu = "1GB"))).toEqual([
      `spec.containers[0].resources.limits[cpu]: Invalid value: "1GB": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    ]);
  });

  test("extended resources: integers, requests equal to limits", () => {
    expect(
      messages((p) => {
        app(p).resources = { limits: { "example.com/gpu": "2" }, requests: { "example.com/gpu": "1" } };
      }),
    ).toEqual([`spec.containers[0].resources.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2`]);
    expect(messages((p) => (app(p).resources = { requests: { "example.com/gpu": "1" } }))).toEqual([
      "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources",
    ]);
    expect(messages((p) => (app(p).resources = { limits: { "example.com/gpu": "500m" }, requests: { "example.com/gpu": "500m" } }))).toEqual([
      "spec.containers[0].resources.limits[example.com/gpu]: Invalid value: 500m: must be an integer",
      "spec.containers[0].resources.requests[example.com/gpu]: Invalid value: 500m: must be an integer",
    ]);
  });

  test("a resource in a kubernetes.io subdomain is native: fractional and overcommittable", () => {
    // It used to be taken for an extended resource ("must be an integer", requests equal to limits).
    expect(messages((p) => (app(p).resources = { limits: { "foo.kubernetes.io/x": "2" }, requests: { "foo.kubernetes.io/x": "500m" } }))).toEqual([]);
  });

  test("ephemeral containers and scheduling gates cannot be set on create", () => {
    expect(
      messages(
        (p) => (p.spec!.ephemeralContainers = [{ name: "debug", image: "busybox:1", terminationMessagePolicy: "File", imagePullPolicy: "IfNotPresent" }]),
      ),
    ).toEqual(["spec.ephemeralContainers: Forbidden: cannot be set on create"]);
    expect(messages((p) => (p.spec!.schedulingGates = [{ name: "wait" }]))).toEqual([
      "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared",
    ]);
  });

  test("dnsPolicy None needs nameservers", () => {
    expect(messages((p) => (p.spec!.dnsPolicy = "None"))).toEqual(["spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"]);
    expect(messages((p) => ((p.spec!.dnsPolicy = "None"), (p.spec!.dnsConfig = { nameservers: ["10.0.0.x"] })))).toEqual([
      `spec.dnsConfig.nameservers[0]: Invalid value: "10.0.0.x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
    ]);
  });

  test("every error is reported, not just the first", () => {
    const errs = messages((p) => {
      delete app(p).image;
      p.spec!.restartPolicy = "Sometimes";
      p.metadata!.namespace = "";
    });
    expect(errs).toEqual([
      "metadata.namespace: Required value",
      "spec.containers[0].image: Required value",
      `spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`,
    ]);
  });
});

describe("goQuote", () => {
  test("quotes like Go's %q", () => {
    expect(goQuote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(goQuote("tab\there\n")).toBe('"tab\\there\\n"');
    expect(goQuote("\u0001")).toBe('"\\x01"');
    expect(goQuote("héllo")).toBe('"héllo"');
    expect(goQuote("\u200b")).toBe('"\\u200b"');
  });
});

describe("staticPodApiReferenceErrors", () => {
  const refs = (mutate: (pod: Pod) => void): Array<[string, string]> => {
    const pod = validPod();
    mutate(pod);
    return staticPodApiReferenceErrors(pod).map((e) => [e.field, e.message]);
  };

  test("--local-objects: configMaps and secrets may be named (volumes, projected, env, envFrom, pull secrets); service accounts and tokens may not", () => {
    const local = (mutate: (pod: Pod) => void): Array<[string, string]> => {
      const pod = validPod();
      mutate(pod);
      return staticPodApiReferenceErrors(pod, { localObjects: true }).map((e) => [e.field, e.message]);
    };
    expect(
      local((p) => {
        p.spec!.volumes!.push({ name: "c", configMap: { name: "c" } }, { name: "s", secret: { secretName: "s" } });
        p.spec!.volumes!.push({ name: "p", projected: { sources: [{ configMap: { name: "c" } }, { secret: { name: "s" } }, { downwardAPI: { items: [] } }] } });
        app(p).env![0]!.valueFrom = { secretKeyRef: { name: "s", key: "k" } };
        app(p).envFrom = [{ configMapRef: { name: "c" } }];
        p.spec!.imagePullSecrets = [{ name: "regcred" }];
      }),
    ).toEqual([]);
    expect(local((p) => p.spec!.volumes!.push({ name: "t", projected: { sources: [{ serviceAccountToken: { path: "token" } }] } }))).toEqual([
      ["spec.volumes[2].projected.sources[0].serviceAccountToken", "static pods may not reference serviceaccounts (via projected volumes)"],
    ]);
    expect(local((p) => (p.spec!.serviceAccountName = "default"))).toEqual([["spec.serviceAccountName", "static pods may not reference serviceaccounts"]]);
    expect(local((p) => p.spec!.volumes!.push({ name: "v", persistentVolumeClaim: { claimName: "c" } }))).toEqual([
      ["spec.volumes[2].persistentVolumeClaim", "static pods may not reference persistentvolumeclaims"],
    ]);
  });

  test("a pod with only hostPath, emptyDir and downwardAPI volumes passes", () => {
    expect(refs((p) => p.spec!.volumes!.push({ name: "info", downwardAPI: { items: [] } }))).toEqual([]);
  });

  test("service accounts", () => {
    expect(refs((p) => (p.spec!.serviceAccountName = "default"))).toEqual([["spec.serviceAccountName", "static pods may not reference serviceaccounts"]]);
  });

  test("secrets through env, envFrom, imagePullSecrets and volumes", () => {
    expect(refs((p) => (app(p).env![0]!.valueFrom = { secretKeyRef: { name: "s", key: "k" } }))).toEqual([
      ["spec.containers[0].env[0].valueFrom.secretKeyRef", "static pods may not reference secrets"],
    ]);
    expect(refs((p) => (p.spec!.imagePullSecrets = [{ name: "regcred" }]))).toEqual([["spec.imagePullSecrets[0]", "static pods may not reference secrets"]]);
    expect(refs((p) => p.spec!.volumes!.push({ name: "s", secret: { secretName: "s" } }))).toEqual([
      ["spec.volumes[2].secret", "static pods may not reference secrets"],
    ]);
    expect(refs((p) => (p.spec!.initContainers![0]!.envFrom = [{ secretRef: { name: "s" } }]))).toEqual([
      ["spec.initContainers[0].envFrom[0].secretRef", "static pods may not reference secrets"],
    ]);
  });

  test("config maps, checked after secrets", () => {
    expect(refs((p) => p.spec!.volumes!.push({ name: "c", configMap: { name: "c" } }))).toEqual([
      ["spec.volumes[2].configMap", "static pods may not reference configmaps"],
    ]);
    expect(
      refs((p) => {
        p.spec!.volumes!.push({ name: "c", configMap: { name: "c" } });
        p.spec!.imagePullSecrets = [{ name: "regcred" }];
      }),
    ).toEqual([["spec.imagePullSecrets[0]", "static pods may not reference secrets"]]);
  });

  test("volumes that need the API server", () => {
    expect(refs((p) => p.spec!.volumes!.push({ name: "c", persistentVolumeClaim: { claimName: "c" } }))).toEqual([
      ["spec.volumes[2].persistentVolumeClaim", "static pods may not reference persistentvolumeclaims"],
    ]);
    expect(refs((p) => p.spec!.volumes!.push({ name: "c", csi: { driver: "d" } }))).toEqual([
      ["spec.volumes[2].csi", "static pods may not reference csidrivers (via CSI volumes)"],
    ]);
    expect(refs((p) => p.spec!.volumes!.push({ name: "t", projected: { sources: [{ serviceAccountToken: { path: "token" } }] } }))).toEqual([
      ["spec.volumes[2].projected.sources[0].serviceAccountToken", "static pods may not reference serviceaccounts (via projected volumes)"],
    ]);
    expect(refs((p) => p.spec!.volumes!.push({ name: "u" }))).toEqual([["spec.volumes[2]", 'unknown volume type for volume  "u"']]);
  });

  test("resource claims", () => {
    expect(refs((p) => (p.spec!.resourceClaims = [{ name: "gpu" }]))).toEqual([["spec.resourceClaims", "static pods may not reference resourceclaims"]]);
  });
});

describe("validatePod: security contexts (ValidateSecurityContext, validateSeccompProfileField, validateAppArmorProfileField)", () => {
  test("valid profiles and procMount Default pass", () => {
    expect(
      messages((p) => {
        p.spec!.securityContext = { seccompProfile: { type: "RuntimeDefault" }, appArmorProfile: { type: "Unconfined" } };
        app(p).securityContext = {
          seccompProfile: { type: "Localhost", localhostProfile: "profiles/audit.json" },
          appArmorProfile: { type: "Localhost", localhostProfile: "k8s-x" },
          procMount: "Default",
        };
        p.metadata!.annotations = { ...p.metadata!.annotations, "container.apparmor.security.beta.kubernetes.io/init": "runtime/default" };
      }),
    ).toEqual([]);
  });

  test("seccompProfile", () => {
    expect(messages((p) => (app(p).securityContext = { seccompProfile: { type: "Localhost" } }))).toEqual([
      "spec.containers[0].securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost",
    ]);
    expect(messages((p) => (p.spec!.securityContext = { seccompProfile: { type: "Localhost", localhostProfile: "../../etc/x.json" } }))).toEqual([
      "spec.securityContext.seccompProfile.localhostProfile: Invalid value: \"../../etc/x.json\": must not contain '..'",
    ]);
    expect(messages((p) => (app(p).securityContext = { seccompProfile: { type: "Localhost", localhostProfile: "/etc/x.json" } }))).toEqual([
      'spec.containers[0].securityContext.seccompProfile.localhostProfile: Invalid value: "/etc/x.json": must be a relative path',
    ]);
    expect(messages((p) => (app(p).securityContext = { seccompProfile: { type: "RuntimeDefault", localhostProfile: "x.json" } }))).toEqual([
      'spec.containers[0].securityContext.seccompProfile.localhostProfile: Invalid value: "x.json": can only be set when seccomp type is Localhost',
    ]);
    expect(messages((p) => (app(p).securityContext = { seccompProfile: { type: "" } }))).toEqual([
      "spec.containers[0].securityContext.seccompProfile.type: Required value: type is required when seccompProfile is set",
    ]);
    expect(messages((p) => (app(p).securityContext = { seccompProfile: { type: "Strict" } }))).toEqual([
      'spec.containers[0].securityContext.seccompProfile.type: Unsupported value: "Strict": supported values: "Localhost", "RuntimeDefault", "Unconfined"',
    ]);
  });

  test("appArmorProfile", () => {
    expect(messages((p) => (p.spec!.securityContext = { appArmorProfile: { type: "Localhost" } }))).toEqual([
      "spec.securityContext.appArmorProfile.localhostProfile: Required value: must be set when AppArmor type is Localhost",
    ]);
    expect(messages((p) => (app(p).securityContext = { appArmorProfile: { type: "Localhost", localhostProfile: " x" } }))).toEqual([
      'spec.containers[0].securityContext.appArmorProfile.localhostProfile: Invalid value: " x": must not be padded with whitespace',
    ]);
    expect(messages((p) => (app(p).securityContext = { appArmorProfile: { type: "Unconfined", localhostProfile: "x" } }))).toEqual([
      'spec.containers[0].securityContext.appArmorProfile.localhostProfile: Invalid value: "x": can only be set when AppArmor type is Localhost',
    ]);
    expect(messages((p) => (app(p).securityContext = { appArmorProfile: { type: "Loose" } }))).toEqual([
      'spec.containers[0].securityContext.appArmorProfile.type: Unsupported value: "Loose": supported values: "Localhost", "RuntimeDefault", "Unconfined"',
    ]);
  });

  test("AppArmor annotations: a known container and a valid profile name", () => {
    const k = "container.apparmor.security.beta.kubernetes.io";
    expect(messages((p) => (p.metadata!.annotations = { [`${k}/nope`]: "runtime/default" }))).toEqual([
      `metadata.annotations[${k}/nope]: Invalid value: "nope": container not found`,
    ]);
    expect(messages((p) => (p.metadata!.annotations = { [`${k}/app`]: "docker-default" }))).toEqual([
      `metadata.annotations[${k}/app]: Invalid value: "docker-default": invalid AppArmor profile name: "docker-default"`,
    ]);
  });

  test("procMount: Unmasked needs hostUsers: false; other values are not supported", () => {
    expect(messages((p) => (app(p).securityContext = { procMount: "Unmasked" }))).toEqual([
      'spec.containers[0].securityContext.procMount: Invalid value: "Unmasked": `hostUsers` must be false to use `Unmasked`',
    ]);
    expect(messages((p) => (p.spec!.initContainers![0]!.securityContext = { procMount: "Unmasked" }))).toEqual([
      'spec.initContainers[0].securityContext.procMount: Invalid value: "Unmasked": `hostUsers` must be false to use `Unmasked`',
    ]);
    expect(
      messages((p) => {
        p.spec!.hostUsers = false;
        app(p).securityContext = { procMount: "Unmasked" };
      }),
    ).toEqual([]);
    expect(messages((p) => (app(p).securityContext = { procMount: "Raw" }))).toEqual([
      'spec.containers[0].securityContext.procMount: Unsupported value: "Raw": supported values: "Default", "Unmasked"',
    ]);
  });
});
