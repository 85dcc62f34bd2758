import type { Db } from "../../platform/db/client.js";
import { isScope, SCOPES } from "../../platform/auth/scopes.js";
import { hashToken, newApiKey } from "../../platform/auth/secrets.js";
import { invalid, NotFound, type Loc } from "../../platform/errors.js";
import { INVALID, NOT_FOUND } from "../../platform/messages.js";
import { isUuid } from "../../platform/ids.js";
import type { organizationsRepository } from "../organizations/organizations.repository.js";
import { projectsRead } from "../projects/projects.read.js";
import { apiKeysRepository as repo, type ApiKeyRow } from "./apikeys.repository.js";

/** API keys: issued to an organization, optionally restricted to some of its projects, stored as a hash. */
export class ApiKeysService {
  constructor(
    private readonly db: Db,
    private readonly authChanged: () => Promise<void>,
    private readonly organizations: Pick<typeof organizationsRepository, "orgExists">,
  ) {}

  /**
   * Creates a key; the clear key is returned here and never again. `at`: where the fields sit in the
   * input (["body"] on the API), for the 422's loc.
   */
  async create(
    input: {
      orgId: string;
      name?: string;
      scopes: string[];
      projectIds: string[];
    },
    at: Loc = [],
  ): Promise<{ row: ApiKeyRow; key: string; projectIds: string[] }> {
    const bad = input.scopes.filter((s) => !isScope(s));
    if (bad.length) {
      throw invalid([...at, "scopes"], INVALID.unknownScope(bad, SCOPES), bad);
    }
    const name = (input.name ?? "").trim() || "default";
    if (name.length > 100) throw invalid([...at, "name"], INVALID.keyNameLength, name);
    if (!isUuid(input.orgId) || !(await this.organizations.orgExists(this.db, input.orgId))) throw new NotFound(NOT_FOUND.organization);
    const projectIds = [...new Set(input.projectIds.map((p) => p.toLowerCase()))];
    const notUuid = projectIds.filter((p) => !isUuid(p));
    const owned = await projectsRead.idsInOrg(this.db, input.orgId, projectIds.filter(isUuid));
    const foreign = projectIds.filter((p) => !owned.includes(p));
    if (notUuid.length || foreign.length) {
      throw invalid([...at, "project_ids"], INVALID.foreignProjects([...notUuid, ...foreign]), [...notUuid, ...foreign]);
    }
    const { key, prefix } = newApiKey();
    const scopes = [...new Set(input.scopes)].sort();
    const row = await this.db.transaction((tx) =>
      repo.create(tx, {
        orgId: input.orgId,
        name,
        prefix,
        keyHash: hashToken(key),
        scopes,
        projectIds: projectIds.length ? projectIds : null,
      }),
    );
    return { row, key, projectIds };
  }

  /**
   * Revokes a key at once: the next request with it gets 401. Revoking twice keeps the first date.
   * `orgId`: the organization the key must belong to (404 « Clé d'API introuvable » otherwise); null
   * for an operator (`vigie apikey revoke`), who reaches every organization.
   */
  async revoke(id: string, orgId: string | null): Promise<ApiKeyRow> {
    const row = isUuid(id) ? await repo.revoke(this.db, id, orgId) : undefined;
    if (!row) throw new NotFound(NOT_FOUND.apiKey);
    await this.authChanged();
    return row;
  }

  /** The organization's live keys, then (includeRevoked) its revoked ones. */
  async list(orgId: string, includeRevoked = false) {
    return repo.list(this.db, orgId, includeRevoked);
  }
}
