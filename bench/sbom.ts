/**
 * SBOM upload benchmark (BENCH=sbom): first a 1,000-component document (its first 1,000 components)
 * into a new stack on the database as the snapshot import left it (target ≤ 2 s); then a
 * 50,000-component CycloneDX 1.6 JSON document, made by the
 * reader benchmark's generator (bench/sbom-read.ts: the real components of this repository's npm
 * SBOM, repeated with distinct versions) without each component's description and external
 * references (the whole components make 61.6 MiB, over the 50 MiB limit), is uploaded through the
 * real HTTP route (POST …/stacks/sbom, streamed from the file) to a server process holding the
 * bundled snapshot of real data: a new stack, its 50,000 items matched. Then the same document
 * with 1 % changed (167 versions changed, 167 components removed, 166 added) into that stack, the
 * same document once more (nothing changes), and the stack's CycloneDX export. Prints the time of
 * each and the server process's peak RSS (VmHWM) around them. On PostgreSQL (BENCH_DATABASE_URL's
 * server, a fresh database), then PGlite (BENCH_PGLITE=off skips it).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { onEachDriver, type BenchTarget } from "./drivers.js";
import { cyclonedxComponents, writeDoc } from "./sbom-read.js";

type Json = Record<string, unknown>;

const FIXTURES = new URL("../test/fixtures/sbom/", import.meta.url);
const SERVER = fileURLToPath(new URL("./sbom-server.ts", import.meta.url));
/** The heap ceiling `npm start` gives the server. */
const NODE_ARGS = ["--max-old-space-size=1024", "--import", "tsx"];
const SERIAL = "urn:uuid:3c9a1f0e-8b7d-4e2a-9f6c-5d4b3a291807";
const TOTAL = 50_000;
const SMALL = 1_000;

const ECOSYSTEMS: Record<string, string> = { Go: "golang", PyPI: "pypi", "crates.io": "cargo", Maven: "maven" };

/**
 * Packages at a version the bundled snapshot's OSV advisories name as affected (the first version
 * they list, else the first `introduced` that is not 0), as components: what makes the upload raise
 * real alerts.
 */
function vulnerable(): Json[] {
  const text = gunzipSync(readFileSync(new URL("../fixtures/snapshot/osv/osv-subset.jsonl.gz", import.meta.url))).toString("utf8");
  const out = new Map<string, Json>();
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const advisory = JSON.parse(line) as {
      affected?: { package: { ecosystem: string; name: string }; versions?: string[]; ranges?: { events: Json[] }[] }[];
    };
    for (const a of advisory.affected ?? []) {
      const type = ECOSYSTEMS[a.package.ecosystem];
      const introduced = a.ranges?.flatMap((r) => r.events.map((e) => e.introduced as string | undefined)).find((v) => v && v !== "0");
      const version = a.versions?.[0] ?? introduced;
      if (!type || !version) continue;
      const name = type === "maven" ? a.package.name.replace(":", "/") : a.package.name;
      const v = type === "golang" ? `v${version}` : version;
      const purl = `pkg:${type}/${name.split("/").map(encodeURIComponent).join("/")}@${encodeURIComponent(v)}`;
      out.set(purl, { type: "library", "bom-ref": purl, name: name.split("/").at(-1), version: v, purl });
    }
  }
  return [...out.values()];
}

/** A component as an SBOM tool writes it, without its description and external references. */
function slim({ description: _d, externalReferences: _e, ...c }: Json): Json {
  return c;
}

/** The document's 50,000 components: the vulnerable packages, then the generator's npm packages. */
function* components(): Generator<Json> {
  const first = vulnerable();
  yield* first;
  let n = first.length;
  for (const c of cyclonedxComponents()) {
    if (n++ >= TOTAL) return;
    yield slim(c);
  }
}

/** The next version of the document: every 300th component's version changed, the one after it removed, 166 added. */
function* changed(): Generator<Json> {
  let n = 0;
  let added = 0;
  for (const c of components()) {
    if (n % 300 === 0) {
      const version = `${c.version}-u`;
      yield slim({ ...c, version, purl: String(c.purl).replace(`@${c.version}`, `@${version}`) });
    } else if (n % 300 !== 1) yield slim(c);
    if (n % 300 === 2 && added < 166) {
      added++;
      const version = `${c.version}-n`;
      yield slim({ ...c, version, "bom-ref": `${c["bom-ref"]}#n`, purl: String(c.purl).replace(`@${c.version}`, `@${version}`) });
    }
    n++;
  }
}

/** The first `n` components: a product's SBOM (the 1,030-package case of issue 33 measured 19–55 s on stale statistics). */
function* firstOf(n: number): Generator<Json> {
  let i = 0;
  for (const c of components()) {
    if (i++ >= n) return;
    yield c;
  }
}

async function documents(dir: string): Promise<{ small: string; first: string; next: string }> {
  const head = JSON.parse(readFileSync(new URL("vigie-npm.cdx.json", FIXTURES), "utf8")) as Json;
  const { components: _c, dependencies: _d, ...cdxHead } = head;
  const small = join(dir, "bom-1k.cdx.json");
  await writeDoc(small, { ...cdxHead, serialNumber: "urn:uuid:5f0c2b7e-1d3a-4c8b-9e6f-2a7d4b1c9e30" }, "components", firstOf(SMALL));
  const first = join(dir, "bom-50k.cdx.json");
  await writeDoc(first, { ...cdxHead, serialNumber: SERIAL }, "components", components());
  const next = join(dir, "bom-50k-v2.cdx.json");
  await writeDoc(next, { ...cdxHead, serialNumber: SERIAL, version: 2 }, "components", changed());
  return { small, first, next };
}

