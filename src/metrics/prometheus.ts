// The Prometheus text exposition format (version 0.0.4) and the three metric types the agent's
// metrics use: Counter, Gauge and Histogram, with labels, in a Registry that renders them. It takes
// the place of prom-client, whose loading alone was ~3.5 MiB of the agent's idle RSS (measured in
// the compiled agent, the same build with and without it), and renders what prom-client rendered:
//   - per metric "# HELP name help" and "# TYPE name type", then one line per series, metrics
//     separated by an empty line, the text ending with a newline;
//   - a series' labels in the order its labels object gave them; histogram buckets cumulative,
//     `le` first among their labels, then "+Inf", _sum and _count; values as JavaScript prints
//     numbers, with +Inf, -Inf and Nan for the non-finite ones;
//   - backslashes and newlines escaped in help texts and label values, double quotes in the latter;
//   - a metric without labels exists from the start at 0; one with labels only once set.
// Each AgentMetrics owns its Registry: two agents in one process (tests) never share series.

export type Labels<L extends string> = Partial<Record<L, string>>;

interface MetricOptions<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  registers?: Registry[];
}

/** The text exposition's content type. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

function escapeString(s: string): string {
  return s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function formatValue(v: number): string {
  if (Number.isNaN(v)) return "Nan";
  if (!Number.isFinite(v)) return v < 0 ? "-Inf" : "+Inf";
  return `${v}`;
}

export function formatLabels(labels: Record<string, string | undefined>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(labels)) if (value !== undefined) out.push(`${name}="${escapeString(value).replace(/"/g, '\\"')}"`);
  return out;
}

function line(name: string, labels: string[], value: number): string {
  return `${name}${labels.length ? `{${labels.join(",")}}` : ""} ${formatValue(value)}`;
}

abstract class Metric<L extends string, S extends { labels: Labels<L> }> {
  readonly name: string;
  readonly help: string;
  abstract readonly type: "counter" | "gauge" | "histogram";
  /** Series by the key of their label values (in labelNames order). */
  protected series = new Map<string, S>();
  private readonly labelNames: readonly L[];

  constructor(o: MetricOptions<L>) {
    this.name = o.name;
    this.help = o.help;
    this.labelNames = o.labelNames ?? [];
    for (const r of o.registers ?? []) r.register(this);
  }

  protected key(labels: Labels<L>): string {
    for (const name of Object.keys(labels)) {
      if (!this.labelNames.includes(name as L)) throw new Error(`metric ${this.name}: label ${name} is not one of its labels (${this.labelNames.join(", ")})`);
    }
    return JSON.stringify(this.labelNames.map((n) => labels[n] ?? null));
  }

  /** A metric without labels has its one series from the start. */
  protected get unlabelled(): boolean {
    return this.labelNames.length === 0;
  }

  /** Forgets the series with these label values. */
  remove(labels: Labels<L>): void {
    this.series.delete(this.key(labels));
  }

  /** Forgets every series. */
  reset(): void {
    this.series.clear();
  }

  /** The sample lines, after HELP and TYPE. */
  abstract lines(): string[];
}

interface ValueSeries<L extends string> {
  labels: Labels<L>;
  value: number;
}

abstract class ValueMetric<L extends string> extends Metric<L, ValueSeries<L>> {
  constructor(o: MetricOptions<L>) {
    super(o);
    if (this.unlabelled) this.series.set(this.key({}), { labels: {}, value: 0 });
  }

  protected update(labels: Labels<L>, f: (v: number) => number): void {
    const key = this.key(labels);
    const s = this.series.get(key);
    if (s) s.value = f(s.value);
    else this.series.set(key, { labels, value: f(0) });
  }

  lines(): string[] {
    return [...this.series.values()].map((s) => line(this.name, formatLabels(s.labels), s.value));
  }
}

export class Counter<L extends string = never> extends ValueMetric<L> {
  readonly type = "counter";

  /** Adds 1 (or `by`, which must not be negative) to the series of `labels`. */
  inc(labels: Labels<L> = {}, by = 1): void {
    if (!(by >= 0)) throw new Error(`metric ${this.name}: a counter only goes up (inc by ${by})`);
    this.update(labels, (v) => v + by);
  }
}

export class Gauge<L extends string = never> extends ValueMetric<L> {
  readonly type = "gauge";

