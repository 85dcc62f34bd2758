/**
 * SBOM reader benchmark (BENCH=sbom-read): a 50,000-component CycloneDX 1.6 JSON document, a
 * 50,000-package SPDX 2.3 JSON document and the same 50,000 components as CycloneDX 1.5 XML (with
 * fewer fields per component), read by readSbom in a child process each; prints the time and the
 * child's peak RSS. The documents are built from real data: the 370 components of this
 * repository's npm SBOM (test/fixtures/sbom/vigie-npm.cdx.json) and the 159 packages of npm's SPDX
 * SBOM (vigie-npm.spdx.json), repeated with distinct versions (`<version>-r<n>`), bom-refs and SPDXIDs.
 */
import { execFile } from "node:child_process";
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const FIXTURES = new URL("../test/fixtures/sbom/", import.meta.url);
const TARGET = 50_000;

type Json = Record<string, unknown>;

/** Writes a document whose big array is streamed out item by item (the generator holds one at a time). */
export async function writeDoc(file: string, head: Json, key: string, items: Iterable<Json>, tail: Json = {}) {
  const out = createWriteStream(file);
  const write = (s: string) => (out.write(s) ? undefined : new Promise<void>((r) => out.once("drain", () => r())));
  const headText = JSON.stringify(head, null, 2);
  await write(`${headText.slice(0, -2)},\n  "${key}": [\n`);
  let first = true;
  for (const item of items) {
    await write(`${first ? "" : ",\n"}${JSON.stringify(item, null, 2).replace(/^/gm, "    ")}`);
    first = false;
  }
  const tailText = Object.keys(tail).length ? `,\n${JSON.stringify(tail, null, 2).slice(2, -2)}` : "";
  await write(`\n  ]${tailText}\n}\n`);
  await new Promise<void>((r) => out.end(() => r()));
}

/** The npm SBOM's components (nested ones lifted), repeated until `TARGET`, each copy with its own version and bom-ref. */
export function* cyclonedxComponents(): Generator<Json> {
  const doc = JSON.parse(readFileSync(new URL("vigie-npm.cdx.json", FIXTURES), "utf8")) as Json;
  const flat: Json[] = [];
  const walk = (list: Json[] | undefined) => {
    for (const { components, ...c } of list ?? []) {
      flat.push(c);
      walk(components as Json[] | undefined);
    }
  };
  walk(doc.components as Json[]);
  for (let n = 0; n < TARGET; n++) {
    const c = flat[n % flat.length] as Json;
    const round = Math.floor(n / flat.length);
    const version = `${c.version}-r${round}`;
    yield {
      ...c,
      version,
      "bom-ref": `${c["bom-ref"]}#r${round}`,
      purl: String(c.purl).replace(`@${c.version}`, `@${version}`),
    };
  }
}

function* spdxPackages(): Generator<Json> {
  const doc = JSON.parse(readFileSync(new URL("vigie-npm.spdx.json", FIXTURES), "utf8")) as Json;
  const packages = (doc.packages as Json[]).slice(1); // the first is vigie itself (DESCRIBED)
  for (let n = 0; n < TARGET; n++) {
    const p = packages[n % packages.length] as Json;
    const round = Math.floor(n / packages.length);
    const version = `${p.versionInfo}-r${round}`;
    yield {
      ...p,
      SPDXID: `${p.SPDXID}-r${round}`,
      versionInfo: version,
      externalRefs: (p.externalRefs as Json[]).map((r) => ({
        ...r,
        referenceLocator: String(r.referenceLocator).replace(`@${p.versionInfo}`, `@${version}`),
      })),
    };
  }
}

const xmlEscape = (v: unknown) =>
  String(v).replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

