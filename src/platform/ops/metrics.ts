import client from "prom-client";
import type { FastifyInstance } from "fastify";
import type pg from "pg";

/** The figures of one in-memory cache (CacheFeed.stats). */
export interface CacheStats {
  name: string;
  hits: number;
  misses: number;
  size: number;
}

/** One job handled, as the job runner reports it. */
export type JobOutcome = "completed" | "failed";

/** A gauge family filled at each scrape from a read (database figures: read when asked, never on the hot path). */
export interface GaugeSource {
  name: string;
  help: string;
  labelNames: readonly string[];
  /** The values at this instant, each with its labels; an error leaves the family empty for this scrape. */
  read(): Promise<{ labels: Record<string, string>; value: number }[]>;
}

export const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 1800];

/**
 * The process's Prometheus metrics (GET /metrics, prom-client): HTTP requests by route template and
 * status with their latency, jobs by name and outcome with their duration, the database pool, the
 * caches' hits and misses, Node's own figures, and gauges read from the database at each scrape
 * (outbox lag, runs, feed sync state: registered by the composition root). One registry per
 * process (and per test app), so several apps in one process do not share figures.
 */
export class Metrics {
  readonly registry = new client.Registry();
  private readonly jobs: client.Counter<"name" | "outcome">;
  private readonly jobDuration: client.Histogram<"name" | "outcome">;
  /**
   * The HTTP figures by "method route status", counted here on each answer and read by prom-client at
   * each scrape (httpMetric): a labelled prom-client counter and histogram validate and hash their
   * labels on every call (about 2% of a workflow-list call).
   */
  private readonly http = new Map<string, HttpFigures>();
  constructor(role: string) {
    this.registry.setDefaultLabels({ role });
    client.collectDefaultMetrics({ register: this.registry });
    const figures = () => [...this.http.values()];
    this.registry.registerMetric(
      httpMetric("counter", "vigie_http_requests_total", "HTTP requests answered, by method, route template and status", figures),
    );
    this.registry.registerMetric(
      httpMetric(
        "histogram",
        "vigie_http_request_duration_seconds",
        "Time from the request's arrival to its answer, by method, route template and status",
        figures,
      ),
    );
    this.jobs = new client.Counter({
      name: "vigie_jobs_total",
      help: "Jobs handled in this process, by name and outcome",
      labelNames: ["name", "outcome"],
      registers: [this.registry],
    });
    this.jobDuration = new client.Histogram({
      name: "vigie_job_duration_seconds",
      help: "Time a job's handler took, by name and outcome",
      labelNames: ["name", "outcome"],
      buckets: JOB_BUCKETS,
      registers: [this.registry],
    });
  }

  /** Counts and times every answer of the app (route template, not the path: bounded labels). */
  instrument(app: FastifyInstance): void {
    app.addHook("onResponse", (req, reply, done) => {
      this.answered(req.method, req.routeOptions.url ?? "(aucune)", reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }

  /** One HTTP answer: counted and its time put in its bucket (no label validation nor hashing: a Map lookup). */
  answered(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let f = this.http.get(key);
    if (!f) {
      f = { labels: { method, route, status: String(status) }, count: 0, sum: 0, buckets: HTTP_BUCKETS.map(() => 0) };
      this.http.set(key, f);
    }
    f.count++;
    f.sum += seconds;
    let i = 0;
    while (i < HTTP_BUCKETS.length && seconds > HTTP_BUCKETS[i]!) i++;
    if (i < HTTP_BUCKETS.length) f.buckets[i]!++;
  }

  /** One job handled (the job runner calls it). */
  job(name: string, outcome: JobOutcome, seconds: number): void {
    this.jobs.inc({ name, outcome });
    this.jobDuration.observe({ name, outcome }, seconds);
  }

  /** The node-postgres pool's connections: in use, idle, and requests waiting for one. */
  pool(pool: pg.Pool): void {
    new client.Gauge({
      name: "vigie_db_pool_connections",
      help: "Connections of this process's database pool, by state (waiting: requests waiting for a connection)",
      labelNames: ["state"],
      registers: [this.registry],
      collect() {
        this.set({ state: "total" }, pool.totalCount);
        this.set({ state: "idle" }, pool.idleCount);
        this.set({ state: "waiting" }, pool.waitingCount);
      },
    });
  }

  /** Hits, misses and entries of the in-memory caches. */
  caches(stats: () => CacheStats[]): void {
    new client.Counter({
      name: "vigie_cache_requests_total",
      help: "Reads of an in-memory cache, by cache and result (hit ratio: hit / (hit + miss))",
      labelNames: ["cache", "result"],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const s of stats()) {
          this.inc({ cache: s.name, result: "hit" }, s.hits);
          this.inc({ cache: s.name, result: "miss" }, s.misses);
        }
      },
    });
    new client.Gauge({
      name: "vigie_cache_entries",
      help: "Entries held by an in-memory cache",
      labelNames: ["cache"],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const s of stats()) this.set({ cache: s.name }, s.size);
      },
    });
  }

  /** A gauge family read at each scrape. */
  gauge(source: GaugeSource): void {
    new client.Gauge({
      name: source.name,
      help: source.help,
      labelNames: [...source.labelNames],
      registers: [this.registry],
      async collect() {
        this.reset();
        try {
          for (const { labels, value } of await source.read()) this.set(labels, value);
        } catch {
          // The database is unreachable: /readyz says so; the family is empty for this scrape.
        }
      },
    });
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** One label set of the HTTP figures: answers, their total time, and how many fell in each bucket (not cumulated). */
interface HttpFigures {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  buckets: number[];
}

/**
 * A prom-client metric over the HTTP figures, exposed as prom-client's own counter and histogram
 * would be (same names, labels and lines): prom-client asks get() at each scrape.
 */
function httpMetric(type: "counter" | "histogram", name: string, help: string, figures: () => HttpFigures[]): client.Metric {
  const values = () =>
    type === "counter"
      ? figures().map((f) => ({ labels: f.labels, value: f.count }))
      : figures().flatMap((f) => {
          let cumulated = 0;
          return [
            ...HTTP_BUCKETS.map((le, i) => {
              cumulated += f.buckets[i]!;
              return { labels: { le }, sharedLabels: f.labels, value: cumulated, metricName: `${name}_bucket` };
            }),
            { labels: { le: "+Inf" }, sharedLabels: f.labels, value: f.count, metricName: `${name}_bucket` },
            { labels: {}, sharedLabels: f.labels, value: f.sum, metricName: `${name}_sum` },
            { labels: {}, sharedLabels: f.labels, value: f.count, metricName: `${name}_count` },
          ];
        });
  const get = async () => ({ name, help, type, values: values(), aggregator: "sum" as const });
  return { name, help, type, aggregator: "sum", get, reset: () => undefined, labels: () => ({}) } as unknown as client.Metric;
}
