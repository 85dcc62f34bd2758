/**
 * The SBOM reader (src/sbom/read.ts) and writer (src/sbom/write.ts) on real documents: this
 * repository's own SBOM as cyclonedx-npm and npm write it, the SPDX specification's examples, and
 * invalid documents derived from them (test/fixtures/sbom/SOURCES.md says how each was made).
 */
import { createReadStream, readFileSync } from "node:fs";
import { Readable } from "node:stream";
import { Spec, Validation } from "@cyclonedx/cyclonedx-library";
import { describe, expect, it } from "vitest";
import { BodyTooLarge } from "../src/platform/http/raw-body.js";
import { MAX_XML_BYTES, readSbom } from "../src/sbom/read.js";
import { cyclonedxValidators } from "../src/sbom/schemas.js";
import { SbomInvalid, type SbomDocument } from "../src/sbom/types.js";
import { cycloneDxOfStack } from "../src/sbom/write.js";

const FIX = new URL("./fixtures/sbom/", import.meta.url);
const path = (name: string) => new URL(name, FIX);
const text = (name: string) => readFileSync(path(name), "utf8");
const json = (name: string) => JSON.parse(text(name)) as Record<string, unknown>;

type Cdx = { purl?: string; cpe?: string; "bom-ref"?: string; components?: Cdx[] };

/** The components of a parsed CycloneDX document, parents before their children, metadata.component's first. */
function flatten(doc: Record<string, unknown>): Cdx[] {
  const out: Cdx[] = [];
  const walk = (list: Cdx[] | undefined) => {
    for (const c of list ?? []) {
      out.push(c);
      walk(c.components);
    }
  };
  walk((doc.metadata as { component?: Cdx }).component?.components);
  walk(doc.components as Cdx[]);
  return out;
}

async function faultsOf(input: Parameters<typeof readSbom>[0], mediaType?: string): Promise<SbomInvalid> {
  try {
    await readSbom(input, mediaType);
  } catch (err) {
    if (err instanceof SbomInvalid) return err;
    throw err;
  }
  throw new Error("the document was read");
}

const purls = (d: SbomDocument) => d.components.map((c) => c.purl);

