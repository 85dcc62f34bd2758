/**
 * A whole local mirror of the publishers, built from the real files of ../shared/data and served in
 * each publisher's own layout (scripts/mirror/<source>.ts, the same code as the tests' local
 * publishers): `npx tsx scripts/mirror.ts [--port 8099] [--data ../shared/data] [--drip 120]` prints
 * the VIGIE_FEED_URLS_<SOURCE> settings that point a Vigie at it (README, Keeping current). Every
 * --drip seconds the CVE List mirror publishes one of the CVEs it held back as a new delta release.
 */
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { certfrMirror } from "./mirror/certfr.js";
import { cve5Mirror } from "./mirror/cve5.js";
import { eolMirror } from "./mirror/eol.js";
import { filesMirror } from "./mirror/files.js";
import { type Mirror, serveMirrors } from "./mirror/mirror.js";
import { nvdMirror } from "./mirror/nvd.js";
import { osvMirror } from "./mirror/osv.js";
import { pocMirror } from "./mirror/poc.js";

/** Every publisher's mirror over the data directory (`../shared/data`). */
export async function wholeDataMirrors(data: string, opts: { dripEveryMs?: number } = {}): Promise<Mirror[]> {
  const rss = `${data}/rss/cyberdash-2025-07-24`;
  return [
    // A few CVEs held back from the baseline, published one by one as new hourly deltas (drip).
    cve5Mirror({ dataDir: data, ...(opts.dripEveryMs ? { dripEveryMs: opts.dripEveryMs } : {}) }),
    await nvdMirror({ data }),
    filesMirror("kev", { "known_exploited_vulnerabilities.json": `${data}/kev/known_exploited_vulnerabilities.json` }),
    // The daily file under its dated name: the copy in ../shared/data has no #score_date line (MANIFEST.md).
    filesMirror("epss", { "epss_scores-2026-08-16.csv.gz": `${data}/epss/epss_scores-2026-08-16.from-first-api.csv.gz` }),
    filesMirror("rss", {
      "bleepingcomputer.xml": `${rss}/bleepingcomputer.xml`,
      "cybersecurity-advisories.xml": `${rss}/cybersecurity-advisories.xml`,
      "securityweek.xml": `${rss}/securityweek.xml`,
    }),
    osvMirror({ data }),
    eolMirror({ data }),
    await pocMirror({ dataDir: data }),
    certfrMirror({ data }),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "8099" },
      data: { type: "string", default: "../shared/data" },
      drip: { type: "string", default: "120" },
    },
  });
  const mirrors = await wholeDataMirrors(values.data, { dripEveryMs: Number(values.drip) * 1000 });
  const server = await serveMirrors(mirrors, Number(values.port));
  console.log(`# mirror of ${values.data} at ${server.origin}: point Vigie at it with`);
  for (const [name, value] of Object.entries(server.env())) console.log(`export ${name}=${value}`);
}
