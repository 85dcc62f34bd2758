/**
 * VIGIE_ROLE, black box (PostgreSQL: roles apart need it): an api process and a worker process over
 * one database. The api serves and enqueues, the worker runs what the api's writes caused and serves
 * only its health and metrics; SIGTERM stops each gracefully, a second one exits at once.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { freshStore, startServer } from "./server-process.js";

const run = promisify(execFile);
const postgres = !!process.env.DATABASE_URL;

/** A request whose body never ends: in flight until the server gives up on it. */
function hangingRequest(url: string): void {
  const req = request(`${url}/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
  });
  req.on("error", () => undefined);
  req.write("{");
}

describe.runIf(postgres)("an api process and a worker process", async () => {
  const store = await freshStore();
  afterAll(() => store.remove());
  const serverEnv = { ...store.env, VIGIE_SNAPSHOT: "off", VIGIE_FEEDS_SYNC: "off", VIGIE_SECRET_KEY: randomBytes(32).toString("base64") };
  const env = { ...process.env, ...serverEnv };
  // biome-ignore lint/suspicious/noExplicitAny: a command's JSON result, read field by field.
  const cli = async (...args: string[]): Promise<any> =>
    JSON.parse((await run(process.execPath, ["dist/cli.js", ...args, "--json"], { env, timeout: 120_000 })).stdout);

  it("the api's write raises an event, the worker runs its workflow; the worker serves nothing else; SIGTERM stops each", async () => {
    const api = startServer({ ...serverEnv, VIGIE_ROLE: "api", VIGIE_SHUTDOWN_TIMEOUT_MS: "1500" });
    const worker = startServer({ ...serverEnv, VIGIE_ROLE: "worker" });
    try {
      const [apiUrl, workerUrl] = await Promise.all([api.ready(120_000), worker.ready(120_000)]);
      const ready = await (await fetch(`${workerUrl}/readyz`)).json();
      expect(ready).toEqual({ status: "ready", role: "worker", checks: { database: "ok", listener: "ok", jobs: "ok" } });
      expect(await (await fetch(`${apiUrl}/readyz`)).json()).toEqual({
        status: "ready",
        role: "api",
        checks: { database: "ok", listener: "ok" },
      });
      for (const path of ["/api/v1/me", "/openapi.json", "/docs"]) expect((await fetch(`${workerUrl}${path}`)).status).toBe(404);

      // PAN-OS CVEs imported by the CLI, then a stack that matches them, written through the api: the
      // project's default workflow (a verified P1/P2 new match → create_case) runs on the worker.
      const org = await cli("org", "create", "--name", "Acme");
      const project = await cli("project", "create", "--org", org.id, "--name", "Production");
      const { key } = await cli("apikey", "create", "--org", org.id, "--scope", "stacks-write", "--name", "ci");
      expect((await cli("feeds", "import", "--source", "cve5", "test/fixtures/matching/cve5-panos.jsonl")).errors).toEqual([]);
      const base = `${apiUrl}/api/v1/organizations/${org.id}/projects/${project.id}`;
      const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
      const stack = await fetch(`${base}/stacks`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "Edge", items: [{ item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" }] }),
      });
      expect(stack.status).toBe(201);
      const raised = ((await stack.json()) as { alertes_creees: number }).alertes_creees;
      expect(raised).toBeGreaterThan(0);
      // The worker runs the default workflow on the new match: CVE-2024-9468 (high, not KEV: P3), so the
      // run ends at its condition and no case opens (the alert waits in the inbox).
      const [workflow] = (await (await fetch(`${base}/workflows`, { headers })).json()) as { id: string }[];
      let runs: { status: string; cve_id: string }[] = [];
      for (let i = 0; i < 100 && runs.length < raised; i++) {
        await new Promise((r) => setTimeout(r, 200));
        runs = ((await (await fetch(`${base}/workflows/${workflow!.id}/runs`, { headers })).json()) as typeof runs).filter(
          (r) => r.status === "success",
        );
      }
      expect(runs.map((r) => r.cve_id)).toEqual(["CVE-2024-9468"]);
      expect(((await (await fetch(`${base}/cases`, { headers })).json()) as { total: number }).total).toBe(0);
      const ran = worker.logs.filter((l) => l.msg === "runs-dispatch done" && l.role === "worker");
      expect(ran.length).toBeGreaterThan(0);
      expect(api.logs.some((l) => l.msg === "runs-dispatch done")).toBe(false); // the api only enqueues

      await worker.stop("SIGTERM");
      expect(worker.proc.exitCode).toBe(0);
      expect(worker.logs.map((l) => l.msg)).toEqual(expect.arrayContaining(["arrêt en cours", "arrêté"]));

      // A request still in flight at the end of the grace time (1.5 s here): its connection is closed, the process exits 0.
      hangingRequest(apiUrl);
      await api.waitForLog((l) => l.msg === "incoming request" && l.req?.url === "/auth/login");
      const t0 = Date.now();
      await api.stop("SIGTERM");
      expect(api.proc.exitCode).toBe(0);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1400);
      expect(api.logs.map((l) => l.msg)).toEqual(
        expect.arrayContaining(["requêtes encore en cours à l'échéance : connexions fermées", "arrêté"]),
      );
    } finally {
      await api.stop();
      await worker.stop();
    }
  }, 600_000);

  it("a second SIGTERM exits at once, whatever is still in flight", async () => {
    const api = startServer({ ...serverEnv, VIGIE_ROLE: "api", VIGIE_SHUTDOWN_TIMEOUT_MS: "60000" });
    try {
      const url = await api.ready(120_000);
      hangingRequest(url);
      await api.waitForLog((l) => l.msg === "incoming request" && l.req?.url === "/auth/login");
      api.proc.kill("SIGTERM");
      await api.waitForLog((l) => l.msg === "arrêt en cours");
      const t0 = Date.now();
      await api.stop("SIGTERM");
      expect(api.proc.exitCode).toBe(1);
      expect(Date.now() - t0).toBeLessThan(5000);
      expect(api.logs.some((l) => l.msg === "second signal : arrêt immédiat")).toBe(true);
    } finally {
      await api.stop();
    }
  }, 180_000);
});