/** The same 50,000 components as CycloneDX 1.5 XML (type, bom-ref, group, name, version, purl). */
async function writeXml(file: string) {
  const out = createWriteStream(file);
  const write = (s: string) => (out.write(s) ? undefined : new Promise<void>((r) => out.once("drain", () => r())));
  await write(
    '<?xml version="1.0" encoding="UTF-8"?>\n<bom xmlns="http://cyclonedx.org/schema/bom/1.5" version="1">\n' +
      '  <metadata>\n    <component type="application" bom-ref="vigie@0.1.0"><name>vigie</name><version>0.1.0</version></component>\n  </metadata>\n  <components>\n',
  );
  for (const c of cyclonedxComponents()) {
    const group = c.group ? `<group>${xmlEscape(c.group)}</group>` : "";
    await write(
      `    <component type="${xmlEscape(c.type)}" bom-ref="${xmlEscape(c["bom-ref"])}">${group}<name>${xmlEscape(c.name)}</name>` +
        `<version>${xmlEscape(c.version)}</version><purl>${xmlEscape(c.purl)}</purl></component>\n`,
    );
  }
  await write("  </components>\n</bom>\n");
  await new Promise<void>((r) => out.end(() => r()));
}

interface ChildResult {
  components: number;
  componentCount: number;
  seconds: number;
  rss_before_mb: number;
  peak_rss_mb: number;
}

/** The child: reads one file with readSbom and prints its figures. */
async function child(file: string) {
  const { readSbom } = await import("../src/sbom/read.js");
  const { cyclonedxValidators, spdxValidators } = await import("../src/sbom/schemas.js");
  // Schemas compiled before measuring: the figure is the reading's.
  cyclonedxValidators("1.6");
  spdxValidators("2.3");
  await readSbom(createReadStream(new URL("vigie-npm-1.5.cdx.xml", FIXTURES))); // the XSD, parsed once
  const before = process.memoryUsage().rss;
  const t = performance.now();
  const doc = await readSbom(createReadStream(file));
  const seconds = (performance.now() - t) / 1000;
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
  const result: ChildResult = {
    components: doc.components.length,
    componentCount: doc.componentCount,
    seconds: Math.round(seconds * 100) / 100,
    rss_before_mb: Math.round(before / 2 ** 20),
    peak_rss_mb: kb ? Math.round(Number(kb) / 1024) : Math.round(process.resourceUsage().maxRSS / 1024),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

export async function benchSbomRead() {
  const dir = mkdtempSync(join(tmpdir(), "vigie-sbom-bench-"));
  try {
    const cdx = join(dir, "bom-50k.cdx.json");
    const head = JSON.parse(readFileSync(new URL("vigie-npm.cdx.json", FIXTURES), "utf8")) as Json;
    const { components: _c, dependencies: _d, ...cdxHead } = head;
    await writeDoc(cdx, { ...cdxHead, serialNumber: "urn:uuid:6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b" }, "components", cyclonedxComponents());
    const spdx = join(dir, "sbom-50k.spdx.json");
    const spdxDoc = JSON.parse(readFileSync(new URL("vigie-npm.spdx.json", FIXTURES), "utf8")) as Json;
    const { packages, relationships: _r, ...spdxHead } = spdxDoc;
    await writeDoc(spdx, spdxHead, "packages", [(packages as Json[])[0] as Json, ...spdxPackages()]);

    const xml = join(dir, "bom-50k.cdx.xml");
    await writeXml(xml);

    const rows = [];
    for (const [label, file] of [
      ["CycloneDX 1.6 JSON, 50,000 components", cdx],
      ["SPDX 2.3 JSON, 50,001 packages", spdx],
      ["CycloneDX 1.5 XML, 50,000 components (parsed whole)", xml],
    ] as const) {
      // The heap ceiling `npm start` gives the server (ADR 0016).
      const { stdout } = await run(
        process.execPath,
        ["--max-old-space-size=1024", "--import", "tsx", fileURLToPath(import.meta.url), file],
        {
          maxBuffer: 1 << 20,
        },
      );
      const r = JSON.parse(stdout.trim().split("\n").at(-1) as string) as ChildResult;
      rows.push({
        document: label,
        MiB: Math.round((statSync(file).size / 2 ** 20) * 10) / 10,
        "components read": r.componentCount,
        "after merge": r.components,
        seconds: r.seconds,
        "RSS before MB": r.rss_before_mb,
        "peak RSS MB": r.peak_rss_mb,
      });
    }
    console.log("\nSBOM reader (readSbom; JSON streamed, XML parsed whole), one child process per document:");
    console.table(rows);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2]) await child(process.argv[2]);
  else await benchSbomRead();
}