  /** set(value) on a gauge without labels, set(labels, value) on one with. */
  set(labelsOrValue: Labels<L> | number, value?: number): void {
    if (typeof labelsOrValue === "number") this.update({}, () => labelsOrValue);
    else this.update(labelsOrValue, () => value ?? 0);
  }
}

interface HistogramSeries<L extends string> {
  labels: Labels<L>;
  /** Observations per bucket (not cumulative), the last one above every bound. */
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram<L extends string = never> extends Metric<L, HistogramSeries<L>> {
  readonly type = "histogram";
  private readonly bounds: readonly number[];

  constructor(o: MetricOptions<L> & { buckets: readonly number[] }) {
    super(o);
    this.bounds = [...o.buckets].sort((a, b) => a - b);
    if (this.unlabelled) this.series.set(this.key({}), this.empty({}));
  }

  private empty(labels: Labels<L>): HistogramSeries<L> {
    return { labels, counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
  }

  /** observe(value) on a histogram without labels, observe(labels, value) on one with. */
  observe(labelsOrValue: Labels<L> | number, value?: number): void {
    const [labels, v] = typeof labelsOrValue === "number" ? [{}, labelsOrValue] : [labelsOrValue, value ?? 0];
    if (!Number.isFinite(v)) throw new Error(`metric ${this.name}: cannot observe ${v}`);
    const key = this.key(labels);
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = this.empty(labels)));
    let i = this.bounds.findIndex((b) => v <= b);
    if (i < 0) i = this.bounds.length;
    s.counts[i]!++;
    s.sum += v;
    s.count++;
  }

  override reset(): void {
    super.reset();
    if (this.unlabelled) this.series.set(this.key({}), this.empty({}));
  }

  lines(): string[] {
    const out: string[] = [];
    for (const s of this.series.values()) {
      const labels = formatLabels(s.labels);
      let cumulative = 0;
      this.bounds.forEach((b, i) => {
        cumulative += s.counts[i]!;
        out.push(line(`${this.name}_bucket`, [`le="${b}"`, ...labels], cumulative));
      });
      out.push(line(`${this.name}_bucket`, ['le="+Inf"', ...labels], s.count));
      out.push(line(`${this.name}_sum`, labels, s.sum));
      out.push(line(`${this.name}_count`, labels, s.count));
    }
    return out;
  }
}

/**
 * A counter whose series are kept elsewhere and read when the registry renders: `collect` gives every
 * series' labels and value (e.g. the requests each API client counted). Series with equal labels are
 * summed, so several sources can feed one metric.
 */
export class CollectedCounter<L extends string = never> {
  readonly type = "counter";
  readonly name: string;
  readonly help: string;

  constructor(private readonly o: MetricOptions<L> & { collect: () => Iterable<{ labels: Labels<L>; value: number }> }) {
    this.name = o.name;
    this.help = o.help;
    for (const r of o.registers ?? []) r.register(this);
  }

  lines(): string[] {
    const sums = new Map<string, { labels: Labels<L>; value: number }>();
    for (const { labels, value } of this.o.collect()) {
      const key = JSON.stringify((this.o.labelNames ?? []).map((n) => labels[n] ?? null));
      const s = sums.get(key);
      if (s) s.value += value;
      else sums.set(key, { labels, value });
    }
    return [...sums.values()].map((s) => line(this.name, formatLabels(s.labels), s.value));
  }
}

type AnyMetric = Pick<Metric<string, { labels: Labels<string> }>, "name" | "help" | "type" | "lines">;

export class Registry {
  readonly contentType = PROMETHEUS_CONTENT_TYPE;
  private readonly metrics = new Map<string, AnyMetric>();

  register(metric: AnyMetric): void {
    const known = this.metrics.get(metric.name);
    if (known && known !== metric) throw new Error(`a metric named ${metric.name} is already registered`);
    this.metrics.set(metric.name, metric);
  }

  /** Every metric in the text exposition format, in the order they were registered. */
  render(): string {
    const blocks = [...this.metrics.values()].map((m) => {
      const name = escapeString(m.name);
      return [`# HELP ${name} ${escapeString(m.help)}`, `# TYPE ${name} ${m.type}`, ...m.lines()].join("\n");
    });
    return `${blocks.join("\n\n")}\n`;
  }
}
