import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { freshStore, startServer } from "./server-process.js";

/**
 * The acceptance, black box, with the built server and CLI: a stack item, an import made by
 * the CLI while the server is stopped, then the server started — the default workflow's case
 * arrives, once per CVE, with one run each.
 */
const run = promisify(execFile);
const store = await freshStore();
afterAll(() => store.remove());
// The server takes the store (startServer adds process.env and LOG_LEVEL=info); the CLI the same over process.env.
const serverEnv = { ...store.env, VIGIE_SNAPSHOT: "off" };
const env = { ...process.env, ...serverEnv };
// biome-ignore lint/suspicious/noExplicitAny: a command's JSON result, read field by field.
const cli = async (...args: string[]): Promise<any> =>
  JSON.parse((await run(process.execPath, ["dist/cli.js", ...args, "--json"], { env, timeout: 120_000 })).stdout);

describe("events written while no server ran", () => {
  it("an import by the CLI with the server stopped: at the next start, the default workflow opens each case once", async () => {
    const org = await cli("org", "create", "--name", "Acme");
    const project = await cli("project", "create", "--org", org.id, "--name", "Production");
    const { key } = await cli("apikey", "create", "--org", org.id, "--scope", "stacks-write", "--name", "ci");
    const base = (url: string) => `${url}/api/v1/organizations/${org.id}/projects/${project.id}`;
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };

    const first = startServer(serverEnv);
    try {
      const url = await first.ready(240_000);
      const res = await fetch(`${base(url)}/stacks`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "Edge", items: [{ item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" }] }),
      });
      expect(res.status).toBe(201);
      expect(((await res.json()) as { alertes_creees: number }).alertes_creees).toBe(0); // no CVE known yet
    } finally {
      await first.stop();
    }

    const imported = await cli(
      "feeds",
      "import",
      "--source",
      "cve5",
      "test/fixtures/import/cve5-sample.jsonl",
      "test/fixtures/matching/cve5-panos.jsonl",
    );
    expect(imported.errors).toEqual([]);

    const second = startServer(serverEnv);
    try {
      const url = await second.ready(240_000);
      // biome-ignore lint/suspicious/noExplicitAny: JSON answers, read field by field.
      const get = async (path: string): Promise<any> => (await fetch(`${base(url)}${path}`, { headers })).json();
      const [workflow] = await get("/workflows");
      // The start-up dispatch, then the runs' jobs: wait for both runs to finish.
      let runs: { status: string; finished_at: string | null; cve_id: string }[] = [];
      for (let i = 0; i < 1200; i++) {
        runs = await get(`/workflows/${workflow.id}/runs`);
        if (runs.length >= 2 && runs.every((r) => r.finished_at !== null)) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(runs.map((r) => [r.cve_id, r.status]).sort()).toEqual([
        ["CVE-2024-3400", "success"],
        ["CVE-2024-9468", "success"],
      ]);
      const cases = await get("/cases");
      expect(cases.total).toBe(2);
      expect(cases.items.map((c: { cve_id: string }) => c.cve_id).sort()).toEqual(["CVE-2024-3400", "CVE-2024-9468"]);
    } finally {
      await second.stop();
    }
  }, 600_000);
});
