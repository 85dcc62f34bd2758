import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import { broadWarning, type ItemMatching } from "../../matching/background.js";
import { alertedCvesOfItems, rematchProjectAlerts, type Flips } from "../../matching/matcher.js";
import type { ProjectScope } from "../../platform/auth/context.js";
import type { Db, Executor } from "../../platform/db/client.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { analyzeAfterBulkWrite } from "../../platform/db/sql.js";
import { bumpVersions, readVersion, stackVersion } from "../../platform/db/versions.js";
import { Conflict, Invalid, NotFound, type Issue, type Loc } from "../../platform/errors.js";
import { CONFLICT, INVALID, NOT_FOUND } from "../../platform/messages.js";
import { readSbom } from "../../sbom/read.js";
import { SbomInvalid, type SbomDocument, type SbomFault } from "../../sbom/types.js";
import type { organizationsRepository } from "../organizations/organizations.repository.js";
import { projectsRead } from "../projects/projects.read.js";
import type { NewItem, StackRow, stacksRepository } from "../stacks/stacks.repository.js";
import { diffItems, itemsOfComponents, type IgnoredComponent, type SbomDiff, type WantedItem } from "./sbom.items.js";
import { type InventoryRow, sbomRepository as repo, type SbomFacts, type StackSbomRow } from "./sbom.repository.js";

/** An SBOM and how many of its components are kept as inventory (no item made of them). */
export type SbomWithInventory = StackSbomRow & { inventoryCount: number };

/** A document to load: its bytes (a request's stream, or the text an MCP client sent), its media type, how to read it. */
export interface SbomSource {
  input: Readable | Buffer | string;
  mediaType?: string;
  /** Accept a readable document that fails its schema, its faults kept with the SBOM (default: refused, 422). */
  lenient?: boolean;
}

/** What an upload did. */
export interface SbomImportResult {
  sbom: SbomWithInventory;
  /** The document was new to the stack (else it replaced the SBOM of the same identity). */
  created: boolean;
  diff: SbomDiff;
  /** The ids of the added items, in the order of `diff.added`. */
  addedIds: string[];
  ignored: IgnoredComponent[];
  /** Components kept through one identifier, the other refused. */
  partial: IgnoredComponent[];
  /** Alerts raised by added and changed items, in the upload's transaction. */
  raised: number;
  /** Added and changed items whose alerts the items-match job raises (their candidates were past VIGIE_MATCH_INLINE_MAX). */
  deferred: number;
  /** Items past VIGIE_ITEM_ALERT_WARN candidates, named; else null. */
  avertissement: string | null;
  /** Alerts marked as matching no more, or matching again. */
  flips: Flips;
}

/** A stack created from an SBOM, and the upload. */
export interface StackFromSbomResult extends SbomImportResult {
  stack: StackRow;
  itemCount: number;
}

type StackItems = Pick<
  typeof stacksRepository,
  "get" | "lock" | "insert" | "items" | "insertSbomItems" | "sbomItems" | "rewriteItems" | "deleteItems" | "sbomItemIds" | "countItems"
>;

/** A JSON pointer (`/components/12/purl`) as a loc after `body` (indexes as numbers); `line 34` stays one segment. */
export function faultLoc(at: string): Loc {
  if (!at.startsWith("/")) return at ? ["body", at] : ["body"];
  return [
    "body",
    ...at
      .slice(1)
      .split("/")
      .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
      .map((s) => (/^(0|[1-9]\d*)$/.test(s) ? Number(s) : s)),
  ];
}

/** Every fault of an invalid document as a 422 issue at its place. */
function invalidDocument(err: SbomInvalid): Invalid {
  const faults: SbomFault[] = err.faults.length ? err.faults : [{ at: "", message: err.message }];
  return new Invalid(faults.map((f): Issue => ({ loc: faultLoc(f.at), message: f.message, input: null })));
}

/**
 * The document's identity in a stack: CycloneDX serialNumber, SPDX documentNamespace, else the
 * described software's name (and version); a document that gives none takes the upload's: the
 * stack it is loaded into (as Dependency-Track takes the project's), so that uploading it again
 * replaces it.
 */
export function documentKey(doc: SbomDocument, stackId: string): string {
  const serial = doc.serialNumber?.trim();
  if (serial) return serial;
  const name = doc.name?.trim();
  return name ? `nom:${name}` : `pile:${stackId}`;
}

