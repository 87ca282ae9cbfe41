// src/metrics owns the Prometheus text exposition (format 0.0.4) and the metric types the agent
// renders with it — Counter, Gauge, Histogram in a Registry — used by the HTTP server's /metrics and
// by the stats module's /metrics/resource. Nothing Kubernetes-specific lives here.
export { CollectedCounter, Counter, Gauge, Histogram, Registry, formatLabels, PROMETHEUS_CONTENT_TYPE, type Labels } from "./prometheus";
