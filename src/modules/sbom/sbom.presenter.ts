import type { InventoryRow } from "./sbom.repository.js";
import { DIFF_SAMPLE } from "./sbom.schemas.js";
import { faultLoc, type SbomImportResult, type SbomWithInventory, type StackFromSbomResult } from "./sbom.service.js";

/** SbomInventoryEntryOut. */
export function presentInventory(r: InventoryRow) {
  return { ref: r.ref, name: r.name, version: r.version, purl: r.purl, cpe: r.cpe, raison: r.raison };
}

/** StackSbomOut. */
export function presentSbom(s: SbomWithInventory) {
  return {
    id: s.id,
    stack_id: s.stackId,
    format: s.format,
    spec_version: s.specVersion,
    encoding: s.encoding as "json" | "xml",
    document_key: s.documentKey,
    document_version: s.documentVersion,
    name: s.name,
    component_count: s.componentCount,
    item_count: s.itemCount,
    inventory_count: s.inventoryCount,
    fault_count: s.faultCount,
    faults: s.faults.map((f) => ({ loc: faultLoc(f.at), msg: f.message })),
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

function sample<T, U>(all: T[], present: (t: T, i: number) => U) {
  return { count: all.length, items: all.slice(0, DIFF_SAMPLE).map(present) };
}

/** SbomImportOut: the difference, its first 1,000 entries of each kind, the alerts it moved. */
export function presentImport(r: SbomImportResult) {
  return {
    sbom: presentSbom(r.sbom),
    ajoutes: sample(r.diff.added, (w, i) => ({
      id: r.addedIds[i]!,
      item_type: w.itemType,
      value: w.value,
      sbom_key: w.key,
      version: w.version,
    })),
    retires: sample(r.diff.removed, (h) => ({ id: h.id, item_type: h.itemType, value: h.value, sbom_key: h.key, version: h.version })),
    versions_changees: sample(r.diff.changed, (c) => ({
      id: c.held.id,
      item_type: c.wanted.itemType,
      sbom_key: c.wanted.key,
      value: c.wanted.value,
      from: c.held.version,
      to: c.wanted.version,
    })),
    inchanges: r.diff.unchanged,
    ignores: sample(r.ignored, (g) => ({ ref: g.ref, name: g.name, version: g.version, raison: g.raison })),
    identifiants_ignores: sample(r.partial, (g) => ({ ref: g.ref, name: g.name, version: g.version, raison: g.raison })),
    alertes_creees: r.raised,
    correspondances_en_arriere_plan: r.deferred,
    avertissement: r.avertissement,
    alertes_plus_correspondantes: r.flips.unmatched,
    alertes_correspondantes_a_nouveau: r.flips.rematched,
  };
}

/** StackFromSbomOut: the stack without its items, and the upload. */
export function presentStackFromSbom(r: StackFromSbomResult) {
  return {
    stack: { id: r.stack.id, name: r.stack.name, project_id: r.stack.projectId, item_count: r.itemCount },
    ...presentImport(r),
  };
}