/** A UUID derived from the stack's id (name-based, SHA-1, as RFC 9562 version 5): the serialNumber of its export. */
export function stackSerialNumber(stackId: string): string {
  const h = createHash("sha1").update(`vigie:stack:${stackId}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString("hex");
  return `urn:uuid:${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

function newItem(w: WantedItem): NewItem {
  return { itemType: w.itemType, value: w.value, minSeverity: null, keys: w.keys, sbomKey: w.key };
}

function nameTaken(name: string): Conflict {
  return new Conflict(CONFLICT.nameTaken.code, CONFLICT.nameTaken.message("Une pile nommée", name, " dans ce projet"));
}

/**
 * SBOMs in stacks. A document is read (and validated) before any transaction; its items then
 * replace those of the SBOM of the same identity in the stack, by difference, in one transaction
 * that also matches what was added or changed and re-decides the alerts of what went.
 */
export class SbomService {
  constructor(
    private readonly db: Db,
    private readonly stacks: StackItems,
    private readonly orgs: Pick<typeof organizationsRepository, "orgsByIds">,
    private readonly matching: ItemMatching,
  ) {}

  private async stackOf(ex: Executor, project: ProjectScope, stackId: string): Promise<StackRow> {
    const stack = await this.stacks.get(ex, project.id, stackId);
    if (!stack) throw new NotFound(NOT_FOUND.stack);
    return stack;
  }

  /** The document read and validated; an invalid one is a 422 naming each fault. */
  private async read(src: SbomSource): Promise<SbomDocument> {
    try {
      return await readSbom(src.input, src.mediaType, { lenient: src.lenient });
    } catch (err) {
      if (err instanceof SbomInvalid) throw invalidDocument(err);
      throw err;
    }
  }

  /** The upload's items replace those the SBOM of this identity holds in the (locked) stack. */
  private async load(tx: Executor, project: ProjectScope, stack: StackRow, doc: SbomDocument): Promise<SbomImportResult> {
    const key = documentKey(doc, stack.id);
    const { items, ignored, partial } = itemsOfComponents(doc.components);
    const facts: SbomFacts = {
      format: doc.format,
      specVersion: doc.specVersion,
      encoding: doc.encoding,
      documentVersion: doc.documentVersion,
      name: doc.name,
      componentCount: doc.componentCount,
      faultCount: doc.faultCount,
      faults: doc.faults,
    };
    const existing = await repo.byKey(tx, stack.id, key);
    const held = existing ? (await this.stacks.sbomItems(tx, existing.id)).map((r) => ({ ...r, key: r.sbomKey })) : [];
    const diff = diffItems(held, items);
    const changedIds = diff.changed.map((c) => c.held.id);
    // The CVEs alerted through what goes or changes, read before: deleting an item unlinks its alerts.
    const cves = await alertedCvesOfItems(tx, [...diff.removed.map((h) => h.id), ...changedIds]);
    const sbom =
      existing ?? (await repo.insert(tx, { orgId: project.orgId, projectId: project.id, stackId: stack.id, documentKey: key, ...facts }));
    await this.stacks.deleteItems(
      tx,
      stack.id,
      diff.removed.map((h) => h.id),
    );
    await this.stacks.rewriteItems(
      tx,
      stack.id,
      diff.changed.map((c) => ({ id: c.held.id, item: newItem(c.wanted) })),
    );
    const addedIds = await this.stacks.insertSbomItems(tx, stack.id, project.id, sbom.id, diff.added.map(newItem));
    // The matcher plans on stack_items' statistics: a product's SBOM is a bulk write.
    await analyzeAfterBulkWrite(tx, "stack_items", diff.added.length + diff.changed.length + diff.removed.length);
    // Bounded (ADR 0037): past VIGIE_MATCH_INLINE_MAX candidates, the items-match job raises them after the commit.
    const match = await this.matching.matchOrDefer(tx, [...addedIds, ...changedIds]);
    const values = new Map([
      ...diff.added.map((w, i) => [addedIds[i]!, w.value] as const),
      ...diff.changed.map((c) => [c.held.id, c.wanted.value] as const),
    ]);
    const avertissement = broadWarning(
      match.broad.map((b) => ({ value: values.get(b.item_id) ?? "", candidates: b.candidates })),
      this.matching.settings.warnAbove,
    );
    const touched = diff.added.length + diff.removed.length + diff.changed.length > 0;
    const flips = touched ? await rematchProjectAlerts(tx, project.id, cves) : { unmatched: 0, rematched: 0 };
    if (touched || !existing) await bumpVersions(tx, [stackVersion(stack.id)]);
    const row = await repo.update(tx, sbom.id, { ...facts, itemCount: items.length });
    // What cannot be matched is kept as inventory, with why.
    await repo.replaceInventory(
      tx,
      sbom.id,
      ignored.map((g) => ({ ref: g.ref, name: g.name, version: g.version, purl: g.purl, cpe: g.cpe, raison: g.raison })),
    );
    return {
      sbom: { ...row, inventoryCount: ignored.length },
      created: !existing,
      diff,
      addedIds,
      ignored,
      partial,
      raised: match.raised,
      deferred: match.deferred.length,
      avertissement,
      flips,
    };
  }

  /** Loads a document into a stack of the project (201 when new to it, else the difference). */
  async importInto(project: ProjectScope, stackId: string, src: SbomSource): Promise<SbomImportResult> {
    // The stack is checked before a byte of the document is read, and locked once it is.
    await this.stackOf(this.db, project, stackId);
    const doc = await this.read(src);
    const r = await this.db.transaction(async (tx) => {
      const stack = await this.stacks.lock(tx, project.id, stackId);
      if (!stack) throw new NotFound(NOT_FOUND.stack);
      return this.load(tx, project, stack, doc);
    });
    if (r.deferred) this.matching.wake();
    return r;
  }

  /** Creates a stack (named `name`, else after the software the document describes) from a document. */
  async createFrom(project: ProjectScope, name: string | undefined, src: SbomSource): Promise<StackFromSbomResult> {
    const doc = await this.read(src);
    const stackName = name ?? doc.name?.trim().slice(0, 100);
    if (!stackName) throw new Invalid([{ loc: ["query", "name"], message: INVALID.sbomStackName, input: null }]);
    try {
      const r = await this.db.transaction(async (tx) => {
        const stack = await this.stacks.insert(tx, { orgId: project.orgId, projectId: project.id, name: stackName });
        const r = await this.load(tx, project, stack, doc);
        return { ...r, stack, itemCount: await this.stacks.countItems(tx, stack.id) };
      });
      if (r.deferred) this.matching.wake();
      return r;
    } catch (err) {
      if (isUniqueViolation(err, "stacks_project_name_uq")) throw nameTaken(stackName);
      throw err;
    }
  }

  /** The SBOMs loaded in a stack, oldest first. */
  async list(project: ProjectScope, stackId: string): Promise<SbomWithInventory[]> {
    await this.stackOf(this.db, project, stackId);
    const rows = await repo.list(this.db, stackId);
    const counts = await repo.inventoryCounts(
      this.db,
      rows.map((r) => r.id),
    );
    return rows.map((r) => ({ ...r, inventoryCount: counts.get(r.id) ?? 0 }));
  }

  /** A page of an SBOM's inventory: the components that made no item, with why (never matched). */
  async inventory(
    project: ProjectScope,
    stackId: string,
    sbomId: string,
    query: { q?: string; page: number; page_size: number },
  ): Promise<{ rows: InventoryRow[]; total: number }> {
    const stack = await this.stackOf(this.db, project, stackId);
    if (!(await repo.get(this.db, stack.id, sbomId))) throw new NotFound(NOT_FOUND.sbom);
    return repo.inventoryPage(this.db, sbomId, query.q, query.page, query.page_size);
  }

  /** Removes an SBOM and its items; the alerts they were the match of are decided again (marked, never deleted). */
  async remove(project: ProjectScope, stackId: string, sbomId: string): Promise<{ removed: number; unmatched: number }> {
    return this.db.transaction(async (tx) => {
      const stack = await this.stacks.lock(tx, project.id, stackId);
      if (!stack) throw new NotFound(NOT_FOUND.stack);
      if (!(await repo.get(tx, stack.id, sbomId))) throw new NotFound(NOT_FOUND.sbom);
      const ids = await this.stacks.sbomItemIds(tx, sbomId);
      const cves = await alertedCvesOfItems(tx, ids);
      await repo.delete(tx, stack.id, sbomId); // its items go with it (stack_items.sbom_id cascades)
      const flips = await rematchProjectAlerts(tx, project.id, cves);
      await bumpVersions(tx, [stackVersion(stack.id)]);
      return { removed: ids.length, unmatched: flips.unmatched };
    });
  }

  /**
   * The stack as a CycloneDX 1.6 JSON document (its text): a serialNumber stable for the stack, its
   * item counter (stackVersion, from 1) as version, the time of the request as timestamp.
   */
  async exportStack(project: ProjectScope, stackId: string): Promise<string> {
    const stack = await this.stackOf(this.db, project, stackId);
    const items = await this.stacks.items(this.db, [stack.id]);
    const version = (await readVersion(this.db, stackVersion(stack.id))) + 1;
    const [org] = await this.orgs.orgsByIds(this.db, [project.orgId]);
    // The CycloneDX library is loaded at the first export, not at every process start.
    const { cycloneDxOfStack } = await import("../../sbom/write.js");
    return cycloneDxOfStack(
      {
        id: stack.id,
        name: stack.name,
        projectName: await projectsRead.name(this.db, project.id),
        items: items.map((i) => ({ item_type: i.itemType, value: i.value })),
        inventory: await repo.inventoryOfStack(this.db, stack.id),
      },
      { organization: org!.name, timestamp: new Date(), serialNumber: stackSerialNumber(stack.id), version },
    );
  }
}
