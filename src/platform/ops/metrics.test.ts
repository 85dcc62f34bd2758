import client from "prom-client";
import { describe, expect, it } from "vitest";
import { HTTP_BUCKETS, Metrics } from "./metrics.js";

/** The lines of one metric family in an exposition text. */
function family(text: string, name: string): string[] {
  return text
    .split("\n")
    .filter(
      (line) =>
        line.startsWith(`${name}{`) || line.startsWith(`${name}_`) || line.endsWith(` ${name} counter`) || line.includes(` ${name} `),
    );
}

describe("Metrics: the HTTP figures", () => {
  it("read exactly as prom-client's own labelled counter and histogram would, fed the same answers", async () => {
    const answers: [string, string, number, number][] = [
      ["GET", "/api/v1/organizations/:org_id/projects/:project_id/workflows", 200, 0.0004],
      ["GET", "/api/v1/organizations/:org_id/projects/:project_id/workflows", 200, 0.003],
      ["GET", "/api/v1/organizations/:org_id/projects/:project_id/workflows", 200, 0.001], // on a bound
      ["GET", "/api/v1/organizations/:org_id/projects/:project_id/workflows", 429, 0.02],
      ["POST", "/api/v1/organizations/:org_id/projects/:project_id/workflows", 201, 12], // past the last bucket
      ["GET", "(aucune)", 404, 0.0001],
    ];
    const metrics = new Metrics("api");
    for (const a of answers) metrics.answered(...a);

    const registry = new client.Registry();
    registry.setDefaultLabels({ role: "api" });
    const labelNames = ["method", "route", "status"] as const;
    const count = new client.Counter({
      name: "vigie_http_requests_total",
      help: "HTTP requests answered, by method, route template and status",
      labelNames,
      registers: [registry],
    });
    const duration = new client.Histogram({
      name: "vigie_http_request_duration_seconds",
      help: "Time from the request's arrival to its answer, by method, route template and status",
      labelNames,
      buckets: HTTP_BUCKETS,
      registers: [registry],
    });
    for (const [method, route, status, seconds] of answers) {
      count.inc({ method, route, status: String(status) });
      duration.observe({ method, route, status: String(status) }, seconds);
    }
    const ours = (await metrics.render()).body;
    const theirs = await registry.metrics();
    for (const name of ["vigie_http_requests_total", "vigie_http_request_duration_seconds"]) {
      expect(family(ours, name)).toEqual(family(theirs, name));
      expect(family(ours, name).length).toBeGreaterThan(4);
    }
    expect(ours).toContain(
      'vigie_http_request_duration_seconds_bucket{le="0.001",role="api",method="GET",route="/api/v1/organizations/:org_id/projects/:project_id/workflows",status="200"} 2',
    );
  });
});
