import { BadItem, itemKeys } from "../../matching/items.js";
import { matchNewItems } from "../../matching/matcher.js";
import type { ApiKeyContext } from "../../platform/auth/context.js";
import type { Db, Executor } from "../../platform/db/client.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import type { StackItemType } from "../../platform/db/schema/index.js";
import { Conflict, NotFound, ValidationFailed } from "../../platform/errors.js";
import { valueError, type PydanticError } from "../../platform/http/pydantic.js";
import { cvesRepository } from "../cves/cves.repository.js";
import { getProjectForKey } from "../projects/projects.service.js";
import { tagsRepository, type TagRow } from "../tags/tags.repository.js";
import { checkTagIds, getTag } from "../tags/tags.service.js";
import { stacksRepository as repo, type NewItem, type StackItemRow, type StackRow } from "./stacks.repository.js";
import type { StackInT, StackItemInT, StackItemUpdateInT } from "./stacks.schemas.js";

export const STACK_NOT_FOUND = "Pile introuvable";
export const ITEM_NOT_FOUND = "Élément de pile introuvable";

export interface StackView { stack: StackRow; items: StackItemRow[]; tags: Map<string, TagRow[]> }

function nameTaken(name: string): Conflict {
  return new Conflict("nom_deja_utilise", `Une pile nommée « ${name} » existe déjà dans ce projet`);
}

/** The item as the matcher stores it; a value that cannot be matched is a 422 at `loc`. */
async function newItem(ex: Executor, type: StackItemType, value: string, minSeverity: string | null, loc: (string | number)[], errors: PydanticError[]): Promise<NewItem | null> {
  try {
    const keys = itemKeys(type, value);
    // An alias (GHSA-…) is watched as the CVE it names, when Vigie knows it.
    if (keys.matchCve && !keys.matchCve.startsWith("CVE-")) keys.matchCve = (await cvesRepository.cveOfAlias(ex, keys.matchCve)) ?? keys.matchCve;
    return { itemType: type, value: value.trim(), minSeverity, keys };
  } catch (err) {
    if (!(err instanceof BadItem)) throw err;
    errors.push(valueError(loc, err.message, value));
    return null;
  }
}

/** Stacks of a project: what it runs, matched against every CVE. */
export class StacksService {
  constructor(private readonly db: Db) {}

  private async view(ex: Executor, stacks: StackRow[]): Promise<StackView[]> {
    const items = await repo.items(ex, stacks.map((s) => s.id));
    const tags = await tagsRepository.ofItems(ex, items.map((i) => i.id));
    return stacks.map((stack) => ({ stack, items: items.filter((i) => i.stackId === stack.id), tags }));
  }

  private async stackOf(ex: Executor, ctx: ApiKeyContext, orgId: string, projectId: string, stackId: string): Promise<StackRow> {
    await getProjectForKey(ex, ctx, orgId, projectId);
    const stack = await repo.get(ex, projectId, stackId);
    if (!stack) throw new NotFound(STACK_NOT_FOUND);
    return stack;
  }

  private async itemOf(ex: Executor, ctx: ApiKeyContext, orgId: string, projectId: string, stackId: string, itemId: string): Promise<StackItemRow> {
    await this.stackOf(ex, ctx, orgId, projectId, stackId);
    const item = await repo.item(ex, stackId, itemId);
    if (!item) throw new NotFound(ITEM_NOT_FOUND);
    return item;
  }

  /**
   * Validates items (every error at once; `at(i)` is where item i sits in the body), inserts them
   * with their tags and matches them against the corpus.
   */
  private async addItems(tx: Executor, stack: StackRow, items: StackItemInT[], at: (i: number) => (string | number)[]): Promise<{ rows: StackItemRow[]; raised: number }> {
    const errors: PydanticError[] = [];
    const parsed: NewItem[] = [];
    for (const [i, it] of items.entries()) {
      const n = await newItem(tx, it.item_type, it.value, it.min_severity ?? null, [...at(i), "value"], errors);
      if (n) parsed.push(n);
    }
    if (errors.length) throw new ValidationFailed(errors);
    for (const [i, it] of items.entries()) if (it.tag_ids.length) await checkTagIds(tx, stack.projectId, it.tag_ids, [...at(i), "tag_ids"]);
    const rows = await repo.insertItems(tx, stack.id, stack.projectId, parsed);
    for (const [i, row] of rows.entries()) if (items[i]!.tag_ids.length) await tagsRepository.setItemTags(tx, row.id, items[i]!.tag_ids);
    return { rows, raised: await matchNewItems(tx, rows.map((r) => r.id)) };
  }

  async list(ctx: ApiKeyContext, orgId: string, projectId: string): Promise<StackView[]> {
    await getProjectForKey(this.db, ctx, orgId, projectId);
    return this.view(this.db, await repo.list(this.db, projectId));
  }