describe("CycloneDX JSON, streamed", () => {
  it("reads this repository's npm SBOM (1.6): every component, nested ones flattened, duplicates merged, first kept", async () => {
    const doc = await readSbom(createReadStream(path("vigie-npm.cdx.json")));
    const all = flatten(json("vigie-npm.cdx.json"));
    expect(all.length).toBe(370);
    expect(all.filter((c) => c.components).length).toBeGreaterThan(0);

    const firsts = new Map<string, Cdx>();
    for (const c of all) if (!firsts.has(`${c.purl}|${c.cpe}`)) firsts.set(`${c.purl}|${c.cpe}`, c);
    expect(doc).toMatchObject({
      format: "cyclonedx",
      specVersion: "1.6",
      encoding: "json",
      serialNumber: null,
      documentVersion: 1,
      name: "vigie@0.1.0",
      componentCount: 370,
    });
    expect(doc.components.length).toBe(343);
    expect(purls(doc)).toEqual([...firsts.values()].map((c) => c.purl));
    expect(doc.components.map((c) => c.ref)).toEqual([...firsts.values()].map((c) => c["bom-ref"]));
    // A nested component (ansi-regex under cliui) is read, named with its group when it has one.
    const nested = all.find((c) => c.components)?.components?.[0] as Cdx;
    expect(doc.components.some((c) => c.purl === nested.purl)).toBe(true);
    expect(doc.components.find((c) => c.purl === "pkg:npm/%40fastify/static@10.1.3")).toMatchObject({
      name: "@fastify/static",
      version: "10.1.3",
      cpe: null,
    });
  });

  it("gives the same result from a stream, a Buffer and a string", async () => {
    const a = await readSbom(createReadStream(path("vigie-npm-1.4.cdx.json")));
    const b = await readSbom(readFileSync(path("vigie-npm-1.4.cdx.json")));
    const c = await readSbom(text("vigie-npm-1.4.cdx.json"), "application/vnd.cyclonedx+json");
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  it("reads components that come before bomFormat and specVersion (held until the version is known)", async () => {
    const doc = json("vigie-npm-1.4.cdx.json");
    const { components, dependencies, ...rest } = doc;
    const reordered = JSON.stringify({ components, dependencies, ...rest });
    expect(reordered.indexOf('"components"')).toBeLessThan(reordered.indexOf('"specVersion"'));
    expect(await readSbom(reordered)).toEqual(await readSbom(JSON.stringify(doc)));
  });

  it("1.4 JSON, 1.5 XML and 1.6 JSON of the same project give the same purls", async () => {
    const v16 = await readSbom(createReadStream(path("vigie-npm.cdx.json")));
    const v14 = await readSbom(createReadStream(path("vigie-npm-1.4.cdx.json")));
    const v15 = await readSbom(createReadStream(path("vigie-npm-1.5.cdx.xml")), "application/vnd.cyclonedx+xml");
    expect(v14).toMatchObject({ specVersion: "1.4", encoding: "json", componentCount: 370, name: "vigie@0.1.0" });
    expect(v15).toMatchObject({ specVersion: "1.5", encoding: "xml", componentCount: 370, name: "vigie@0.1.0" });
    expect(purls(v14)).toEqual(purls(v16));
    expect(purls(v15)).toEqual(purls(v16));
    expect(v15.components.map((c) => c.ref)).toEqual(v16.components.map((c) => c.ref));
  });
});

describe("SPDX 2.3 JSON", () => {
  it("reads the specification's example: identity, packages as components, the described package set apart", async () => {
    const doc = await readSbom(createReadStream(path("SPDXJSONExample-v2.3.spdx.json")), "application/spdx+json");
    expect(doc).toMatchObject({
      format: "spdx",
      specVersion: "2.3",
      encoding: "json",
      serialNumber: "http://spdx.org/spdxdocs/spdx-example-444504E0-4F89-41D3-9A0C-0305E82C3301",
      documentVersion: null,
      name: "SPDX-Tools-v2.0",
      componentCount: 3,
    });
    // glibc (SPDXRef-Package) is what the document describes: not one of its components.
    expect(doc.components).toEqual([
      { ref: "SPDXRef-fromDoap-1", name: "Apache Commons Lang", version: null, purl: null, cpe: null },
      { ref: "SPDXRef-fromDoap-0", name: "Jena", version: "3.12.0", purl: "pkg:maven/org.apache.jena/apache-jena@3.12.0", cpe: null },
      { ref: "SPDXRef-Saxon", name: "Saxon", version: "8.8", purl: null, cpe: null },
    ]);
  });

  it("reads a package's CPE: the same example without documentDescribes makes glibc a component", async () => {
    const { documentDescribes, ...rest } = json("SPDXJSONExample-v2.3.spdx.json");
    expect(documentDescribes).toEqual(["SPDXRef-File", "SPDXRef-Package"]);
    const doc = await readSbom(JSON.stringify(rest));
    expect(doc.components[0]).toEqual({
      ref: "SPDXRef-Package",
      name: "glibc",
      version: "2.11.1",
      purl: null,
      cpe: "cpe:2.3:a:pivotal_software:spring_framework:4.1.0:*:*:*:*:*:*:*",
    });
    expect(doc.componentCount).toBe(4);
  });

  it("reads SPDX 2.2 against the 2.2 schema: the specification's 2.2 example, its PACKAGE_MANAGER purl kept", async () => {
    const doc = await readSbom(createReadStream(path("SPDXJSONExample-v2.2.spdx.json")));
    expect(doc).toMatchObject({ format: "spdx", specVersion: "2.2", componentCount: 3, faultCount: 0 });
    expect(doc.components.map((c) => c.purl)).toContain("pkg:maven/org.apache.jena/apache-jena@3.12.0");
    // The 2.3 schema refuses 2.2's spelling: a 2.3 document written with it fails.
    const as23 = await faultsOf(JSON.stringify({ ...json("SPDXJSONExample-v2.2.spdx.json"), spdxVersion: "SPDX-2.3" }));
    expect(as23.faults.map((f) => f.at)).toContain("/packages/2/externalRefs/0/referenceCategory");
    const v21 = await faultsOf(JSON.stringify({ ...json("SPDXJSONExample-v2.3.spdx.json"), spdxVersion: "SPDX-2.1" }));
    expect(v21.faults[0]?.at).toBe("/spdxVersion");
  });

  it("reads npm's SPDX SBOM of this repository: its packages' purls, the root package (DESCRIBES) left out", async () => {
    const doc = await readSbom(createReadStream(path("vigie-npm.spdx.json")));
    expect(doc).toMatchObject({ format: "spdx", name: "vigie@0.1.0", componentCount: 158 });
    expect(doc.serialNumber).toMatch(/^http:\/\/spdx\.org\/spdxdocs\/vigie-0\.1\.0-/);
    expect(doc.components.length).toBe(158);
    expect(purls(doc)).not.toContain("pkg:npm/vigie@0.1.0");
    const cdx = new Set(purls(await readSbom(createReadStream(path("vigie-npm.cdx.json")))));
    expect(purls(doc).every((p) => cdx.has(p))).toBe(true);
  });
});

describe("invalid documents: every fault, where it is", () => {
  it("CycloneDX JSON: a component without name, a nested one with a bad type (JSON pointers)", async () => {
    const err = await faultsOf(createReadStream(path("invalid-components.cdx.json")));
    expect(err.faults).toEqual([
      { at: "/components/3", message: "must have required property 'name'" },
      {
        at: "/components/15/components/0/type",
        message: expect.stringMatching(/^must be equal to one of the allowed values: "application"/),
      },
    ]);
  });

  it("CycloneDX JSON syntax errors: on their line", async () => {
    const missingComma = await faultsOf(createReadStream(path("syntax-error.cdx.json")));
    expect(missingComma.faults).toEqual([{ at: "line 1013", message: "JSON invalide à la ligne 1013 : expected ','." }]);
    const truncated = await faultsOf(createReadStream(path("truncated.cdx.json")));
    expect(truncated.faults).toEqual([{ at: "line 4000", message: "JSON invalide à la ligne 4000 : fin inattendue du document." }]);
  });

  it("CycloneDX XML: the XSD's fault on its line; a malformed document on its line", async () => {
    const err = await faultsOf(createReadStream(path("invalid-element.cdx.xml")));
    expect(err.faults).toEqual([
      {
        at: "line 117",
        message:
          "Element '{http://cyclonedx.org/schema/bom/1.5}nom': This element is not expected. Expected is ( {http://cyclonedx.org/schema/bom/1.5}name ).",
      },
    ]);
    const cut = text("vigie-npm-1.5.cdx.xml").split("\n").slice(0, 200).join("\n");
    const malformed = await faultsOf(cut);
    expect(malformed.faults[0]?.at).toMatch(/^line 20\d$/);
    expect(malformed.faults[0]?.message).toMatch(/^XML mal formé/);
  });

  it("SPDX JSON: a package without downloadLocation, an unknown relationship type", async () => {
    const err = await faultsOf(createReadStream(path("invalid-package.spdx.json")));
    expect(err.faults.map((f) => f.at)).toEqual(["/packages/2", "/relationships/1/relationshipType"]);
    expect(err.faults[0]?.message).toBe("must have required property 'downloadLocation'");
  });

  it("XML: an external entity is neither loaded nor expanded (the document is refused)", async () => {
    const xml = text("vigie-npm-1.5.cdx.xml")
      .replace(
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE bom [<!ENTITY secret SYSTEM "file:///etc/hostname">]>',
      )
      .replace("<name>accept-negotiator</name>", "<name>&secret;</name>");
    const err = await faultsOf(xml);
    expect(err.faults).toEqual([{ at: "line 118", message: expect.stringContaining("entity reference") }]);
  });

  it("XML past 16 MiB is a 413: libxml2 holds the whole tree, about 20 times the text (JSON is streamed up to the route's 50 MiB)", async () => {
    const xml = readFileSync("test/fixtures/sbom/vigie-npm-1.5.cdx.xml");
    const padded = Buffer.concat([xml, Buffer.from(`<!--${" ".repeat(MAX_XML_BYTES)}-->`)]);
    const refused = await readSbom(Readable.from([padded.subarray(0, 1 << 20), padded.subarray(1 << 20)])).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BodyTooLarge);
    expect((refused as BodyTooLarge).status).toBe(413);
    expect((refused as BodyTooLarge).detail).toContain("16 Mio");
  });

  it("JSON nested deeper than 256 levels is refused before validation", async () => {
    const deep = `{"bomFormat": "CycloneDX", "specVersion": "1.6", "components": [{"type": "library", "name": "x", "properties": ${"[".repeat(300)}${"]".repeat(300)}}]}`;
    const err = await faultsOf(deep);
    expect(err.faults[0]?.message).toContain("256");
  });

  it("stops at 100 faults", async () => {
    const doc = json("vigie-npm-1.4.cdx.json");
    for (const c of doc.components as Record<string, unknown>[]) delete c.name;
    const err = await faultsOf(JSON.stringify(doc));
    expect(err.faults.length).toBe(100);
    expect(err.faults[99]).toEqual({ at: "/components/99", message: "must have required property 'name'" });
    expect(err.message).toContain("100");
  });
});

/** `text` as a stream of `size`-byte chunks (which cut UTF-8 sequences, escapes and lines anywhere). */
const chunked = (text: string, size: number) => {
  const bytes = Buffer.from(text, "utf8");
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
  return Readable.from(parts);
};

/** The line of position `i` of `text`. */
const lineOf = (text: string, i: number) => text.slice(0, i).split("\n").length;

describe("the streamed arrays' items, cut from the text and parsed whole", () => {
  // The 1.4 SBOM's first 25 components (some nest others) and 10 dependencies: small enough for 1-byte chunks.
  const small = () => {
    const doc = json("vigie-npm-1.4.cdx.json");
    doc.components = (doc.components as Cdx[]).slice(0, 25);
    doc.dependencies = (doc.dependencies as unknown[]).slice(0, 10);
    return doc as Record<string, unknown> & { components: Record<string, unknown>[] };
  };

  it("strings holding brackets, escaped quotes and backslashes, non-ASCII text, CRLF breaks: the same, in chunks of any size", async () => {
    const doc = small();
    const count = flatten(doc).length;
    expect(count).toBeGreaterThan(25);
    (doc.components[1] as Record<string, unknown>).description = 'crochets ] } [ { , « guillemets » "cités" \\ et \\" fin';
    (doc.components[2] as Record<string, unknown>).name = 'nom-é-𝄞-"]}';
    (doc.components[3] as Record<string, unknown>).properties = [
      { name: "x", value: "\\" },
      { name: "y", value: "\u2028\t" },
    ];
    const text = JSON.stringify(doc, null, 2).replaceAll("\n", "\r\n");
    const whole = await readSbom(text);
    expect(whole.componentCount).toBe(count);
    expect(whole.components[2]?.name).toBe('@fastify/nom-é-𝄞-"]}');
    for (const size of [1, 2, 3, 5, 7, 64]) expect(await readSbom(chunked(text, size))).toEqual(whole);
    // The escapes written as such in the text (\u0022 for a quote) read the same.
    const escaped = text.replace('"nom-é-𝄞-\\"]}"', '"nom-\\u00e9-\\ud834\\udd1e-\\u0022]}"');
    expect(escaped).not.toBe(text);
    expect(await readSbom(chunked(escaped, 3))).toEqual(whole);
  });

  it("a syntax error inside a component: on its line, with CRLF breaks, in small chunks; on a one-line document, near its column", async () => {
    const crlf = text("syntax-error.cdx.json").replaceAll("\n", "\r\n");
    expect((await faultsOf(chunked(crlf, 5))).faults).toEqual([
      { at: "line 1013", message: "JSON invalide à la ligne 1013 : expected ','." },
    ]);
    const oneLine = JSON.stringify(small()).replace(`"version":"4.0.7",`, `"version":"4.0.7"`);
    const next = oneLine.indexOf(`"version":"4.0.7"`) + `"version":"4.0.7"`.length;
    const column = 1 + Math.floor(next / 256) * 256;
    expect(column).toBeGreaterThan(256);
    expect((await faultsOf(chunked(oneLine, 1000))).faults).toEqual([
      { at: `line 1, column ${column}`, message: `JSON invalide à la ligne 1, vers la colonne ${column} : expected ','.` },
    ]);
  });

  it("faults between components: a missing comma, a stray bracket, the end of the document", async () => {
    const pretty = JSON.stringify(small(), null, 2);
    const fifth = pretty.indexOf('\n    },\n    {\n      "type"', pretty.indexOf('"bom-ref": "vigie@0.1.0|@fastify/ajv-compiler'));
    const noComma = `${pretty.slice(0, fifth + 6)}${pretty.slice(fifth + 7)}`;
    expect((await faultsOf(noComma)).faults).toEqual([
      { at: `line ${lineOf(pretty, fifth + 8)}`, message: `JSON invalide à la ligne ${lineOf(pretty, fifth + 8)} : expected ','.` },
    ]);
    const stray = `${pretty.slice(0, fifth + 7)} ]${pretty.slice(fifth + 7)}`;
    expect((await faultsOf(stray)).faults[0]?.message).toBe(
      `JSON invalide à la ligne ${lineOf(pretty, fifth + 7)} : unexpected token ']'.`,
    );
    const cut = pretty.slice(0, fifth + 7);
    expect((await faultsOf(chunked(cut, 7))).faults).toEqual([
      {
        at: `line ${lineOf(cut, cut.length)}`,
        message: `JSON invalide à la ligne ${lineOf(cut, cut.length)} : fin inattendue du document.`,
      },
    ]);
  });

  it("whitespace JSON.parse refuses and the tokenizer takes (U+00A0) inside a component: read as before", async () => {
    const pretty = JSON.stringify(small(), null, 2);
    const nbsp = pretty.replace('"name": "ajv-compiler"', '"name":\u00a0"ajv-compiler"');
    expect(nbsp).not.toBe(pretty);
    expect(() => JSON.parse(nbsp)).toThrow(SyntaxError);
    expect(await readSbom(nbsp)).toEqual(await readSbom(pretty));
  });

  it("nesting: the fault's pointer at the 256th level; 255 levels are read", async () => {
    const doc = (n: number) =>
      `{"bomFormat": "CycloneDX", "specVersion": "1.6", "components": [{"type": "library", "name": "x", "properties": ${"[".repeat(n)}${"]".repeat(n)}}]}`;
    const err = await faultsOf(doc(254));
    expect(err.faults).toEqual([
      { at: `/components/0/properties${"/0".repeat(252)}`, message: "Plus de 256 niveaux d'imbrication : ce n'est pas un SBOM." },
    ]);
    expect((await faultsOf(doc(253))).faults).toEqual([{ at: "/components/0/properties/0", message: "must be object" }]);
  });

  it("uniqueItems: a component repeated with its keys in another order is a duplicate, as ajv finds it in the whole document", async () => {
    const doc = small();
    const third = doc.components[2] as Record<string, unknown>;
    doc.components.push(Object.fromEntries(Object.entries(third).reverse()));
    expect(JSON.stringify(doc.components[25])).not.toBe(JSON.stringify(third));
    const err = await faultsOf(JSON.stringify(doc, null, 2));
    expect(err.faults).toEqual([{ at: "/components", message: "must NOT have duplicate items (items ## 2 and 25 are identical)" }]);
    const whole = cyclonedxValidators("1.4").document;
    expect(whole(doc)).toBe(false);
    expect(whole.errors?.map((e) => [e.instancePath, e.keyword, e.params])).toEqual([["/components", "uniqueItems", { i: 25, j: 2 }]]);
    // One value apart, deep inside: not a duplicate.
    doc.components[25] = { ...third, properties: [{ name: "cdx:npm:package:path", value: "node_modules/autre" }] };
    expect(whole(doc)).toBe(true);
    expect((await readSbom(JSON.stringify(doc))).componentCount).toBe(flatten(doc).length);
  });
});

describe("SBOMs as the field produces them (issue 33)", () => {
  it("CycloneDX 1.2 product SBOMs (CycloneDX/bom-examples), JSON and XML, each against its own schema", async () => {
    const j = await readSbom(createReadStream(path("cern-lhc-vdm-editor-1.2.cdx.json")));
    const x = await readSbom(createReadStream(path("cern-lhc-vdm-editor-1.2.cdx.xml")));
    expect(j).toMatchObject({
      format: "cyclonedx",
      specVersion: "1.2",
      encoding: "json",
      name: "lhc-vdm-editor@0.0.1",
      componentCount: 43,
    });
    expect(j.serialNumber).toMatch(/^urn:uuid:/);
    expect(x).toMatchObject({ specVersion: "1.2", encoding: "xml", componentCount: 43 });
    expect(purls(x)).toEqual(purls(j));
    expect(j.components.every((c) => c.purl?.startsWith("pkg:npm/"))).toBe(true);
    // Checked against 1.2, not a later schema: a component type of 1.5 is a fault in 1.2, valid in 1.5.
    const doc = json("cern-lhc-vdm-editor-1.2.cdx.json") as { components: Record<string, unknown>[] };
    doc.components[0]!.type = "machine-learning-model";
    expect((await faultsOf(JSON.stringify(doc))).faults[0]).toMatchObject({ at: "/components/0/type" });
    expect((await readSbom(JSON.stringify({ ...doc, specVersion: "1.5" }))).faultCount).toBe(0);
  });

  it("CycloneDX 1.3 without serialNumber (cyclonedx-php-composer, laravel 7.12.0), and 1.7", async () => {
    const doc = await readSbom(createReadStream(path("laravel-7.12.0-1.3.cdx.json")));
    expect(doc).toMatchObject({ specVersion: "1.3", serialNumber: null, componentCount: 62 });
    expect(doc.name).toBe("cyclonedx/cyclonedx-php-composer-demo@dev-master");
    const v17 = await readSbom(JSON.stringify({ ...json("vigie-npm-1.4.cdx.json"), specVersion: "1.7" }));
    expect(v17).toMatchObject({ specVersion: "1.7", faultCount: 0 });
  });

  it("invalid but readable: trivy's SPDX 2.2 is refused strictly, read leniently with its 14 faults", async () => {
    const strict = await faultsOf(createReadStream(path("trivy-centos-7.spdx.json")));
    expect(strict.faults).toHaveLength(14);
    expect(strict.faults[0]).toEqual({ at: "/packages/0", message: "must have required property 'licenseDeclared'" });
    const lenient = await readSbom(createReadStream(path("trivy-centos-7.spdx.json")), undefined, { lenient: true });
    expect(lenient).toMatchObject({ format: "spdx", specVersion: "2.2", faultCount: 14, componentCount: 3 });
    expect(lenient.faults).toEqual(strict.faults);
    expect(purls(lenient)).toEqual([
      null,
      "pkg:rpm/centos/bash@4.2.46-31.el7?arch=x86_64&distro=centos-7.6.1810",
      "pkg:rpm/centos/openssl-libs@1.0.2k-16.el7?arch=x86_64&epoch=1&distro=centos-7.6.1810",
    ]);
  });

  it("lenient reading keeps a component that fails its schema, and XML faults by line", async () => {
    const strict = await faultsOf(createReadStream(path("invalid-components.cdx.json")));
    const lenient = await readSbom(createReadStream(path("invalid-components.cdx.json")), undefined, { lenient: true });
    expect(lenient.faults).toEqual(strict.faults);
    expect(lenient.componentCount).toBe((await readSbom(createReadStream(path("vigie-npm-1.4.cdx.json")))).componentCount);
    const xml = await readSbom(createReadStream(path("invalid-element.cdx.xml")), undefined, { lenient: true });
    expect(xml.faults.map((f) => f.at)).toContain("line 117");
    // Unreadable stays refused.
    await expect(readSbom(createReadStream(path("truncated.cdx.json")), undefined, { lenient: true })).rejects.toBeInstanceOf(SbomInvalid);
  });
});

describe("formats refused, with the formats accepted", () => {
  const accepted = "Formats acceptés : CycloneDX 1.2 à 1.7 (JSON ou XML), SPDX 2.2 et 2.3 (JSON).";

  it("CycloneDX 1.1 (no JSON form; its XSD is not read)", async () => {
    const err = await faultsOf(JSON.stringify({ ...json("vigie-npm-1.3.cdx.json"), specVersion: "1.1" }));
    expect(err.faults).toEqual([
      {
        at: "/specVersion",
        message: "La version « 1.1 » de CycloneDX n'est pas prise en charge : versions acceptées 1.2, 1.3, 1.4, 1.5, 1.6, 1.7.",
      },
    ]);
  });

  it("SPDX 3 JSON-LD and SPDX tag-value", async () => {
    const ld = await faultsOf(createReadStream(path("spdx3-package_sbom.json")));
    expect(ld.faults).toEqual([{ at: "/@context", message: `SPDX 3 (JSON-LD) n'est pas pris en charge. ${accepted}` }]);
    const tv = await faultsOf(createReadStream(path("SPDXTagExample-v2.3.head.spdx")));
    expect(tv.faults).toEqual([{ at: "", message: `SPDX tag-value n'est pas pris en charge. ${accepted}` }]);
    const tvByType = await faultsOf(text("SPDXTagExample-v2.3.head.spdx"), "text/spdx; charset=utf-8");
    expect(tvByType.faults[0]?.message).toContain("SPDX tag-value");
  });

  it("a media type that contradicts the document, an empty document, JSON that is no SBOM", async () => {
    const cdxAsSpdx = await faultsOf(text("vigie-npm-1.4.cdx.json"), "application/spdx+json");
    expect(cdxAsSpdx.faults[0]).toEqual({
      at: "/bomFormat",
      message: "Le type de média annonce un document SPDX, le document est un CycloneDX.",
    });
    const xmlAsJson = await faultsOf(text("vigie-npm-1.5.cdx.xml"), "application/json");
    expect(xmlAsJson.faults[0]?.message).toContain("annonce du JSON, le document est du XML");
    expect((await faultsOf(" \n")).faults[0]?.message).toContain(accepted);
    const other = await faultsOf('{"name": "package.json, not an SBOM"}');
    expect(other.faults[0]?.message).toContain("ni « bomFormat » (CycloneDX) ni « spdxVersion » (SPDX)");
  });
});

describe("cycloneDxOfStack", () => {
  const real = flatten(json("vigie-npm.cdx.json"))
    .slice(0, 25)
    .map((c) => ({ item_type: "purl", value: c.purl as string }));
  const stack = {
    id: "7a9e2c4e-1d0b-4b7e-9a51-3c0f2f8f6d11",
    name: "Vigie",
    projectName: "Production",
    items: [
      ...real,
      // The CPE of the SPDX specification's example package.
      { item_type: "cpe", value: "cpe:2.3:a:pivotal_software:spring_framework:4.1.0:*:*:*:*:*:*:*" },
      { item_type: "product", value: "paloaltonetworks:pan-os@10.2.5" },
      { item_type: "keyword", value: "glibc" },
      { item_type: "vendor", value: "apache" },
    ],
  };
  const meta = {
    organization: "ACME",
    timestamp: new Date("2026-11-26T10:00:00Z"),
    serialNumber: "urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79",
    version: 3,
  };

  it("is valid CycloneDX 1.6 (the library's strict validator), deterministic, whatever the items' order", async () => {
    const out = cycloneDxOfStack(stack, meta);
    expect(await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(out)).toBeNull();
    expect(cycloneDxOfStack({ ...stack, items: [...stack.items].reverse() }, meta)).toBe(out);
    const props = (JSON.parse(out).metadata.properties as { name: string; value: string }[]).map((p) => `${p.name}=${p.value}`);
    expect(props).toEqual(["vigie:skipped-items:keyword=1", "vigie:skipped-items:vendor=1"]);
  });

  it("reads back with readSbom: the same purls and CPE, the identity kept", async () => {
    const doc = await readSbom(cycloneDxOfStack(stack, meta));
    expect(doc).toMatchObject({
      format: "cyclonedx",
      specVersion: "1.6",
      serialNumber: meta.serialNumber,
      documentVersion: 3,
      name: "Production/Vigie",
    });
    const expected = new Set(real.map((i) => i.value));
    expect(new Set(doc.components.flatMap((c) => (c.purl ? [c.purl] : [])))).toEqual(expected);
    expect(doc.components.flatMap((c) => (c.cpe ? [c.cpe] : []))).toEqual([stack.items[25]?.value]);
    expect(doc.components.find((c) => c.name === "paloaltonetworks/pan-os")?.version).toBe("10.2.5");
  });
});
