import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Spec } from "@cyclonedx/cyclonedx-library";
import type { ErrorObject, ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { VEX_JUSTIFICATIONS, type VexJustification } from "../../platform/db/schema/index.js";
import { Invalid, type Issue } from "../../platform/errors.js";
import { INVALID } from "../../platform/messages.js";
import type { VexFormat } from "./vex.schemas.js";

const URI = fullFormats.uri as (s: string) => boolean;
/**
 * JSON Schema's `iri` (RFC 3987), which OpenVEX's schema asks of every `@id`: the IRI mapped to a URI
 * (RFC 3987 §3.1, its non-ASCII characters percent-encoded) and checked by ajv-formats' RFC 3986
 * `uri`. Not ajv-formats-draft2019's `iri`, which also wants an IANA-registered scheme and so refuses
 * `pkg:` (package URLs), the identifiers the OpenVEX specification's own examples use.
 */
export const isIri = (value: string): boolean => URI(value.replace(/[^\p{ASCII}]/gu, (c) => encodeURIComponent(c)));

/**
 * A supplier's VEX document read: its format detected from its content, checked against that
 * format's official JSON schema (CycloneDX: the library's bundled schema of the document's
 * specVersion; CSAF 2.0 and OpenVEX 0.2: assets/schemas), then its statements gathered one per
 * CVE. Only not_affected statements (and CycloneDX's false_positive) become candidates; the
 * others are returned as ignored, with the reason. Nothing here touches the database.
 */

/** A not_affected statement about one CVE (a document's statements about the same CVE are merged). */
export interface VexStatement {
  cve_id: string;
  vex_status: string;
  justification: VexJustification | null;
  impact_statement: string | null;
  products: string[];
  timestamp: string | null;
}

export interface ReadVexDocument {
  format: VexFormat;
  id: string;
  author: string | null;
  timestamp: string | null;
  statements: VexStatement[];
  ignored: { cve_id: string; raison: string }[];
}

/** The most schema faults a 422 lists. */
const MAX_ISSUES = 50;
const CVE = /^CVE-\d{4}-\d{4,}$/i;

const SCHEMAS = new URL("../../../assets/schemas/", import.meta.url);
const loadJson = (name: string) => JSON.parse(readFileSync(new URL(name, SCHEMAS), "utf8")) as Record<string, unknown>;

let csafValidate: ValidateFunction | undefined;
let openVexValidate: ValidateFunction | undefined;

/** CSAF 2.0's schema with the FIRST CVSS schemas it refers to, compiled once (as the BSI validator does: Ajv 2020, formats). */
function csafValidator(): ValidateFunction {
  if (!csafValidate) {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(loadJson("cvss-v2.0.json"), "https://www.first.org/cvss/cvss-v2.0.json");
    ajv.addSchema(loadJson("cvss-v3.0.json"), "https://www.first.org/cvss/cvss-v3.0.json");
    ajv.addSchema(loadJson("cvss-v3.1.json"), "https://www.first.org/cvss/cvss-v3.1.json");
    csafValidate = ajv.compile(loadJson("csaf_json_schema_2.0.json"));
  }
  return csafValidate;
}

/** CSAF 2.0 schema faults of a document (at most 5, as "pointer message"); [] when it holds (the CSAF providers' sync checks each document). */
export function csafSchemaErrors(doc: unknown): string[] {
  const validate = csafValidator();
  if (validate(doc)) return [];
  return (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"} ${e.message ?? "invalide"}`);
}

function openVexValidator(): ValidateFunction {
  if (!openVexValidate) {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addFormat("iri", isIri);
    openVexValidate = ajv.compile(loadJson("openvex_json_schema_0.2.0.json"));
  }
  return openVexValidate;
}

/** A JSON pointer as a FastAPI loc under the body: "/a/0/b" → ["body", "a", 0, "b"]. */
function locOf(pointer: string): (string | number)[] {
  const parts = pointer
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  return ["body", ...parts.map((p) => (/^\d+$/.test(p) ? Number(p) : p))];
}

function valueAt(doc: unknown, pointer: string): unknown {
  let v: unknown = doc;
  for (const p of locOf(pointer).slice(1)) v = v && typeof v === "object" ? (v as Record<string | number, unknown>)[p] : undefined;
  return v ?? null;
}

function schemaInvalid(format: string, doc: unknown, errors: readonly Pick<ErrorObject, "instancePath" | "message" | "params">[]): Invalid {
  const issues: Issue[] = errors.slice(0, MAX_ISSUES).map((e) => {
    const pointer = e.instancePath || "";
    const extra = "additionalProperty" in e.params ? ` « ${String(e.params.additionalProperty)} »` : "";
    return {
      loc: locOf(pointer),
      message: INVALID.vexSchema(format, `${pointer || "/"} ${e.message ?? "invalide"}${extra}`),
      input: valueAt(doc, pointer),
    };
  });
  return new Invalid(issues);
}

const str = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v.trim() : null);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** Statements gathered one per CVE: products merged, the first justification and impact kept. */
class Gathered {
  private readonly byCve = new Map<string, VexStatement>();
  private readonly ignored: { cve_id: string; raison: string }[] = [];
  private readonly ignoredSeen = new Set<string>();

  add(s: VexStatement): void {
    const prev = this.byCve.get(s.cve_id);
    if (!prev) {
      this.byCve.set(s.cve_id, { ...s, products: [...new Set(s.products)] });
      return;
    }
    prev.products = [...new Set([...prev.products, ...s.products])];
    prev.justification ??= s.justification;
    prev.impact_statement ??= s.impact_statement;
  }

  ignore(cve: string, raison: string): void {
    const key = `${cve}\u0000${raison}`;
    if (this.ignoredSeen.has(key)) return;
    this.ignoredSeen.add(key);
    this.ignored.push({ cve_id: cve, raison });
  }

  /** The statements, and the ignored ones but for a CVE that also has a not_affected statement (about another product). */
  done(): { statements: VexStatement[]; ignored: { cve_id: string; raison: string }[] } {
    const statements = [...this.byCve.values()];
    const proposed = new Set(statements.map((s) => s.cve_id));
    return { statements, ignored: this.ignored.filter((i) => !proposed.has(i.cve_id)) };
  }
}

const digestId = (doc: unknown) => `sha256:${createHash("sha256").update(JSON.stringify(doc)).digest("hex")}`;

// ---------------------------------------------------------------------------------------------
// CycloneDX
// ---------------------------------------------------------------------------------------------

/** CycloneDX justification codes → CISA (the inverse of vex.cyclonedx.ts, many to one). */
export const FROM_CDX_JUSTIFICATION: Record<string, VexJustification> = {
  code_not_present: "vulnerable_code_not_present",
  code_not_reachable: "vulnerable_code_not_in_execute_path",
  requires_configuration: "vulnerable_code_cannot_be_controlled_by_adversary",
  requires_dependency: "vulnerable_code_cannot_be_controlled_by_adversary",
  requires_environment: "vulnerable_code_cannot_be_controlled_by_adversary",
  protected_by_compiler: "inline_mitigations_already_exist",
  protected_at_runtime: "inline_mitigations_already_exist",
  protected_at_perimeter: "inline_mitigations_already_exist",
  protected_by_mitigating_control: "inline_mitigations_already_exist",
};

function cdxComponents(doc: Record<string, unknown>): Map<string, string> {
  const names = new Map<string, string>();
  const walk = (list: unknown[]) => {
    for (const c of list.map(obj)) {
      const ref = str(c["bom-ref"]);
      const name = str(c.purl) ?? str(c.cpe) ?? [str(c.group), str(c.name), str(c.version)].filter(Boolean).join(" ");
      if (ref && name) names.set(ref, name);
      walk(arr(c.components));
    }
  };
  walk([obj(doc.metadata).component].filter(Boolean));
  walk(arr(doc.components));
  return names;
}

async function readCycloneDx(doc: Record<string, unknown>): Promise<ReadVexDocument> {
  const version = String(doc.specVersion ?? "");
  // The CycloneDX library is loaded at the first CycloneDX VEX read, not at every process start.
  const cdx = await import("@cyclonedx/cyclonedx-library");
  if (!(cdx.Spec.SpecVersionDict as Record<string, unknown>)[version] || ["1.0", "1.1"].includes(version)) {
    throw new Invalid([
      {
        loc: ["body", "specVersion"],
        message: INVALID.vexSchema("CycloneDX", `version ${version || "(absente)"} non prise en charge (1.2 à 1.7)`),
        input: doc.specVersion ?? null,
      },
    ]);
  }
  const fault = await new cdx.Validation.JsonStrictValidator(version as Spec.Version).validate(JSON.stringify(doc));
  if (fault) throw schemaInvalid(`CycloneDX ${version}`, doc, fault as ErrorObject[]);
  const meta = obj(doc.metadata);
  const author =
    str(obj(meta.supplier).name) ??
    str(obj(meta.manufacturer).name) ??
    str(obj(meta.manufacture).name) ??
    str(obj(arr(meta.authors)[0]).name) ??
    null;
  const refs = cdxComponents(doc);
  const g = new Gathered();
  for (const v of arr(doc.vulnerabilities).map(obj)) {
    const ids = [str(v.id), ...arr(v.references).map((r) => str(obj(r).id))].filter((x): x is string => !!x);
    const cve = ids.find((i) => CVE.test(i))?.toUpperCase();
    if (!cve) {
      g.ignore(ids[0] ?? "(sans identifiant)", "identifiant qui n'est pas une CVE");
      continue;
    }
    const a = obj(v.analysis);
    const state = str(a.state);
    if (state !== "not_affected" && state !== "false_positive") {
      g.ignore(cve, state ? `statut ${state} : seul not_affected est proposé` : "sans analyse (analysis.state)");
      continue;
    }
    // A document Vigie wrote carries the CISA justification whole in a property.
    const own = arr(v.properties)
      .map(obj)
      .find((p) => p.name === "vigie:justification_vex" && (VEX_JUSTIFICATIONS as readonly unknown[]).includes(p.value))?.value as
      | VexJustification
      | undefined;
    const justification =
      own ?? (state === "false_positive" ? "component_not_present" : (FROM_CDX_JUSTIFICATION[str(a.justification) ?? ""] ?? null));
    g.add({
      cve_id: cve,
      vex_status: state,
      justification,
      impact_statement: str(a.detail),
      products: arr(v.affects)
        .map((x) => {
          const ref = str(obj(x).ref) ?? "";
          return refs.get(ref) ?? ref;
        })
        .filter(Boolean),
      timestamp: str(a.lastUpdated) ?? str(v.updated) ?? str(a.firstIssued) ?? null,
    });
  }
  return {
    format: "cyclonedx",
    id: str(doc.serialNumber) ?? digestId(doc),
    author,
    timestamp: str(meta.timestamp),
    ...g.done(),
  };
}

// ---------------------------------------------------------------------------------------------
// CSAF
// ---------------------------------------------------------------------------------------------

/** Each product id of the tree → its purl, CPE or name (branches walked, relationships included). */
function csafProducts(doc: Record<string, unknown>): Map<string, string> {
  const names = new Map<string, string>();
  const add = (p: Record<string, unknown>) => {
    const id = str(p.product_id);
    if (!id) return;
    const h = obj(p.product_identification_helper);
    names.set(id, str(h.purl) ?? str(h.cpe) ?? str(p.name) ?? id);
  };
  const walk = (branches: unknown[]) => {
    for (const b of branches.map(obj)) {
      if (b.product) add(obj(b.product));
      walk(arr(b.branches));
    }
  };
  const tree = obj(doc.product_tree);
  for (const p of arr(tree.full_product_names)) add(obj(p));
  walk(arr(tree.branches));
  for (const r of arr(tree.relationships)) add(obj(obj(r).full_product_name));
  return names;
}

/** The product ids an element names: its product_ids and the products of its group_ids. */
function productIdsOf(el: Record<string, unknown>, groups: Map<string, string[]>): Set<string> {
  const ids = new Set(arr(el.product_ids).map(String));
  for (const g of arr(el.group_ids)) for (const id of groups.get(String(g)) ?? []) ids.add(id);
  return ids;
}

function readCsaf(doc: Record<string, unknown>): ReadVexDocument {
  const validate = csafValidator();
  if (!validate(doc)) throw schemaInvalid("CSAF 2.0", doc, validate.errors ?? []);
  const d = obj(doc.document);
  const tracking = obj(d.tracking);
  const names = csafProducts(doc);
  const groups = new Map(
    arr(obj(doc.product_tree).product_groups).map((g) => [String(obj(g).group_id), arr(obj(g).product_ids).map(String)] as const),
  );
  const g = new Gathered();
  for (const v of arr(doc.vulnerabilities).map(obj)) {
    const ids = [str(v.cve), ...arr(v.ids).map((i) => str(obj(i).text))].filter((x): x is string => !!x);
    const cve = ids.find((i) => CVE.test(i))?.toUpperCase();
    if (!cve) {
      g.ignore(ids[0] ?? "(sans identifiant)", "identifiant qui n'est pas une CVE");
      continue;
    }
    const status = obj(v.product_status);
    const notAffected = arr(status.known_not_affected).map(String);
    if (!notAffected.length) {
      const others = Object.keys(status).filter((k) => arr(status[k]).length);
      g.ignore(cve, others.length ? `statut ${others.join(", ")} : seul known_not_affected est proposé` : "sans product_status");
      continue;
    }
    const flags = arr(v.flags).map(obj);
    const threats = arr(v.threats)
      .map(obj)
      .filter((t) => t.category === "impact");
    const justification =
      (flags.find((f) => notAffected.some((id) => productIdsOf(f, groups).has(id)))?.label as VexJustification | undefined) ?? null;
    const impact = threats.find((t) => notAffected.some((id) => productIdsOf(t, groups).has(id)));
    const flagDate = str(flags.find((f) => f.label === justification)?.date);
    g.add({
      cve_id: cve,
      vex_status: "known_not_affected",
      justification: justification && (VEX_JUSTIFICATIONS as readonly string[]).includes(justification) ? justification : null,
      impact_statement: impact ? str(impact.details) : null,
      products: notAffected.map((id) => names.get(id) ?? id),
      timestamp: flagDate ?? str(impact?.date) ?? null,
    });
  }
  return {
    format: "csaf",
    id: str(tracking.id) ?? digestId(doc),
    author: str(obj(d.publisher).name),
    timestamp: str(tracking.current_release_date),
    ...g.done(),
  };
}

// ---------------------------------------------------------------------------------------------
// OpenVEX
// ---------------------------------------------------------------------------------------------

function readOpenVex(doc: Record<string, unknown>): ReadVexDocument {
  const validate = openVexValidator();
  if (!validate(doc)) throw schemaInvalid("OpenVEX 0.2", doc, validate.errors ?? []);
  const g = new Gathered();
  for (const s of arr(doc.statements).map(obj)) {
    const vuln = obj(s.vulnerability);
    const ids = [str(vuln.name), ...arr(vuln.aliases).map(str)].filter((x): x is string => !!x);
    const cve = ids.find((i) => CVE.test(i))?.toUpperCase();
    if (!cve) {
      g.ignore(ids[0] ?? "(sans identifiant)", "identifiant qui n'est pas une CVE");
      continue;
    }
    const status = str(s.status);
    if (status !== "not_affected") {
      g.ignore(cve, `statut ${status} : seul not_affected est proposé`);
      continue;
    }
    const products = arr(s.products).flatMap((p) => {
      const o = obj(p);
      const id = obj(o.identifiers);
      const own = str(id.purl) ?? str(id.cpe23) ?? str(id.cpe22) ?? str(o["@id"]);
      const subs = arr(o.subcomponents).map((c) => {
        const ci = obj(obj(c).identifiers);
        return str(ci.purl) ?? str(ci.cpe23) ?? str(ci.cpe22) ?? str(obj(c)["@id"]);
      });
      return [own, ...subs].filter((x): x is string => !!x);
    });
    g.add({
      cve_id: cve,
      vex_status: "not_affected",
      justification: (str(s.justification) as VexJustification | null) ?? null,
      impact_statement: str(s.impact_statement) ?? str(s.status_notes),
      products,
      timestamp: str(s.last_updated) ?? str(s.timestamp),
    });
  }
  return {
    format: "openvex",
    id: str(doc["@id"]) ?? digestId(doc),
    author: str(doc.author),
    timestamp: str(doc.last_updated) ?? str(doc.timestamp),
    ...g.done(),
  };
}

/** The format of a document, from its content; null when none fits. */
export function detectFormat(doc: Record<string, unknown>): VexFormat | null {
  if (doc.bomFormat === "CycloneDX") return "cyclonedx";
  if (obj(doc.document).csaf_version !== undefined) return "csaf";
  if (typeof doc["@context"] === "string" && doc["@context"].startsWith("https://openvex.dev/ns")) return "openvex";
  return null;
}

/** Detects, validates and reads a VEX document; 422 (Invalid) on an unknown format or a schema fault. */
export async function readVexDocument(body: unknown): Promise<ReadVexDocument> {
  const doc = obj(body);
  const format = detectFormat(doc);
  if (format === "cyclonedx") return readCycloneDx(doc);
  if (format === "csaf") return readCsaf(doc);
  if (format === "openvex") return readOpenVex(doc);
  throw new Invalid([{ loc: ["body"], message: INVALID.vexFormatUnknown, input: null }]);
}