  async get(ctx: ApiKeyContext, orgId: string, projectId: string, stackId: string): Promise<StackView> {
    const stack = await this.stackOf(this.db, ctx, orgId, projectId, stackId);
    return (await this.view(this.db, [stack]))[0]!;
  }

  /** Creates a stack with its items, and raises their alerts, in one transaction. */
  async create(ctx: ApiKeyContext, orgId: string, projectId: string, body: StackInT): Promise<StackView & { raised: number }> {
    await getProjectForKey(this.db, ctx, orgId, projectId);
    try {
      return await this.db.transaction(async (tx) => {
        const stack = await repo.insert(tx, { orgId, projectId, name: body.name });
        const { raised } = await this.addItems(tx, stack, body.items, (i) => ["body", "items", i]);
        return { ...(await this.view(tx, [stack]))[0]!, raised };
      });
    } catch (err) {
      if (isUniqueViolation(err, "stacks_project_name_uq")) throw nameTaken(body.name);
      throw err;
    }
  }

  async rename(ctx: ApiKeyContext, orgId: string, projectId: string, stackId: string, name: string): Promise<StackView> {
    await this.stackOf(this.db, ctx, orgId, projectId, stackId);
    try {
      const stack = await repo.rename(this.db, projectId, stackId, name);
      if (!stack) throw new NotFound(STACK_NOT_FOUND);
      return (await this.view(this.db, [stack]))[0]!;
    } catch (err) {
      if (isUniqueViolation(err, "stacks_project_name_uq")) throw nameTaken(name);
      throw err;
    }
  }

  /** Deletes a stack and its items; the alerts they raised stay (their history is the project's). */
  async delete(ctx: ApiKeyContext, orgId: string, projectId: string, stackId: string): Promise<void> {
    await getProjectForKey(this.db, ctx, orgId, projectId);
    if (!(await repo.delete(this.db, projectId, stackId))) throw new NotFound(STACK_NOT_FOUND);
  }

  async addItem(ctx: ApiKeyContext, orgId: string, projectId: string, stackId: string, body: StackItemInT): Promise<{ item: StackItemRow; tags: TagRow[]; raised: number }> {
    const stack = await this.stackOf(this.db, ctx, orgId, projectId, stackId);
    return this.db.transaction(async (tx) => {
      const { rows, raised } = await this.addItems(tx, stack, [body], () => ["body"]);
      const item = rows[0]!;
      return { item, tags: (await tagsRepository.ofItems(tx, [item.id])).get(item.id) ?? [], raised };
    });
  }

  /** Changes an item; a changed value or threshold is matched again (new alerts only, none withdrawn). */
  async updateItem(ctx: ApiKeyContext, orgId: string, projectId: string, stackId: string, itemId: string, body: StackItemUpdateInT): Promise<{ item: StackItemRow; tags: TagRow[] }> {
    const current = await this.itemOf(this.db, ctx, orgId, projectId, stackId, itemId);
    return this.db.transaction(async (tx) => {
      const errors: PydanticError[] = [];
      const type = body.item_type ?? current.itemType;
      const minSeverity = body.min_severity === undefined ? current.minSeverity : body.min_severity;
      const next = await newItem(tx, type, body.value ?? current.value, minSeverity, ["body", body.value === undefined ? "item_type" : "value"], errors);
      if (body.tag_ids) await checkTagIds(tx, projectId, body.tag_ids, ["body", "tag_ids"]);
      if (!next) throw new ValidationFailed(errors);
      const item = (await repo.updateItem(tx, stackId, itemId, next))!;
      if (body.tag_ids) await tagsRepository.setItemTags(tx, itemId, body.tag_ids);
      await matchNewItems(tx, [itemId]);
      return { item, tags: (await tagsRepository.ofItems(tx, [itemId])).get(itemId) ?? [] };
    });
  }

  async deleteItem(ctx: ApiKeyContext, orgId: string, projectId: string, stackId: string, itemId: string): Promise<void> {
    await this.stackOf(this.db, ctx, orgId, projectId, stackId);
    if (!(await repo.deleteItem(this.db, stackId, itemId))) throw new NotFound(ITEM_NOT_FOUND);
  }

  /** Attaches (or detaches) one of the project's tags to an item. */
  async tagItem(ctx: ApiKeyContext, orgId: string, projectId: string, stackId: string, itemId: string, tagId: string, attach: boolean): Promise<void> {
    await this.itemOf(this.db, ctx, orgId, projectId, stackId, itemId);
    await getTag(this.db, projectId, tagId);
    if (attach) await tagsRepository.attachToItem(this.db, itemId, tagId);
    else await tagsRepository.detachFromItem(this.db, itemId, tagId);
  }
}
