/**
 * CycloneDX 1.2–1.7 JSON, read as a stream: each component (top-level, nested in another, nested in
 * metadata.component) is validated against the schema's `component` definition as it ends, each
 * `dependencies` entry against `dependency`, then both are dropped; the rest of the document (those
 * arrays emptied) is validated against the whole schema at the end. metadata.component is the
 * software the SBOM describes, not a component of it.
 */
import { ComponentList, type Faults, text, valueHash } from "./collect.js";
import { type Path, pointer } from "./json-stream.js";
import { CYCLONEDX_VERSIONS, type CycloneDxValidators, type CycloneDxVersion, cyclonedxValidators, faultsOf } from "./schemas.js";
import { type SbomComponent, type SbomDocument, SbomInvalid } from "./types.js";

/** Streamed item kinds of a CycloneDX document. */
export const CDX_COMPONENT = "cdx-component";
export const CDX_DEPENDENCY = "cdx-dependency";

/** A component's name as the document spells it: `group/name` when it has a group (npm scopes, Maven groups). */
export function componentName(group: unknown, name: unknown): string {
  const n = typeof name === "string" ? name : "";
  const g = text(group);
  return g ? `${g}/${n}` : n;
}

/** The unsupported-version fault, shared with the XML reader. */
export function unsupportedCycloneDx(version: string, at: string): SbomInvalid {
  return new SbomInvalid(`CycloneDX ${version} n'est pas pris en charge.`, [
    {
      at,
      message: `La version « ${version} » de CycloneDX n'est pas prise en charge : versions acceptées ${CYCLONEDX_VERSIONS.join(", ")}.`,
    },
  ]);
}

export function isCycloneDxVersion(v: unknown): v is CycloneDxVersion {
  return typeof v === "string" && (CYCLONEDX_VERSIONS as readonly string[]).includes(v);
}

/** Collects a CycloneDX JSON document's streamed items; `ready` once its specVersion is known. */
export class CycloneDxJson {
  private validators: CycloneDxValidators | null = null;
  private version: CycloneDxVersion | null = null;
  private readonly components = new ComponentList();
  /** Per streamed array (its pointer), a hash of each item seen and its index: the schema's `uniqueItems`. */
  private readonly unique = new Map<string, Map<string, number>>();

  constructor(private readonly faults: Faults) {}

  get ready(): boolean {
    return this.validators !== null;
  }

  rootMember(key: string, value: unknown): void {
    if (key !== "specVersion" || this.validators) return;
    if (!isCycloneDxVersion(value)) throw unsupportedCycloneDx(String(value), "/specVersion");
    this.version = value;
    this.validators = cyclonedxValidators(value);
  }

  itemStart(kind: string, seq: number): void {
    if (kind === CDX_COMPONENT) this.components.reserve(seq);
  }

  item(kind: string, seq: number, path: Path, value: unknown): void {
    const v = this.validators as CycloneDxValidators;
    if (kind === CDX_COMPONENT) {
      this.checkUnique(path, value);
      if (!v.component(value)) {
        this.faults.add(faultsOf(v.component.errors, pointer(path)));
        // Lenient: a component that fails its schema is still read if it is an object.
        this.components.set(seq, this.faults.lenient ? readable(value) : null);
        return;
      }
      this.components.set(seq, toComponent(value as Record<string, unknown>));
    } else if (kind === CDX_DEPENDENCY) {
      this.checkUnique(path, value);
      if (!v.dependency(value)) this.faults.add(faultsOf(v.dependency.errors, pointer(path)));
    }
  }

  /**
   * The schema's uniqueItems over a streamed array, by a hash of each item (valueHash). A
   * component whose own components were streamed away is not compared (its children are not in it).
   */
  private checkUnique(path: Path, value: unknown): void {
    if (value && typeof value === "object" && "components" in value) return;
    const parent = pointer(path.slice(0, -1));
    let seen = this.unique.get(parent);
    if (!seen) {
      seen = new Map();
      this.unique.set(parent, seen);
    }
    const key = valueHash(value);
    const index = path.at(-1) as number;
    const first = seen.get(key);
    if (first === undefined) seen.set(key, index);
    else this.faults.add([{ at: parent, message: `must NOT have duplicate items (items ## ${first} and ${index} are identical)` }]);
  }

  /** The document, once every item is read: the rest validated, the identity read. */
  finish(root: Record<string, unknown>): SbomDocument {
    const v = this.validators;
    if (!v) {
      this.faults.add([{ at: "", message: "must have required property 'specVersion'" }]);
      throw this.faults.invalid();
    }
    if (!v.document(root)) this.faults.add(faultsOf(v.document.errors, ""));
    this.faults.done();
    const meta = (root.metadata ?? {}) as Record<string, unknown>;
    const described = (meta.component ?? null) as Record<string, unknown> | null;
    const components = this.components.result();
    return {
      format: "cyclonedx",
      specVersion: this.version as string,
      encoding: "json",
      serialNumber: text(root.serialNumber),
      documentVersion: typeof root.version === "number" ? root.version : 1,
      name: described ? withVersion(componentName(described.group, described.name), text(described.version)) : null,
      components,
      componentCount: this.components.count,
      faults: this.faults.list,
      faultCount: this.faults.total,
    };
  }
}

/** A component as read from a value that may fail its schema: null unless it is an object. */
function readable(value: unknown): SbomComponent | null {
  return value && typeof value === "object" && !Array.isArray(value) ? toComponent(value as Record<string, unknown>) : null;
}

export function withVersion(name: string, version: string | null): string | null {
  if (!name) return null;
  return version ? `${name}@${version}` : name;
}

function toComponent(c: Record<string, unknown>): SbomComponent {
  return {
    ref: text(c["bom-ref"]),
    name: componentName(c.group, c.name),
    version: text(c.version),
    purl: text(c.purl),
    cpe: text(c.cpe),
  };
}
