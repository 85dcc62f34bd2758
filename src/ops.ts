import type { Config } from "./config.js";
import type { FeedsService } from "./feeds/feeds.service.js";
import type { RunsService } from "./modules/runs/runs.service.js";
import type { CacheFeed } from "./platform/db/cache-feed.js";
import type { Database } from "./platform/db/client.js";
import { Health } from "./platform/ops/health.js";
import { Metrics } from "./platform/ops/metrics.js";
import { opsRoutes } from "./platform/ops/routes.js";
import type { RouteDef } from "./platform/http/route.js";

/** What a process tells about itself: /healthz, /readyz and /metrics, in every role. */
export interface Ops {
  health: Health;
  metrics: Metrics;
  routes: RouteDef[];
}

/** What the health checks and the metrics read of the services. */
export interface OpsSources {
  cacheFeed: CacheFeed;
  runs: Pick<RunsService, "gauges">;
  feeds: Pick<FeedsService, "status">;
}

/** One read shared by the gauge families of a scrape (they are collected one after the other). */
function perScrape<T>(read: () => Promise<T>, ms = 1000): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | null = null;
  return () => {
    const now = Date.now();
    if (!last || now - last.at > ms) last = { at: now, value: read() };
    return last.value;
  };
}

/**
 * The process's health checks and metrics over its services: the listener check (caches and
 * wake-ups depend on it), the database pool, the caches, and the figures read from the database at
 * each scrape — the outbox lag and the runs (the engine's) and the feed sync state per source.
 */
export function createOps(config: Config, database: Database, services: OpsSources): Ops {
  const health = new Health(database);
  health.add("listener", () =>
    services.cacheFeed.live ? { ok: true } : { ok: false, detail: "connexion des notifications (LISTEN) absente : reconnexion en cours" },
  );
  const metrics = new Metrics(config.role);
  if (database.pool) metrics.pool(database.pool);
  metrics.caches(() => services.cacheFeed.stats());
  const engine = perScrape(() => services.runs.gauges());
  metrics.gauge({
    name: "vigie_outbox_pending",
    help: "Outbox events not yet dispatched into runs",
    labelNames: [],
    read: async () => [{ labels: {}, value: (await engine()).pending }],
  });
  metrics.gauge({
    name: "vigie_outbox_lag_seconds",
    help: "Age of the oldest outbox event not yet dispatched (0: none pending)",
    labelNames: [],
    read: async () => [{ labels: {}, value: (await engine()).lagSeconds }],
  });
  metrics.gauge({
    name: "vigie_runs_unfinished",
    help: "Workflow runs not finished, by lease: held (a worker runs it) or expired (waiting for runs-recover)",
    labelNames: ["lease"],
    read: async () => {
      const g = await engine();
      return [
        { labels: { lease: "held" }, value: g.unfinished - g.expired },
        { labels: { lease: "expired" }, value: g.expired },
      ];
    },
  });
  metrics.gauge({
    name: "vigie_runs_finished_last_hour",
    help: "Workflow runs finished in the last hour, by status",
    labelNames: ["status"],
    read: async () => Object.entries((await engine()).finished).map(([status, value]) => ({ labels: { status }, value })),
  });
  const feeds = perScrape(() => services.feeds.status());
  const perSource = (name: string, help: string, value: (s: Awaited<ReturnType<typeof feeds>>[number]) => number | null) =>
    metrics.gauge({
      name,
      help,
      labelNames: ["source"],
      read: async () =>
        (await feeds())
          .filter((s) => s.enabled)
          .flatMap((s) => {
            const v = value(s);
            return v === null ? [] : [{ labels: { source: s.source }, value: v }];
          }),
    });
  perSource("vigie_feed_last_success_timestamp_seconds", "Unix time of the source's last successful sync", (s) =>
    s.last_success_at ? s.last_success_at.getTime() / 1000 : null,
  );
  perSource(
    "vigie_feed_lag_seconds",
    "Seconds behind the publisher: now minus the publisher's time of the newest data applied",
    (s) => s.lag_seconds,
  );
  perSource("vigie_feed_failures", "Consecutive failed syncs of the source (0: the last one succeeded)", (s) => s.failures);
  perSource("vigie_feed_stale", "1 when the source has been failing for more than a day", (s) => (s.stale ? 1 : 0));
  perSource("vigie_feed_running", "1 while a process holds the source's sync lease", (s) => (s.running ? 1 : 0));
  return {
    health,
    metrics,
    routes: opsRoutes({ health, metrics, role: config.role, metricsToken: config.metricsToken }),
  };
}
