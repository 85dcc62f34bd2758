import type { ProjectScope } from "../../platform/auth/context.js";
import type { Db, Executor } from "../../platform/db/client.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { alertsVersion, bumpVersions, casesVersion } from "../../platform/db/versions.js";
import { Conflict, invalid, NotFound, type Loc } from "../../platform/errors.js";
import { CONFLICT, INVALID, NOT_FOUND } from "../../platform/messages.js";
import { tagsRepository as repo, type TagRow } from "./tags.repository.js";
import type { TagIn, TagUpdateIn } from "./tags.schemas.js";

/** 422 on `loc` unless every tag id is one of the project's tags. */
export async function checkTagIds(ex: Executor, projectId: string, ids: string[], loc: Loc): Promise<void> {
  const found = await repo.existing(ex, projectId, ids);
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length) throw invalid(loc, INVALID.unknownTags(missing), missing);
}

/** A tag of the project, or 404. */
export async function getTag(ex: Executor, projectId: string, tagId: string): Promise<TagRow> {
  const tag = await repo.get(ex, projectId, tagId);
  if (!tag) throw new NotFound(NOT_FOUND.tag);
  return tag;
}

/** The colour of a tag a workflow creates (the creation route's default). */
export const DEFAULT_TAG_COLOR = "#6b7280";

function nameTaken(name: string): Conflict {
  return new Conflict(CONFLICT.nameTaken.code, CONFLICT.nameTaken.message("Un tag nommé", name, " dans ce projet"));
}

/** Tags of a project (attached to alerts and stack items). */
export class TagsService {
  constructor(private readonly db: Db) {}

  async list(project: ProjectScope): Promise<TagRow[]> {
    return repo.list(this.db, project.id);
  }

  async create(project: ProjectScope, body: TagIn): Promise<TagRow> {
    try {
      return await repo.insert(this.db, { projectId: project.id, name: body.name, color: body.color });
    } catch (err) {
      if (isUniqueViolation(err, "tags_project_name_uq")) throw nameTaken(body.name);
      throw err;
    }
  }

  async update({ id: projectId }: ProjectScope, tagId: string, body: TagUpdateIn): Promise<TagRow> {
    try {
      const patch = { ...(body.name !== undefined && { name: body.name }), ...(body.color !== undefined && { color: body.color }) };
      // A renamed tag changes what the alert and case lists' `tag` filter selects: cached counts go.
      const row = await this.db.transaction(async (tx) => {
        const r = Object.keys(patch).length ? await repo.update(tx, projectId, tagId, patch) : await repo.get(tx, projectId, tagId);
        if (r && patch.name !== undefined) await bumpVersions(tx, [alertsVersion(projectId), casesVersion(projectId)]);
        return r;
      });
      if (!row) throw new NotFound(NOT_FOUND.tag);
      return row;
    } catch (err) {
      if (isUniqueViolation(err, "tags_project_name_uq")) throw nameTaken(body.name ?? "");
      throw err;
    }
  }

  async delete(project: ProjectScope, tagId: string): Promise<void> {
    const deleted = await this.db.transaction(async (tx) => {
      const d = await repo.delete(tx, project.id, tagId);
      if (d) await bumpVersions(tx, [alertsVersion(project.id), casesVersion(project.id)]);
      return d;
    });
    if (!deleted) throw new NotFound(NOT_FOUND.tag);
  }

  /**
   * The `add_tag` workflow action: attaches the project's tag of this name (any case) to an alert,
   * creating the tag (default colour) when the project has none — an organization workflow names
   * tags, it cannot know each project's ids. Idempotent: a retry finds both the tag and the link.
   * Returns the tag and whether it was created; undefined when the alert is not the project's.
   */
  async ensureOnAlert(project: ProjectScope, alertId: string, name: string): Promise<{ tag: TagRow; created: boolean } | undefined> {
    return this.db.transaction(async (tx) => {
      if (!(await repo.alertInProject(tx, project.id, alertId))) return undefined;
      const inserted = await repo.insertIfMissing(tx, { projectId: project.id, name, color: DEFAULT_TAG_COLOR });
      const tag = inserted ?? (await repo.byName(tx, project.id, name))!;
      await repo.attachToAlert(tx, alertId, tag.id);
      await bumpVersions(tx, [alertsVersion(project.id)]);
      return { tag, created: inserted !== undefined };
    });
  }
}
