/**
 * BENCH=csaf's provider (a child process, so that the parent's RSS is Vigie's alone): serves the
 * layout of CSAF 2.0 §7 on 127.0.0.1 — provider-metadata.json with a public key generated here, one
 * directory with changes.csv, and N documents each with its .sha512 and detached .asc signature
 * made here. The documents are the real ones of test/fixtures/csaf that carry their TLP (OASIS
 * examples bsi/rhsa, CISA advisories: test/fixtures/csaf/README.md; the two OASIS VEX examples
 * carry none, which a directory distribution cannot supply) replicated with distinct tracking ids (`<id>-BENCH-<n>`)
 * — load, not new vulnerability data. One more, `rev.json`, is CISA's ICSA-23-208-03 version 5
 * (every C80 version affected) under the tracking id ICSA-23-208-03-BENCH-REV: POST /__revise
 * serves its real version 6 instead (C80 up to BF only), signed, listed first in changes.csv at the
 * time of the request — the revision whose alert latency the bench times. Prints `READY <port>`
 * once everything is signed; GET /__requests answers how many requests it served (and resets the
 * count).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as openpgp from "openpgp";

const N = Number(process.env.CSAF_BENCH_DOCS ?? 5000);
const FIXTURES = [
  "bsi-2022-0001.json",
  "rhsa-2021_5186.json",
  "rhsa-2021_5217.json",
  "rhsa-2019_1862.json",
  "icsa-23-208-03.v6.json",
  "icsa-23-220-01.v2.json",
];
const WK = "/.well-known/csaf";

const key = await openpgp.generateKey({
  type: "ecc",
  curve: "curve25519Legacy",
  userIDs: [{ name: "Bench CSAF provider", email: "psirt@example.org" }],
  format: "object",
});
const fingerprint = key.publicKey.getFingerprint().toUpperCase();
const files = new Map<string, Buffer>();
const sha512 = (b: Buffer) => createHash("sha512").update(b).digest("hex");

const originals = FIXTURES.map(
  (f) => JSON.parse(readFileSync(`test/fixtures/csaf/${f}`, "utf8")) as { document: { tracking: { id: string } } },
);
const rows: string[] = [];
for (let i = 0; i < N; i++) {
  const doc = structuredClone(originals[i % originals.length]!);
  doc.document.tracking.id = `${doc.document.tracking.id}-BENCH-${i}`;
  const name = `bench-${String(i).padStart(5, "0")}.json`;
  const bytes = Buffer.from(JSON.stringify(doc));
  files.set(`${WK}/white/${name}`, bytes);
  files.set(`${WK}/white/${name}.sha512`, Buffer.from(`${sha512(bytes)}  ${name}\n`));
  const sig = await openpgp.sign({
    message: await openpgp.createMessage({ binary: bytes }),
    signingKeys: key.privateKey,
    detached: true,
    format: "armored",
  });
  files.set(`${WK}/white/${name}.asc`, Buffer.from(sig as string));
  rows.push(`"${name}","${new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString()}"`);
}
rows.reverse();

/** Serves `rev.json` as this fixture (ICSA-23-208-03 version 5 or 6), signed, listed first at `when`. */
async function serveRevision(fixture: string, when: string): Promise<void> {
  const doc = JSON.parse(readFileSync(`test/fixtures/csaf/${fixture}`, "utf8")) as { document: { tracking: { id: string } } };
  doc.document.tracking.id = "ICSA-23-208-03-BENCH-REV";
  const bytes = Buffer.from(JSON.stringify(doc));
  files.set(`${WK}/white/rev.json`, bytes);
  files.set(`${WK}/white/rev.json.sha512`, Buffer.from(`${sha512(bytes)}  rev.json\n`));
  const sig = await openpgp.sign({
    message: await openpgp.createMessage({ binary: bytes }),
    signingKeys: key.privateKey,
    detached: true,
    format: "armored",
  });
  files.set(`${WK}/white/rev.json.asc`, Buffer.from(sig as string));
  files.set(`${WK}/white/changes.csv`, Buffer.from([`"rev.json","${when}"`, ...rows].join("\n")));
}
await serveRevision("icsa-23-208-03.v5.json", "2024-06-01T00:00:00.000Z");
files.set(`${WK}/openpgp/${fingerprint}.asc`, Buffer.from(key.publicKey.armor()));

let requests = 0;
const server = createServer((req, res) => {
  if (req.url === "/__requests") {
    res.end(String(requests));
    requests = 0;
    return;
  }
  if (req.url === "/__revise") {
    void serveRevision("icsa-23-208-03.v6.json", new Date().toISOString()).then(() => res.end("revised"));
    return;
  }
  requests++;
  const body = files.get(req.url ?? "");
  if (!body) {
    res.writeHead(404).end("not found");
    return;
  }
  const etag = `"${createHash("sha256").update(body).digest("hex").slice(0, 16)}"`;
  if (req.headers["if-none-match"] === etag) {
    res.writeHead(304, { etag }).end();
    return;
  }
  res.writeHead(200, { etag, "content-length": body.length }).end(body);
});
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
files.set(
  `${WK}/provider-metadata.json`,
  Buffer.from(
    JSON.stringify({
      canonical_url: `${base}${WK}/provider-metadata.json`,
      distributions: [{ directory_url: `${base}${WK}/white/` }],
      last_updated: "2024-01-01T00:00:00Z",
      list_on_CSAF_aggregators: true,
      metadata_version: "2.0",
      mirror_on_CSAF_aggregators: true,
      public_openpgp_keys: [{ fingerprint, url: `${base}${WK}/openpgp/${fingerprint}.asc` }],
      publisher: { category: "coordinator", name: "Bench provider", namespace: "https://example.org" },
      role: "csaf_trusted_provider",
    }),
  ),
);
console.log(`READY ${(server.address() as AddressInfo).port}`);
process.on("SIGTERM", () => server.close(() => process.exit(0)));
