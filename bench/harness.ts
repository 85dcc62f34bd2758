import { createReadStream } from "node:fs";
import type { Services } from "../src/app.js";
import { createServer } from "node:http";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";

const DATA = process.env.VIGIE_SHARED_DATA ?? "../shared/data";

/** A webhook receiver: arrival time of each delivery, and how many times each was received. */
export function receiver() {
  const arrivals = new Map<string, number>();
  let duplicates = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const id = String(req.headers["x-vigie-delivery"]);
      if (arrivals.has(id)) duplicates++;
      else arrivals.set(id, performance.now());
      res.writeHead(204).end();
    });
  });
  return { server, arrivals, duplicates: () => duplicates };
}

export async function waitFor(test: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > until) throw new Error("timeout");
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(s.length * p))]!);
}

/** Published records of the 2024 CVE List file, one JSON line each, with their ids. */
export async function records(n: number): Promise<{ id: string; line: string }[]> {
  const out: { id: string; line: string }[] = [];
  const input = createReadStream(join(DATA, "cve-json5", "vulnrichment-2024.jsonl.gz")).pipe(createGunzip());
  for await (const line of createInterface({ input })) {
    const m = /"cveId"\s*:\s*"(CVE-\d+-\d+)"/.exec(line);
    if (m && line.includes('"PUBLISHED"')) out.push({ id: m[1]!, line });
    if (out.length === n) break;
  }
  input.destroy();
  return out;
}

/** A project watching these CVEs (items of type `cve`, 1,000 per stack) with a workflow posting each new match to `hook`. */
export async function watchingProject(services: Services, orgId: string, name: string, cveIds: string[], hook: string): Promise<string> {
  const project = await services.projects.create({ orgId, name });
  const scope = { id: project.id, orgId };
  for (let i = 0; i < cveIds.length; i += 1000)
    await services.stacks.create(scope, {
      name: `Pile ${i}`,
      items: cveIds.slice(i, i + 1000).map((value) => ({ item_type: "cve" as const, value, min_severity: null, tag_ids: [] })),
    } as never);
  await services.workflows.createAsOperator({
    orgId,
    projectId: project.id,
    name: "Webhook",
    trigger: { event: "cve.new_match" },
    actions: [{ type: "notify_webhook", params: { url: hook } }],
    create_case: false,
  } as never);
  return project.id;
}
