// The node client's limits, --kube-api-qps and --kube-api-burst (kubeAPIQPS, kubeAPIBurst): the
// kubelet's defaults (50, 100), flags over the file, the kubelet's zero values (kubeAPIQPS is a
// pointer: an explicit 0 is kept and means client-go's default 5; kubeAPIBurst 0 in the file is unset),
// and its checks (whole numbers, not negative; client-go's "burst must be above 0 when qps is").
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { kubeApiRateLimit } from "../../src/agent/cluster-settings";
import { kubeletConfigz } from "../../src/agent/configz";
import { agentConfigFixture, errorOf } from "./agent-config-fixture";

const { dir, resolve, cleanup } = agentConfigFixture();
afterAll(cleanup);

const kubeconfig = join(dir, "node.kubeconfig");
writeFileSync(kubeconfig, "apiVersion: v1\nkind: Config\n");
const file = (body: string) => `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n${body}`;
const PATH = "/var/lib/kubelet/config.yaml";

describe("--kube-api-qps and --kube-api-burst", () => {
  test("the kubelet's defaults, 50 per second in bursts of 100, shown in /configz", () => {
    const c = resolve({ kubeconfig });
    expect(c.cluster?.kubeApi).toEqual({ qps: 50, burst: 100 });
    expect(kubeApiRateLimit(c.cluster!.kubeApi)).toEqual({ qps: 50, burst: 100 });
    expect(kubeletConfigz(c).kubeletconfig).toMatchObject({ kubeAPIQPS: 50, kubeAPIBurst: 100 });
  });

  test("flags, and the file's fields — used, not warned about as not implemented; a flag wins over the file", () => {
    expect(resolve({ kubeconfig, "kube-api-qps": "1", "kube-api-burst": "1" }).cluster?.kubeApi).toEqual({ qps: 1, burst: 1 });
    const f = resolve({ kubeconfig }, file("kubeAPIQPS: 20\nkubeAPIBurst: 30\n"));
    expect(f.cluster?.kubeApi).toEqual({ qps: 20, burst: 30 });
    expect(f.warnings.join("\n")).not.toContain("kubeAPI");
    expect(resolve({ kubeconfig, "kube-api-qps": "7" }, file("kubeAPIQPS: 20\nkubeAPIBurst: 30\n")).cluster?.kubeApi).toEqual({ qps: 7, burst: 30 });
  });

  test("zero: kubeAPIQPS 0 is kept and is client-go's default 5; kubeAPIBurst 0 in the file is unset (100), on the command line client-go's 10", () => {
    const f = resolve({ kubeconfig }, file("kubeAPIQPS: 0\nkubeAPIBurst: 0\n"));
    expect(f.cluster?.kubeApi).toEqual({ qps: 0, burst: 100 });
    expect(kubeApiRateLimit(f.cluster!.kubeApi)).toEqual({ qps: 5, burst: 100 });
    const c = resolve({ kubeconfig, "kube-api-qps": "0", "kube-api-burst": "0" });
    expect(kubeApiRateLimit(c.cluster!.kubeApi)).toEqual({ qps: 5, burst: 10 });
  });

  test("mistakes, each naming the flag or the field", () => {
    expect(errorOf(() => resolve({ kubeconfig, "kube-api-qps": "-1" })).message).toBe(`--kube-api-qps "-1": expected a whole number from 0 to 2147483647`);
    expect(errorOf(() => resolve({ kubeconfig, "kube-api-qps": "2.5" })).message).toBe(`--kube-api-qps "2.5": expected a whole number from 0 to 2147483647`);
    expect(errorOf(() => resolve({ kubeconfig, "kube-api-burst": "lots" })).message).toBe(
      `--kube-api-burst "lots": expected a whole number from 0 to 2147483647`,
    );
    expect(errorOf(() => resolve({ kubeconfig }, file("kubeAPIQPS: -3\n"))).message).toBe(
      `${PATH}:3:1: kubeAPIQPS: expected a whole number from 0 to 2147483647, got -3`,
    );
    expect(errorOf(() => resolve({ kubeconfig }, file('kubeAPIBurst: "10"\n'))).message).toContain(`${PATH}:3:1: kubeAPIBurst`);
    expect(errorOf(() => resolve({ kubeconfig, "kube-api-burst": "0" })).message).toBe(
      `--kube-api-burst 0 with --kube-api-qps 50: the burst must be at least 1 when the qps is above 0 (client-go: "burst is required to be greater than 0")`,
    );
    expect(errorOf(() => resolve({ kubeconfig, "kube-api-burst": "0" }, file("kubeAPIQPS: 3\n"))).message).toBe(
      `--kube-api-burst 0 with ${PATH}:3:1: kubeAPIQPS 3: the burst must be at least 1 when the qps is above 0 (client-go: "burst is required to be greater than 0")`,
    );
  });
});
