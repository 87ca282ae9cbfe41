// /metrics/resource: the kubelet's resource metrics (pkg/kubelet/metrics/collectors/
// resource_metrics.go), which metrics-server scrapes for `kubectl top`: cumulative cpu seconds and
// the memory working set of the node, each pod and each container, the containers' start times and
// scrape_error. Each sample carries the timestamp of the stat it came from (milliseconds), as the
// kubelet's NewLazyMetricWithTimestamp does, so a scraper computes rates over the stats' own window.
// Built from a cpu-and-memory-only Summary; a figure the summary does not have gives no sample.
import { formatLabels, PROMETHEUS_CONTENT_TYPE } from "../metrics";
import type { Summary } from "./types";

export const RESOURCE_METRICS_CONTENT_TYPE = PROMETHEUS_CONTENT_TYPE;

interface Family {
  name: string;
  help: string;
  type: "counter" | "gauge";
  samples: string[];
}

function labels(l: Record<string, string>): string {
  const parts = formatLabels(l);
  return parts.length ? `{${parts.join(",")}}` : "";
}

function sample(f: Family, l: Record<string, string>, value: number | undefined, time: string | undefined): void {
  if (value === undefined || time === undefined) return;
  const ms = Date.parse(time);
  f.samples.push(`${f.name}${labels(l)} ${value}${Number.isFinite(ms) ? ` ${ms}` : ""}`);
}

/** The text of /metrics/resource for one summary; scrapeError when the summary could not be made whole. */
export function renderResourceMetrics(s: Summary | undefined): string {
  const fam = (name: string, help: string, type: Family["type"]): Family => ({ name, help: `[ALPHA] ${help}`, type, samples: [] });
  const containerStart = fam("container_start_time_seconds", "Start time of the container since unix epoch in seconds", "gauge");
  const containerCpu = fam("container_cpu_usage_seconds_total", "Cumulative cpu time consumed by the container in core-seconds", "counter");
  const containerMem = fam("container_memory_working_set_bytes", "Current working set of the container in bytes", "gauge");
  const nodeCpu = fam("node_cpu_usage_seconds_total", "Cumulative cpu time consumed by the node in core-seconds", "counter");
  const nodeMem = fam("node_memory_working_set_bytes", "Current working set of the node in bytes", "gauge");
  const podCpu = fam("pod_cpu_usage_seconds_total", "Cumulative cpu time consumed by the pod in core-seconds", "counter");
  const podMem = fam("pod_memory_working_set_bytes", "Current working set of the pod in bytes", "gauge");
  const scrape = fam("scrape_error", "1 if there was an error while getting container metrics, 0 otherwise", "gauge");
  scrape.samples.push(`scrape_error ${s ? 0 : 1}`);
  if (s) {
    const secs = (ns: number | undefined) => (ns === undefined ? undefined : ns / 1e9);
    sample(nodeCpu, {}, secs(s.node.cpu?.usageCoreNanoSeconds), s.node.cpu?.time);
    sample(nodeMem, {}, s.node.memory?.workingSetBytes, s.node.memory?.time);
    for (const p of s.pods) {
      const pl = { namespace: p.podRef.namespace, pod: p.podRef.name };
      sample(podCpu, pl, secs(p.cpu?.usageCoreNanoSeconds), p.cpu?.time);
      sample(podMem, pl, p.memory?.workingSetBytes, p.memory?.time);
      for (const c of p.containers) {
        const cl = { container: c.name, namespace: p.podRef.namespace, pod: p.podRef.name };
        const started = Date.parse(c.startTime);
        if (Number.isFinite(started)) containerStart.samples.push(`container_start_time_seconds${labels(cl)} ${started / 1000}`);
        sample(containerCpu, cl, secs(c.cpu?.usageCoreNanoSeconds), c.cpu?.time);
        sample(containerMem, cl, c.memory?.workingSetBytes, c.memory?.time);
      }
    }
  }
  return [containerCpu, containerMem, containerStart, nodeCpu, nodeMem, podCpu, podMem, scrape]
    .filter((f) => f.samples.length)
    .map((f) => `# HELP ${f.name} ${f.help}\n# TYPE ${f.name} ${f.type}\n${f.samples.join("\n")}\n`)
    .join("");
}
