import type { ApiKeyContext } from "../../platform/auth/context.js";
import type { Db, Executor } from "../../platform/db/client.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { bumpVersions } from "../../platform/db/versions.js";
import { alertsVersion } from "../../matching/matcher.js";
import { Conflict, NotFound, ValidationFailed } from "../../platform/errors.js";
import { valueError } from "../../platform/http/pydantic.js";
import { getProjectForKey } from "../projects/projects.service.js";
import { tagsRepository as repo, type TagRow } from "./tags.repository.js";
import type { TagInT, TagUpdateInT } from "./tags.schemas.js";

export const TAG_NOT_FOUND = "Tag introuvable";

/** 422 on `loc` unless every tag id is one of the project's tags. */
export async function checkTagIds(ex: Executor, projectId: string, ids: string[], loc: (string | number)[]): Promise<void> {
  const found = await repo.existing(ex, projectId, ids);
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length) throw new ValidationFailed([valueError(loc, `tag inconnu dans ce projet : ${missing.join(", ")}`, missing)]);
}

/** A tag of the project, or 404. */
export async function getTag(ex: Executor, projectId: string, tagId: string): Promise<TagRow> {
  const tag = await repo.get(ex, projectId, tagId);
  if (!tag) throw new NotFound(TAG_NOT_FOUND);
  return tag;
}

function nameTaken(name: string): Conflict {
  return new Conflict("nom_deja_utilise", `Un tag nommé « ${name} » existe déjà dans ce projet`);
}

/** Tags of a project (attached to alerts and stack items). */
export class TagsService {
  constructor(private readonly db: Db) {}

  async list(ctx: ApiKeyContext, orgId: string, projectId: string): Promise<TagRow[]> {
    await getProjectForKey(this.db, ctx, orgId, projectId);
    return repo.list(this.db, projectId);
  }

  async create(ctx: ApiKeyContext, orgId: string, projectId: string, body: TagInT): Promise<TagRow> {
    await getProjectForKey(this.db, ctx, orgId, projectId);
    try {
      return await repo.insert(this.db, { projectId, name: body.name, color: body.color });
    } catch (err) {
      if (isUniqueViolation(err, "tags_project_name_uq")) throw nameTaken(body.name);
      throw err;
    }
  }

  async update(ctx: ApiKeyContext, orgId: string, projectId: string, tagId: string, body: TagUpdateInT): Promise<TagRow> {
    await getProjectForKey(this.db, ctx, orgId, projectId);
    try {
      const patch = { ...(body.name !== undefined && { name: body.name }), ...(body.color !== undefined && { color: body.color }) };
      // A renamed tag changes what the alert list's `tag` filter selects: cached counts go.
      const row = await this.db.transaction(async (tx) => {
        const r = Object.keys(patch).length ? await repo.update(tx, projectId, tagId, patch) : await repo.get(tx, projectId, tagId);
        if (r && patch.name !== undefined) await bumpVersions(tx, [alertsVersion(projectId)]);
        return r;
      });
      if (!row) throw new NotFound(TAG_NOT_FOUND);
      return row;
    } catch (err) {
      if (isUniqueViolation(err, "tags_project_name_uq")) throw nameTaken(body.name ?? "");
      throw err;
    }
  }

  async delete(ctx: ApiKeyContext, orgId: string, projectId: string, tagId: string): Promise<void> {
    await getProjectForKey(this.db, ctx, orgId, projectId);
    const deleted = await this.db.transaction(async (tx) => {
      const d = await repo.delete(tx, projectId, tagId);
      if (d) await bumpVersions(tx, [alertsVersion(projectId)]);
      return d;
    });
    if (!deleted) throw new NotFound(TAG_NOT_FOUND);
  }
}
