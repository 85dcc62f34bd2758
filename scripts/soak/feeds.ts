import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { records } from "../../bench/harness.js";
import { type Cve5Mirror, cve5Mirror } from "../mirror/cve5.js";
import { filesMirror } from "../mirror/files.js";
import { type MirrorServer, serveMirrors } from "../mirror/mirror.js";
import type { Cli } from "./setup.js";

/** A CVE record of the CVE List (2024, published), one JSON line. */
export interface CveRecord {
  id: string;
  line: string;
}

/** Every source Vigie knows; those the soak does not mirror are turned off (no request leaves the machine). */
const SOURCES = ["CVE5", "NVD", "KEV", "EPSS", "POC", "OSV", "CERTFR", "RSS", "EOL"];

/**
 * The records of the soak, from ../shared/data's 2024 CVE List file, in three parts: `base`
 * imported before the processes start (the traffic adds them to its stack, each raising an alert),
 * `imported` by `feeds import` in another process during the run, `published` by the CVE List
 * mirror as delta releases that the workers' sync applies. The last two are watched from the start.
 */
export async function soakRecords(base: number, imported: number, published: number) {
  const all = await records(base + imported + published);
  return { base: all.slice(0, base), imported: all.slice(base, base + imported), published: all.slice(base + imported) };
}

/**
 * The local publishers: the CVE List (an empty baseline, then deltas of `publish`ed records) and the
 * KEV catalog. The CVE List is synced every 15 s: a worker killed while it syncs holds the source's
 * lease until it runs out (90 s), so the shorter the rhythm, the likelier a kill stalls it.
 */
export async function startMirrors(data: string): Promise<{ server: MirrorServer; cve5: Cve5Mirror; env: Record<string, string> }> {
  const cve5 = cve5Mirror({ records: [] });
  const kev = filesMirror("kev", { "known_exploited_vulnerabilities.json": `${data}/kev/known_exploited_vulnerabilities.json` });
  await cve5.ready();
  const server = await serveMirrors([cve5, kev]);
  const env: Record<string, string> = Object.fromEntries(SOURCES.map((s) => [`VIGIE_FEED_URLS_${s}`, ""]));
  return { server, cve5, env: { ...env, ...server.env(), VIGIE_FEEDS_EVERY_CVE5: "15s" } };
}

/** One `feeds import` by the CLI: the records it carried, whether it succeeded, when. */
export interface ImportRun {
  ids: string[];
  ok: boolean;
  error?: string;
  start: number;
  end: number;
}

/** Imports `recs` with the CLI (another process, as an operator's cron would), `batch` at a time; a failed import is tried again. */
export async function importBatch(cli: Cli, dir: string, recs: CveRecord[], runs: ImportRun[]): Promise<void> {
  const file = join(dir, `import-${runs.length + 1}.jsonl`);
  writeFileSync(file, recs.map((r) => r.line).join("\n") + "\n");
  for (let attempt = 0; attempt < 5; attempt++) {
    const start = Date.now();
    try {
      const result = await cli("feeds", "import", "--source", "cve5", file);
      const ok = result.errors.length === 0;
      runs.push({ ids: recs.map((r) => r.id), ok, start, end: Date.now(), ...(ok ? {} : { error: JSON.stringify(result.errors) }) });
      if (ok) return;
    } catch (err) {
      runs.push({
        ids: recs.map((r) => r.id),
        ok: false,
        error: (err as Error).message.split("\n").slice(0, 3).join(" "),
        start,
        end: Date.now(),
      });
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
}
