import { BadItem, itemKeys } from "../../matching/items.js";
import { broadWarning, type BoundedMatch, type ItemMatching, type ItemMatchingProgress } from "../../matching/background.js";
import type { ProjectScope } from "../../platform/auth/context.js";
import type { Db, Executor } from "../../platform/db/client.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { analyzeAfterBulkWrite } from "../../platform/db/sql.js";
import { bumpVersions, stackVersion } from "../../platform/db/versions.js";
import type { StackItemType } from "../../platform/db/schema/index.js";
import { Conflict, Invalid, NotFound, type Issue, type Loc } from "../../platform/errors.js";
import { CONFLICT, NOT_FOUND } from "../../platform/messages.js";
import type { cvesRepository } from "../cves/cves.repository.js";
import type { TagRow, tagsRepository } from "../tags/tags.repository.js";
import { checkTagIds, getTag } from "../tags/tags.service.js";
import { stacksRepository as repo, type NewItem, type StackItemRow, type StackRow } from "./stacks.repository.js";
import type { StackIn, StackItemIn, StackItemListQuery, StackItemUpdateIn } from "./stacks.schemas.js";
import type { StackItemEol } from "../eol/eol.schemas.js";

export interface StackView {
  stack: StackRow;
  items: StackItemRow[];
  tags: Map<string, TagRow[]>;
  /** The endoflife.date cycle each item runs, by item id (absent: none). */
  eol: Map<string, StackItemEol>;
  /** The background matching of broad items, by item id (absent: matched with their request). */
  matching: Map<string, ItemMatchingProgress>;
}

/** What adding items did: alerts raised at once, and the `avertissement` of items past VIGIE_ITEM_ALERT_WARN (else null). */
export interface Raised {
  raised: number;
  avertissement: string | null;
}

/** The EOL facts of items, by item id, in one query (src/modules/eol/eol.stack.ts). */
export type EolOfItems = (ex: Executor, items: { id: string; itemType: string; value: string }[]) => Promise<Map<string, StackItemEol>>;

function nameTaken(name: string): Conflict {
  return new Conflict(CONFLICT.nameTaken.code, CONFLICT.nameTaken.message("Une pile nommée", name, " dans ce projet"));
}

/** Stacks of a project: what it runs, matched against every CVE. */
export class StacksService {
  constructor(
    private readonly db: Db,
    private readonly tags: Pick<typeof tagsRepository, "ofItems" | "setItemTags" | "attachToItem" | "detachFromItem">,
    private readonly cves: Pick<typeof cvesRepository, "cveOfAlias">,
    private readonly matching: ItemMatching,
    private readonly eolOfItems: EolOfItems = async () => new Map(),
  ) {}

  /** The item as the matcher stores it; a value that cannot be matched is a 422 at `loc`. */
  private async newItem(
    ex: Executor,
    type: StackItemType,
    value: string,
    minSeverity: string | null,
    loc: Loc,
    errors: Issue[],
  ): Promise<NewItem | null> {
    try {
      const keys = itemKeys(type, value);
      // An alias (GHSA-…) is watched as the CVE it names, when Vigie knows it.
      if (keys.matchCve && !keys.matchCve.startsWith("CVE-"))
        keys.matchCve = (await this.cves.cveOfAlias(ex, keys.matchCve)) ?? keys.matchCve;
      return { itemType: type, value: value.trim(), minSeverity, keys };
    } catch (err) {
      if (!(err instanceof BadItem)) throw err;
      errors.push({ loc, message: err.message, input: value });
      return null;
    }
  }

  private async view(ex: Executor, stacks: StackRow[]): Promise<StackView[]> {
    const items = await repo.items(
      ex,
      stacks.map((s) => s.id),
    );
    const tags = await this.tags.ofItems(
      ex,
      items.map((i) => i.id),
    );
    const eol = await this.eolOfItems(ex, items);
    const matching = await this.matching.progress(
      ex,
      items.map((i) => i.id),
    );
    return stacks.map((stack) => ({ stack, items: items.filter((i) => i.stackId === stack.id), tags, eol, matching }));
  }

  private async stackOf(ex: Executor, project: ProjectScope, stackId: string): Promise<StackRow> {
    const stack = await repo.get(ex, project.id, stackId);
    if (!stack) throw new NotFound(NOT_FOUND.stack);
    return stack;
  }

