import { createHash, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { bearerToken } from "../auth/api-key-auth.js";
import { Unauthorized } from "../errors.js";
import { media, route, type RouteDef } from "../http/route.js";
import { UNAVAILABLE } from "../messages.js";
import type { Health } from "./health.js";
import type { Metrics } from "./metrics.js";

const Checks = z
  .record(z.string(), z.string())
  .describe(
    'Each check and "ok" or what is wrong: database (reachable, this code\'s migrations applied), listener (the notification connection), jobs (the job runner, where the role runs jobs), process (shutting down)',
  );
const HealthOut = z.object({ status: z.literal("ok") }).meta({ id: "HealthOut" });
const ReadyOut = z.object({ status: z.literal("ready"), role: z.enum(["all", "api", "worker"]), checks: Checks }).meta({ id: "ReadyOut" });
const NotReadyOut = z
  .object({ detail: z.literal(UNAVAILABLE.notReady), role: z.enum(["all", "api", "worker"]), checks: Checks })
  .meta({ id: "NotReadyOut" });

/** Constant-time comparison of two tokens (their hashes: equal lengths whatever was sent). */
function sameToken(given: string, expected: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * GET /healthz (the process answers), GET /readyz (it can serve: 503 with what is not ready) and
 * GET /metrics (Prometheus text; a bearer token when VIGIE_METRICS_TOKEN is set). No API key, no
 * hourly limit: they serve load balancers, orchestrators and Prometheus, in every role.
 */
export function opsRoutes(opts: {
  health: Health;
  metrics: Metrics;
  role: "all" | "api" | "worker";
  metricsToken: string | null;
}): RouteDef[] {
  const { health, metrics, role, metricsToken } = opts;
  return [
    route({
      operationId: "healthz",
      method: "GET",
      url: "/healthz",
      auth: "none",
      tags: ["operations"],
      database: false,
      summary: "Liveness: the process answers",
      description: "Checks nothing else: a process that answers is alive. Never counts against the hourly limit.",
      responses: { 200: HealthOut },
      handler: async () => ({ status: "ok" as const }),
    }),
    route({
      operationId: "readyz",
      method: "GET",
      url: "/readyz",
      auth: "none",
      tags: ["operations"],
      database: false,
      summary: "Readiness: the process can serve (503 with what is not ready)",
      description:
        "Ready when the database answers within 2 s with this code's migrations applied, the notification listener is up (the caches and the wake-ups depend on it), the job runner has started where the role runs jobs, and the process is not shutting down (SIGTERM). 503 otherwise, with each check's state. Never counts against the hourly limit.",
      responses: { 200: ReadyOut, 503: NotReadyOut },
      handler: async ({ reply }) => {
        const { ready, checks } = await health.readiness();
        if (ready) return { status: "ready" as const, role, checks };
        reply.code(503).header("retry-after", "2");
        return { detail: UNAVAILABLE.notReady, role, checks };
      },
    }),
    route({
      operationId: "metrics",
      errors: { 401: "VIGIE_METRICS_TOKEN is set and the bearer token is missing or another (WWW-Authenticate: Bearer)" },
      method: "GET",
      url: "/metrics",
      auth: "none",
      tags: ["operations"],
      database: false,
      summary: "Prometheus metrics of this process",
      description:
        "Prometheus text exposition (prom-client), labelled with the process's role: vigie_http_requests_total and vigie_http_request_duration_seconds (method, route template, status), vigie_jobs_total and vigie_job_duration_seconds (name, outcome), vigie_outbox_pending and vigie_outbox_lag_seconds (oldest pending event), vigie_runs_unfinished and vigie_runs_finished_last_hour (status), vigie_feed_* (per source: last success, lag, failures, stale), vigie_db_pool_connections (state), vigie_cache_requests_total (cache, hit or miss) and vigie_cache_entries, plus Node's process_* and nodejs_* figures. The database figures are read at each scrape and left out when the database cannot be reached.",
      responses: { 200: media({ "text/plain": z.string().describe("Prometheus text format 0.0.4") }) },
      handler: async ({ req, reply }) => {
        if (metricsToken !== null) {
          const token = bearerToken(req.headers.authorization);
          if (!token || !sameToken(token, metricsToken)) throw new Unauthorized();
        }
        const { contentType, body } = await metrics.render();
        reply.header("content-type", contentType);
        return body;
      },
    }),
  ];
}
