import type { Db } from "../../platform/db/client.js";
import { isScope, SCOPES } from "../../platform/auth/scopes.js";
import { hashToken, newApiKey } from "../../platform/auth/secrets.js";
import { NotFound, ValidationFailed } from "../../platform/errors.js";
import { organizationsRepository } from "../organizations/organizations.repository.js";
import { apiKeysRepository as repo, type ApiKeyRow } from "./apikeys.repository.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** API keys: issued to an organization, optionally restricted to some of its projects, stored as a hash. */
export class ApiKeysService {
  constructor(private readonly db: Db, private readonly authChanged: () => Promise<void>) {}

  /** Creates a key; the clear key is returned here and never again. */
  async create(input: { orgId: string; name?: string; scopes: string[]; projectIds: string[] }): Promise<{ row: ApiKeyRow; key: string; projectIds: string[] }> {
    const bad = input.scopes.filter((s) => !isScope(s));
    if (bad.length) {
      throw new ValidationFailed([{ type: "value_error", loc: ["scope"], msg: `scope inconnu : ${bad.join(", ")} (scopes : ${SCOPES.join(", ")})`, input: bad }]);
    }
    const name = (input.name ?? "").trim() || "default";
    if (name.length > 100) throw new ValidationFailed([{ type: "value_error", loc: ["name"], msg: "le nom fait au plus 100 caractères", input: name }]);
    if (!UUID.test(input.orgId) || !(await organizationsRepository.orgExists(this.db, input.orgId))) throw new NotFound("Organisation introuvable");
    const projectIds = [...new Set(input.projectIds.map((p) => p.toLowerCase()))];
    const notUuid = projectIds.filter((p) => !UUID.test(p));
    const owned = await repo.projectsOfOrg(this.db, input.orgId, projectIds.filter((p) => UUID.test(p)));
    const foreign = projectIds.filter((p) => !owned.includes(p));
    if (notUuid.length || foreign.length) {
      throw new ValidationFailed([{ type: "value_error", loc: ["project"], msg: `projet introuvable dans cette organisation : ${[...notUuid, ...foreign].join(", ")}`, input: [...notUuid, ...foreign] }]);
    }
    const { key, prefix } = newApiKey();
    const scopes = [...new Set(input.scopes)].sort();
    const row = await this.db.transaction((tx) =>
      repo.create(tx, { orgId: input.orgId, name, prefix, keyHash: hashToken(key), scopes, projectIds: projectIds.length ? projectIds : null }),
    );
    return { row, key, projectIds };
  }

  /** Revokes a key at once: the next request with it gets 401. Revoking twice keeps the first date. */
  async revoke(id: string): Promise<ApiKeyRow> {
    const row = UUID.test(id) ? await repo.revoke(this.db, id) : undefined;
    if (!row) throw new NotFound("Clé d'API introuvable");
    await this.authChanged();
    return row;
  }

  async list(orgId: string) {
    return repo.list(this.db, orgId);
  }
}