  private async itemOf(ex: Executor, project: ProjectScope, stackId: string, itemId: string): Promise<StackItemRow> {
    await this.stackOf(ex, project, stackId);
    const item = await repo.item(ex, stackId, itemId);
    if (!item) throw new NotFound(NOT_FOUND.stackItem);
    return item;
  }

  /**
   * Validates items (every error at once; `at(i)` is where item i sits in the body), inserts them
   * with their tags and matches them against the corpus: in this transaction up to
   * VIGIE_MATCH_INLINE_MAX candidates, else in the items-match job (`wake` after the commit).
   */
  private async addItems(
    tx: Executor,
    stack: StackRow,
    items: StackItemIn[],
    at: (i: number) => Loc,
  ): Promise<{ rows: StackItemRow[]; match: BoundedMatch }> {
    const errors: Issue[] = [];
    const parsed: NewItem[] = [];
    for (const [i, it] of items.entries()) {
      const n = await this.newItem(tx, it.item_type, it.value, it.min_severity ?? null, [...at(i), "value"], errors);
      if (n) parsed.push(n);
    }
    if (errors.length) throw new Invalid(errors);
    for (const [i, it] of items.entries()) if (it.tag_ids.length) await checkTagIds(tx, stack.projectId, it.tag_ids, [...at(i), "tag_ids"]);
    const rows = await repo.insertItems(tx, stack.id, stack.projectId, parsed);
    // Up to 1,000 items at once: the matcher below plans on stack_items' statistics.
    await analyzeAfterBulkWrite(tx, "stack_items", rows.length);
    if (rows.length) await bumpVersions(tx, [stackVersion(stack.id)]);
    for (const [i, row] of rows.entries()) if (items[i]!.tag_ids.length) await this.tags.setItemTags(tx, row.id, items[i]!.tag_ids);
    return {
      rows,
      match: await this.matching.matchOrDefer(
        tx,
        rows.map((r) => r.id),
      ),
    };
  }

  /** After the commit: the job takes what was deferred; the answer's count and warning. */
  private settle(rows: { id: string; value: string }[], match: BoundedMatch): Raised {
    if (match.deferred.length) this.matching.wake();
    const broad = match.broad.map((b) => ({ value: rows.find((r) => r.id === b.item_id)?.value ?? "", candidates: b.candidates }));
    return { raised: match.raised, avertissement: broadWarning(broad, this.matching.settings.warnAbove) };
  }

  async list(project: ProjectScope): Promise<StackView[]> {
    return this.view(this.db, await repo.list(this.db, project.id));
  }

  async get(project: ProjectScope, stackId: string): Promise<StackView> {
    const stack = await this.stackOf(this.db, project, stackId);
    return (await this.view(this.db, [stack]))[0]!;
  }

  /** Creates a stack with its items, and raises their alerts, in one transaction (broad items: in the items-match job). */
  async create(project: ProjectScope, body: StackIn): Promise<StackView & Raised> {
    try {
      const created = await this.db.transaction(async (tx) => {
        const stack = await repo.insert(tx, { orgId: project.orgId, projectId: project.id, name: body.name });
        const { rows, match } = await this.addItems(tx, stack, body.items, (i) => ["body", "items", i]);
        return { view: (await this.view(tx, [stack]))[0]!, rows, match };
      });
      return { ...created.view, ...this.settle(created.rows, created.match) };
    } catch (err) {
      if (isUniqueViolation(err, "stacks_project_name_uq")) throw nameTaken(body.name);
      throw err;
    }
  }

  async rename(project: ProjectScope, stackId: string, name: string): Promise<StackView> {
    await this.stackOf(this.db, project, stackId);
    try {
      const stack = await repo.rename(this.db, project.id, stackId, name);
      if (!stack) throw new NotFound(NOT_FOUND.stack);
      return (await this.view(this.db, [stack]))[0]!;
    } catch (err) {
      if (isUniqueViolation(err, "stacks_project_name_uq")) throw nameTaken(name);
      throw err;
    }
  }

  /** Deletes a stack and its items; the alerts they raised stay (their history is the project's). */
  async delete(project: ProjectScope, stackId: string): Promise<void> {
    if (!(await repo.delete(this.db, project.id, stackId))) throw new NotFound(NOT_FOUND.stack);
  }

