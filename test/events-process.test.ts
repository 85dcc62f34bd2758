import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { cliSession, freshStore, startServer } from "./server-process.js";

/**
 * Dispatch woken at commit, black box: a server runs; the CLI, another process, imports CVE
 * records its project watches; each import's run is dispatched and finished within 5 seconds — the
 * runs-dispatch cron is a minute, so three imports in a row could not all be caught by it — and
 * the server logs the dispatch the notification woke. On PostgreSQL the CLI writes through its own
 * connection; on PGlite it hands the command to the server (admin socket), whose commit notifies
 * in process.
 */
const run = promisify(execFile);
const store = await freshStore();
afterAll(() => store.remove());
const env = { ...process.env, ...store.env, VIGIE_SNAPSHOT: "off" };
// biome-ignore lint/suspicious/noExplicitAny: a command's JSON result, read field by field.
const cli = async (...args: string[]): Promise<any> =>
  JSON.parse((await run(process.execPath, ["dist/cli.js", ...args, "--json"], { env, timeout: 120_000 })).stdout);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Three real published records of the CVE List sample, one file each.
const dir = mkdtempSync(join(tmpdir(), "vigie-events-"));
const records = readFileSync("test/fixtures/import/cve5-sample.jsonl", "utf8")
  .split("\n")
  .filter((l) => l.includes('"PUBLISHED"'))
  .map((line) => {
    const id = /"cveId":"(CVE-[\d-]+)"/.exec(line)![1]!;
    const file = join(dir, `${id}.jsonl`);
    writeFileSync(file, `${line}\n`);
    return { id, file };
  });

describe("events written by another process", () => {
  it("are dispatched within 5 seconds of the import, woken by the notification (the cron is a minute)", async () => {
    expect(records.map((r) => r.id)).toEqual(["CVE-2024-0001", "CVE-2024-3400", "CVE-2024-6387"]);
    // The set-up's commands in one process (the CLI's own commands; cli.test.ts tests them one by one).
    const setup = cliSession({ ...store.env, VIGIE_SNAPSHOT: "off" });
    const org = await setup.run<{ id: string }>("org", "create", "--name", "Acme");
    const project = await setup.run<{ id: string }>("project", "create", "--org", org.id, "--name", "Production");
    const { key } = await setup.run<{ key: string }>("apikey", "create", "--org", org.id, "--scope", "stacks-write", "--name", "ci");
    await setup.close();
    const server = startServer({ ...store.env, VIGIE_SNAPSHOT: "off" });
    try {
      const url = await server.ready(240_000);
      const api = `${url}/api/v1/organizations/${org.id}/projects/${project.id}`;
      const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
      const items = records.map((r) => ({ item_type: "cve", value: r.id }));
      const stack = await fetch(`${api}/stacks`, { method: "POST", headers, body: JSON.stringify({ name: "Veille", items }) });
      expect(stack.status).toBe(201);
      const [workflow] = (await (await fetch(`${api}/workflows`, { headers })).json()) as { id: string }[];
      const finished = async () =>
        ((await (await fetch(`${api}/workflows/${workflow!.id}/runs`, { headers })).json()) as { finished_at: string | null }[]).filter(
          (r) => r.finished_at !== null,
        ).length;
      const delays: number[] = [];
      for (const [i, r] of records.entries()) {
        const imported = await cli("feeds", "import", "--source", "cve5", r.file);
        expect(imported.errors).toEqual([]);
        const at = Date.now();
        while ((await finished()) < i + 1 && Date.now() - at < 5_000) await sleep(50);
        expect(await finished()).toBe(i + 1);
        delays.push(Date.now() - at);
      }
      expect(delays.every((d) => d < 5_000)).toBe(true);
      expect(server.logs.some((l) => l.msg === "runs-dispatch done" && l.wake === "notify" && l.events >= 1)).toBe(true);
    } finally {
      await server.stop();
    }
  }, 600_000);
});