function env(target: BenchTarget): NodeJS.ProcessEnv {
  return {
    ...process.env,
    MALLOC_ARENA_MAX: "2",
    ...(target.databaseUrl ? { BENCH_DB_URL: target.databaseUrl } : { BENCH_DATA_DIR: target.dataDir }),
  };
}

/** Migrates and imports the snapshot in a process of its own. */
async function prepare(target: BenchTarget): Promise<number> {
  const t = performance.now();
  const child = spawn(process.execPath, [...NODE_ARGS, SERVER, "prepare"], { env: env(target), stdio: "inherit" });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`prepare exited with ${code}`);
  return (performance.now() - t) / 1000;
}

async function serve(target: BenchTarget): Promise<{ child: ChildProcess; port: number; key: string; base: string; base1k: string }> {
  const child = spawn(process.execPath, [...NODE_ARGS, SERVER], { env: env(target), stdio: ["ignore", "pipe", "inherit"] });
  // Its first JSON line says where it listens; what else it prints is passed on.
  const line = await new Promise<string>((resolve, reject) => {
    let started = false;
    createInterface({ input: child.stdout! }).on("line", (l) => {
      if (!started && l.startsWith("{")) {
        started = true;
        resolve(l);
      } else console.log(l);
    });
    child.once("exit", (code) => reject(new Error(`the server exited with ${code}`)));
  });
  return { child, ...(JSON.parse(line) as { port: number; key: string; base: string; base1k: string }) };
}

/** The process's resident set now and at its peak (VmRSS, VmHWM), in MB. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rss: Math.round(kb("VmRSS") / 1024), peak: Math.round(kb("VmHWM") / 1024) };
}

async function upload(port: number, key: string, path: string, file: string): Promise<{ seconds: number; status: number; body: Json }> {
  const t = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/vnd.cyclonedx+json" },
    body: Readable.toWeb(createReadStream(file)) as ReadableStream,
    duplex: "half",
  } as RequestInit);
  const body = (await res.json()) as Json;
  return { seconds: (performance.now() - t) / 1000, status: res.status, body };
}

const count = (v: unknown) => (v as { count: number }).count;
const round = (s: number) => Math.round(s * 100) / 100;

export async function benchSbom(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "vigie-sbom-bench-"));
  try {
    const { small, first, next } = await documents(dir);
    const rows = await onEachDriver("sbom", async (target) => {
      const snapshotSeconds = await prepare(target);
      const server = await serve(target);
      try {
        const out: Json[] = [];
        const started = memory(server.child.pid!);
        const step = async (label: string, run: () => Promise<{ seconds: number; status: number; body: Json }>, file?: string) => {
          const t = performance.now();
          const r = await run();
          if (r.status >= 300) throw new Error(`${label}: ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
          // Items past VIGIE_MATCH_INLINE_MAX candidates: their alerts come after the answer (ADR 0037), timed until the last.
          const deferred = Number(r.body.correspondances_en_arriere_plan ?? 0);
          let background: Json = { pending: 0, alerts: "" };
          while (deferred > 0) {
            background = (await (await fetch(`http://127.0.0.1:${server.port}/bench/matching`)).json()) as Json;
            if (background.pending === 0) break;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          const m = memory(server.child.pid!);
          out.push({
            step: label,
            MiB: file ? round(statSync(file).size / 2 ** 20) : "",
            seconds: round(r.seconds),
            status: r.status,
            ajoutes: r.body.ajoutes === undefined ? "" : count(r.body.ajoutes),
            retires: r.body.retires === undefined ? "" : count(r.body.retires),
            versions: r.body.versions_changees === undefined ? "" : count(r.body.versions_changees),
            inchanges: r.body.inchanges ?? "",
            "alertes créées": r.body.alertes_creees ?? "",
            "plus correspondantes": r.body.alertes_plus_correspondantes ?? "",
            "en arrière-plan": deferred || "",
            "alerts done after s": deferred ? round((performance.now() - t) / 1000) : "",
            "RSS MB": m.rss,
            "peak RSS MB": m.peak,
          });
          return r;
        };
        // First, a product's SBOM into a project of its own, on statistics taken before any SBOM (sbom-server.ts).
        await step(
          "1,000 components → new stack",
          () => upload(server.port, server.key, `${server.base1k}/stacks/sbom?name=bench-1k`, small),
          small,
        );
        const created = await step(
          "50,000 components → new stack",
          () => upload(server.port, server.key, `${server.base}/stacks/sbom?name=bench`, first),
          first,
        );
        const stackId = (created.body.stack as { id: string }).id;
        await step("re-upload, 1 % changed", () => upload(server.port, server.key, `${server.base}/stacks/${stackId}/sbom`, next), next);
        await step("re-upload, same document", () => upload(server.port, server.key, `${server.base}/stacks/${stackId}/sbom`, next), next);
        await step("GET …/sbom (CycloneDX export)", async () => {
          const t = performance.now();
          const res = await fetch(`http://127.0.0.1:${server.port}${server.base}/stacks/${stackId}/sbom`, {
            headers: { authorization: `Bearer ${server.key}` },
          });
          const text = await res.text();
          return {
            seconds: (performance.now() - t) / 1000,
            status: res.status,
            body: { components: (JSON.parse(text) as { components: unknown[] }).components.length },
          };
        });
        console.log(
          `\n${target.driver}: snapshot imported in ${round(snapshotSeconds)} s (another process); server at start: RSS ${started.rss} MB, peak ${started.peak} MB`,
        );
        return { rows: out };
      } finally {
        server.child.kill("SIGTERM");
        await new Promise((resolve) => server.child.once("exit", resolve));
      }
    });
    for (const r of rows) {
      console.log(`\nSBOM upload through HTTP (${r.driver}; ${process.env.BENCH_CPU ?? "this machine"}):`);
      console.table(r.rows);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
