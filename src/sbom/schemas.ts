/**
 * The official schemas, compiled once each with ajv: CycloneDX 1.2–1.7 as bundled in
 * @cyclonedx/cyclonedx-library (res/schema, with their $refs to the SPDX licence list, JSF and the
 * cryptography definitions; 1.2 and 1.3 in their non-strict form, the one their documents declare),
 * SPDX 2.2 and 2.3 from assets/schemas (spdx/spdx-spec, see its README.md), each version against its own. ajv is
 * set up as the library's own JsonValidator sets it up (dist.node/_optPlug.node/__jsonValidators/ajv.js):
 * draft-07, formats, draft 2019 idn-email, `iri-reference` accepted, strict off, no remote schema.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type AnySchema, Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { SbomFault } from "./types.js";

const require = createRequire(import.meta.url);
// No type declarations: (ajv, options) => ajv.
const addFormats2019 = require("ajv-formats-draft2019") as (ajv: Ajv, options: { formats: string[] }) => Ajv;

/** The schemas bundled with @cyclonedx/cyclonedx-library (its res/schema, beside dist.node/). */
const CDX_SCHEMAS = resolve(dirname(require.resolve("@cyclonedx/cyclonedx-library")), "..", "res", "schema");

export const CYCLONEDX_VERSIONS = ["1.2", "1.3", "1.4", "1.5", "1.6", "1.7"] as const;
export type CycloneDxVersion = (typeof CYCLONEDX_VERSIONS)[number];

export const SPDX_VERSIONS = ["2.2", "2.3"] as const;
export type SpdxVersion = (typeof SPDX_VERSIONS)[number];

/** SPDX JSON schemas (spdx/spdx-spec schemas/spdx-schema.json at the v2.2.2 and v2.3 tags): same path from src/ and dist/. */
const spdxSchemaFile = (version: SpdxVersion) =>
  fileURLToPath(new URL(`../../assets/schemas/spdx-schema-${version}.json`, import.meta.url));

const readJson = (file: string): Record<string, unknown> => JSON.parse(readFileSync(file, "utf8"));

function newAjv(schemas: Record<string, AnySchema> = {}): Ajv {
  const ajv = new Ajv({
    useDefaults: false,
    strict: false,
    strictSchema: false,
    addUsedSchema: false,
    allErrors: true,
    schemas,
    loadSchema: (uri: string) => {
      throw new Error(`Remote schemas are disabled: ${uri}`);
    },
  });
  (addFormats as unknown as (a: Ajv) => Ajv)(ajv);
  addFormats2019(ajv, { formats: ["idn-email"] });
  ajv.addFormat("iri-reference", true);
  return ajv;
}

/** The whole document's validator and those of the items streamed apart. */
export interface Validators {
  document: ValidateFunction;
  items: Record<string, ValidateFunction>;
}

/** CycloneDX JSON validators: the document, its `component` and `dependency` definitions. */
export interface CycloneDxValidators {
  document: ValidateFunction;
  component: ValidateFunction;
  dependency: ValidateFunction;
}

const cyclonedxCache = new Map<CycloneDxVersion, CycloneDxValidators>();

/** CycloneDX JSON: the document, `component` and `dependency` definitions of a spec version. */
export function cyclonedxValidators(version: CycloneDxVersion): CycloneDxValidators {
  let v = cyclonedxCache.get(version);
  if (!v) {
    const file = (name: string) => readJson(resolve(CDX_SCHEMAS, name)) as AnySchema;
    const ajv = newAjv({
      "http://cyclonedx.org/schema/spdx.SNAPSHOT.schema.json": file("spdx.SNAPSHOT.schema.json"),
      "http://cyclonedx.org/schema/cryptography-defs.SNAPSHOT.schema.json": file("cryptography-defs.SNAPSHOT.schema.json"),
      "http://cyclonedx.org/schema/jsf-0.82.SNAPSHOT.schema.json": file("jsf-0.82.SNAPSHOT.schema.json"),
    });
    const schema = readJson(resolve(CDX_SCHEMAS, `bom-${version}.SNAPSHOT.schema.json`));
    ajv.addSchema(schema);
    const id = schema.$id as string;
    const get = (ref: string) => ajv.getSchema(ref) as ValidateFunction;
    v = { document: get(id), component: get(`${id}#/definitions/component`), dependency: get(`${id}#/definitions/dependency`) };
    cyclonedxCache.set(version, v);
  }
  return v;
}

/** The CycloneDX XSD of a spec version, as bundled with the library. */
export function cyclonedxXsdFile(version: CycloneDxVersion): string {
  return resolve(CDX_SCHEMAS, `bom-${version}.SNAPSHOT.xsd`);
}

const spdxCache = new Map<SpdxVersion, Validators>();

/** SPDX JSON of a version: the document and its `packages`, `relationships`, `files` and `snippets` items. */
export function spdxValidators(version: SpdxVersion): Validators {
  let cached = spdxCache.get(version);
  if (!cached) {
    const schema = readJson(spdxSchemaFile(version));
    const ajv = newAjv();
    ajv.addSchema(schema as AnySchema, `spdx-${version}`);
    const document = ajv.getSchema(`spdx-${version}`) as ValidateFunction;
    const props = (schema.properties ?? {}) as Record<string, { items?: unknown }>;
    const items: Record<string, ValidateFunction> = {};
    for (const key of ["packages", "relationships", "files", "snippets"]) {
      const itemSchema = props[key]?.items;
      if (itemSchema) items[key] = ajv.compile(itemSchema as object);
    }
    cached = { document, items };
    spdxCache.set(version, cached);
  }
  return cached;
}

/** ajv's errors as faults, their instance paths under `base` (a JSON pointer). */
export function faultsOf(errors: ErrorObject[] | null | undefined, base: string): SbomFault[] {
  return (errors ?? []).map((e) => ({ at: base + e.instancePath, message: messageOf(e) }));
}

function messageOf(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  if (e.keyword === "additionalProperties") return `${e.message} (« ${String(p.additionalProperty)} »)`;
  if (e.keyword === "enum") {
    const allowed = p.allowedValues as unknown[];
    const shown = allowed.slice(0, 10).map((x) => JSON.stringify(x));
    return `${e.message}: ${shown.join(", ")}${allowed.length > 10 ? ", …" : ""}`;
  }
  return e.message ?? e.keyword;
}
