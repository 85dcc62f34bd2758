/**
 * SPDX 2.2 and 2.3 JSON, each validated against its own version's schema, read as a stream: `packages`, `relationships`, `files` and `snippets` items are validated
 * against their item schema as each one ends, then dropped; the rest of the document against the
 * whole schema. Each package is a component (ref: SPDXID, version: versionInfo, the first purl of
 * its PACKAGE-MANAGER references, the first CPE of its SECURITY references), except the packages
 * the document DESCRIBES (documentDescribes, or a DESCRIBES / DESCRIBED_BY relationship with the
 * document): those are the product the SBOM is about, not its parts.
 */
import { ComponentList, type Faults, text } from "./collect.js";
import { type Path, pointer } from "./json-stream.js";
import { faultsOf, SPDX_VERSIONS, type SpdxVersion, spdxValidators, type Validators } from "./schemas.js";
import type { SbomComponent, SbomDocument } from "./types.js";
import { unsupported } from "./unsupported.js";

/** Root arrays streamed, and their kind. */
export const SPDX_ITEM_KINDS: Record<string, string> = {
  packages: "spdx-packages",
  relationships: "spdx-relationships",
  files: "spdx-files",
  snippets: "spdx-snippets",
};

// SPDX 2.2 writes PACKAGE_MANAGER, 2.3 PACKAGE-MANAGER (each schema accepts its own spelling only).
const PURL_CATEGORIES = new Set(["PACKAGE-MANAGER", "PACKAGE_MANAGER"]);
const CPE_TYPES = new Set(["cpe23Type", "cpe22Type"]);

/** Collects an SPDX JSON document's streamed items; `ready` once its spdxVersion is known. */
export class SpdxJson {
  private validators: Validators | null = null;
  private version: string | null = null;
  private readonly components = new ComponentList();
  /** DESCRIBES relationships as (describing element, described element). */
  private readonly describes: [string, string][] = [];

  constructor(private readonly faults: Faults) {}

  get ready(): boolean {
    return this.validators !== null;
  }

  rootMember(key: string, value: unknown): void {
    if (key !== "spdxVersion" || this.validators) return;
    const version = typeof value === "string" && value.startsWith("SPDX-") ? value.slice(5) : null;
    if (!version || !(SPDX_VERSIONS as readonly string[]).includes(version)) {
      const v = String(value);
      throw unsupported(v.startsWith("SPDX-3") ? `SPDX ${v.slice(5)}` : `SPDX « ${v} »`, "/spdxVersion");
    }
    this.version = version;
    this.validators = spdxValidators(version as SpdxVersion);
  }

  itemStart(kind: string, seq: number): void {
    if (kind === SPDX_ITEM_KINDS.packages) this.components.reserve(seq);
  }

  item(kind: string, seq: number, path: Path, value: unknown): void {
    const validate = (this.validators as Validators).items[path[0] as string];
    if (!validate) return;
    const ok = validate(value);
    if (!ok) this.faults.add(faultsOf(validate.errors, pointer(path)));
    // Lenient: an item that fails its schema is still read if it is an object.
    const usable = ok || (this.faults.lenient && !!value && typeof value === "object" && !Array.isArray(value));
    if (kind === SPDX_ITEM_KINDS.packages) this.components.set(seq, usable ? toComponent(value as Record<string, unknown>) : null);
    else if (usable && kind === SPDX_ITEM_KINDS.relationships) {
      const r = value as Record<string, unknown>;
      const from = String(r.spdxElementId);
      const to = String(r.relatedSpdxElement);
      if (r.relationshipType === "DESCRIBES") this.describes.push([from, to]);
      else if (r.relationshipType === "DESCRIBED_BY") this.describes.push([to, from]);
    }
  }

  /** The document, once every item is read: the rest validated, the described packages set apart. */
  finish(root: Record<string, unknown>): SbomDocument {
    const v = this.validators;
    if (!v) {
      this.faults.add([{ at: "", message: "must have required property 'spdxVersion'" }]);
      throw this.faults.invalid();
    }
    if (!v.document(root)) this.faults.add(faultsOf(v.document.errors, ""));
    this.faults.done();
    const documentId = text(root.SPDXID) ?? "SPDXRef-DOCUMENT";
    const described = new Set<string>(Array.isArray(root.documentDescribes) ? root.documentDescribes.map(String) : []);
    for (const [from, to] of this.describes) if (from === documentId) described.add(to);
    const components = this.components.result((c) => c.ref !== null && described.has(c.ref));
    return {
      format: "spdx",
      specVersion: this.version as string,
      encoding: "json",
      serialNumber: text(root.documentNamespace),
      documentVersion: null,
      name: text(root.name),
      components,
      componentCount: this.components.count,
      faults: this.faults.list,
      faultCount: this.faults.total,
    };
  }
}

function toComponent(p: Record<string, unknown>): SbomComponent {
  let purl: string | null = null;
  let cpe: string | null = null;
  for (const ref of Array.isArray(p.externalRefs) ? (p.externalRefs as Record<string, unknown>[]) : []) {
    const locator = text(ref.referenceLocator);
    if (!locator) continue;
    if (!purl && PURL_CATEGORIES.has(String(ref.referenceCategory)) && ref.referenceType === "purl") purl = locator;
    else if (!cpe && ref.referenceCategory === "SECURITY" && CPE_TYPES.has(String(ref.referenceType))) cpe = locator;
  }
  return { ref: text(p.SPDXID), name: String(p.name ?? ""), version: text(p.versionInfo), purl, cpe };
}