  async addItem(
    project: ProjectScope,
    stackId: string,
    body: StackItemIn,
  ): Promise<{ item: StackItemRow; tags: TagRow[]; eol: StackItemEol | null; matching: ItemMatchingProgress | null } & Raised> {
    const stack = await this.stackOf(this.db, project, stackId);
    const added = await this.db.transaction(async (tx) => {
      const { rows, match } = await this.addItems(tx, stack, [body], () => ["body"]);
      const item = rows[0]!;
      const eol = (await this.eolOfItems(tx, [item])).get(item.id) ?? null;
      const matching = (await this.matching.progress(tx, [item.id])).get(item.id) ?? null;
      return { item, tags: (await this.tags.ofItems(tx, [item.id])).get(item.id) ?? [], eol, matching, match };
    });
    const { match, ...rest } = added;
    return { ...rest, ...this.settle([added.item], match) };
  }

  /** Changes an item; a changed value or threshold is matched again (new alerts only, none withdrawn). */
  async updateItem(
    project: ProjectScope,
    stackId: string,
    itemId: string,
    body: StackItemUpdateIn,
  ): Promise<{ item: StackItemRow; tags: TagRow[]; eol: StackItemEol | null; matching: ItemMatchingProgress | null } & Raised> {
    const current = await this.itemOf(this.db, project, stackId, itemId);
    const updated = await this.db.transaction(async (tx) => {
      const errors: Issue[] = [];
      const type = body.item_type ?? current.itemType;
      const minSeverity = body.min_severity === undefined ? current.minSeverity : body.min_severity;
      const next = await this.newItem(
        tx,
        type,
        body.value ?? current.value,
        minSeverity,
        ["body", body.value === undefined ? "item_type" : "value"],
        errors,
      );
      if (body.tag_ids) await checkTagIds(tx, project.id, body.tag_ids, ["body", "tag_ids"]);
      if (!next) throw new Invalid(errors);
      const item = (await repo.updateItem(tx, stackId, itemId, next))!;
      await bumpVersions(tx, [stackVersion(stackId)]);
      if (body.tag_ids) await this.tags.setItemTags(tx, itemId, body.tag_ids);
      const match = await this.matching.matchOrDefer(tx, [itemId]);
      const eol = (await this.eolOfItems(tx, [item])).get(item.id) ?? null;
      const matching = (await this.matching.progress(tx, [itemId])).get(itemId) ?? null;
      return { item, tags: (await this.tags.ofItems(tx, [itemId])).get(itemId) ?? [], eol, matching, match };
    });
    const { match, ...rest } = updated;
    return { ...rest, ...this.settle([updated.item], match) };
  }

  async deleteItem(project: ProjectScope, stackId: string, itemId: string): Promise<void> {
    await this.stackOf(this.db, project, stackId);
    await this.db.transaction(async (tx) => {
      if (!(await repo.deleteItem(tx, stackId, itemId))) throw new NotFound(NOT_FOUND.stackItem);
      await bumpVersions(tx, [stackVersion(stackId)]);
    });
  }

  /** A page of a stack's items (filtered by value, type, SBOM) with their tags and EOL facts. */
  async listItems(
    project: ProjectScope,
    stackId: string,
    query: StackItemListQuery,
  ): Promise<{
    items: StackItemRow[];
    tags: Map<string, TagRow[]>;
    eol: Map<string, StackItemEol>;
    matching: Map<string, ItemMatchingProgress>;
    total: number;
  }> {
    await this.stackOf(this.db, project, stackId);
    const { rows, total } = await repo.pageItems(
      this.db,
      stackId,
      { q: query.q, itemType: query.item_type, sbomId: query.sbom_id },
      (query.page - 1) * query.page_size,
      query.page_size,
    );
    const tags = await this.tags.ofItems(
      this.db,
      rows.map((i) => i.id),
    );
    const matching = await this.matching.progress(
      this.db,
      rows.map((i) => i.id),
    );
    return { items: rows, tags, eol: await this.eolOfItems(this.db, rows), matching, total };
  }

  /** Attaches (or detaches) one of the project's tags to an item. */
  async tagItem(project: ProjectScope, stackId: string, itemId: string, tagId: string, attach: boolean): Promise<void> {
    await this.itemOf(this.db, project, stackId, itemId);
    await getTag(this.db, project.id, tagId);
    if (attach) await this.tags.attachToItem(this.db, itemId, tagId);
    else await this.tags.detachFromItem(this.db, itemId, tagId);
  }
}
