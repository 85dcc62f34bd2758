/**
 * A stack as a CycloneDX 1.6 JSON SBOM, built with @cyclonedx/cyclonedx-library's models and
 * serializer. purl items become components named from their package URL, cpe items components
 * carrying the CPE (named after its product, versioned after its version), product items components
 * named after the product (the vendor as group and publisher). keyword, cve and vendor items name no
 * software: they are left out, and counted in the `vigie:skipped-items` property of the BOM. The
 * components of its SBOMs kept as inventory follow, each with its `vigie:non-rapproche` reason.
 * The output depends on its inputs only: lists sorted, bom-refs derived from the items.
 */
import { Enums, Models, Serialize, Spec } from "@cyclonedx/cyclonedx-library";
import { PackageURL } from "packageurl-js";
import { parseCpe } from "../matching/cpe.js";
import { VERSION } from "../version.js";

export interface StackForSbom {
  id: string;
  name: string;
  projectName?: string;
  items: { item_type: string; value: string }[];
  /** Components of its SBOMs kept as inventory (no item made of them), exported back with why. */
  inventory?: { key: string; name: string; version: string | null; purl: string | null; cpe: string | null; raison: string }[];
}

export interface SbomMeta {
  organization: string;
  timestamp: Date;
  /** urn:uuid:… */
  serialNumber: string;
  version: number;
}

const concrete = (v: string | undefined | null): string | undefined => (v && v !== "*" && v !== "-" ? v : undefined);

/** The component of a purl item (the purl as the stack keeps it); undefined when it does not parse. */
function purlComponent(value: string, bomRef: string): Models.Component | undefined {
  let purl: PackageURL;
  try {
    purl = PackageURL.fromString(value);
  } catch {
    return undefined;
  }
  return new Models.Component(Enums.ComponentType.Library, purl.name, {
    bomRef,
    group: purl.namespace ?? undefined,
    version: purl.version ?? undefined,
    purl: value,
  });
}

function cpeComponent(value: string, bomRef: string): Models.Component | undefined {
  const cpe = parseCpe(value);
  if (!cpe) return undefined;
  const type =
    cpe.part === "o"
      ? Enums.ComponentType.OperatingSystem
      : cpe.part === "h"
        ? Enums.ComponentType.Device
        : Enums.ComponentType.Application;
  return new Models.Component(type, cpe.product, {
    bomRef,
    group: concrete(cpe.vendor),
    publisher: concrete(cpe.vendor),
    version: concrete(cpe.version),
    cpe: value,
  });
}

/** vendor:product, product, with a version after @ or as a third part (as stack items write them). */
function productComponent(value: string, bomRef: string): Models.Component | undefined {
  let name = value;
  let version: string | undefined;
  const at = value.lastIndexOf("@");
  if (at > 0) {
    name = value.slice(0, at);
    version = value.slice(at + 1).trim() || undefined;
  }
  const parts = name.split(":").map((p) => p.trim());
  if (parts.length === 3 && version === undefined) version = parts.pop();
  if (parts.length > 2 || parts.some((p) => !p)) return undefined;
  const [vendor, product] = parts.length === 2 ? parts : [undefined, parts[0]];
  return new Models.Component(Enums.ComponentType.Application, product as string, {
    bomRef,
    group: vendor,
    publisher: vendor,
    version,
  });
}

const BUILDERS: Record<string, (value: string, bomRef: string) => Models.Component | undefined> = {
  purl: purlComponent,
  cpe: cpeComponent,
  product: productComponent,
};

/** The stack as a CycloneDX 1.6 JSON document (2-space indented). */
export function cycloneDxOfStack(stack: StackForSbom, meta: SbomMeta): string {
  const described = new Models.Component(Enums.ComponentType.Application, stack.name, {
    bomRef: `vigie:stack:${stack.id}`,
    group: stack.projectName,
  });
  const bom = new Models.Bom({
    serialNumber: meta.serialNumber,
    version: meta.version,
    metadata: new Models.Metadata({
      timestamp: meta.timestamp,
      component: described,
      supplier: new Models.OrganizationalEntity({ name: meta.organization }),
      tools: new Models.Tools({
        components: new Models.ComponentRepository([new Models.Component(Enums.ComponentType.Application, "vigie", { version: VERSION })]),
      }),
    }),
  });
  const skipped = new Map<string, number>();
  const seen = new Set<string>();
  for (const item of stack.items) {
    const value = item.value.trim();
    const bomRef = `vigie:${item.item_type}:${value}`;
    if (seen.has(bomRef)) continue;
    seen.add(bomRef);
    const component = BUILDERS[item.item_type]?.(value, bomRef);
    if (component) bom.components.add(component);
    else skipped.set(item.item_type, (skipped.get(item.item_type) ?? 0) + 1);
  }
  for (const entry of stack.inventory ?? []) {
    const component = new Models.Component(Enums.ComponentType.Library, entry.name || "?", {
      bomRef: `vigie:inventaire:${entry.key}`,
      version: entry.version ?? undefined,
    });
    // The purl as the document gave it when it is a valid package URL (its type is merely unmatched); else, and the CPE, as properties.
    let validPurl = false;
    if (entry.purl) {
      try {
        PackageURL.fromString(entry.purl);
        component.purl = entry.purl;
        validPurl = true;
      } catch {}
    }
    if (entry.purl && !validPurl) component.properties.add(new Models.Property("vigie:purl", entry.purl));
    if (entry.cpe) component.properties.add(new Models.Property("vigie:cpe", entry.cpe));
    component.properties.add(new Models.Property("vigie:non-rapproche", entry.raison));
    bom.components.add(component);
  }
  for (const [type, n] of [...skipped].sort(([a], [b]) => (a < b ? -1 : 1))) {
    bom.metadata.properties.add(new Models.Property(`vigie:skipped-items:${type}`, String(n)));
  }
  const serializer = new Serialize.JsonSerializer(new Serialize.JSON.Normalize.Factory(Spec.Spec1dot6));
  return serializer.serialize(bom, { sortLists: true, space: 2 });
}
