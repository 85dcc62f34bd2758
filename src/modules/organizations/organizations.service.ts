import type { Db } from "../../platform/db/client.js";
import { invalid, NotFound, type Loc } from "../../platform/errors.js";
import { INVALID, NOT_FOUND } from "../../platform/messages.js";
import type { Caller, OrgScope, SessionContext } from "../../platform/auth/context.js";
import { organizationsRepository as repo, type OrgRow, type PlanRow } from "./organizations.repository.js";

const SLUG = /^[a-z0-9][a-z0-9_-]{0,49}$/;

/** An organization's name, trimmed: 1 to 200 characters (422 at `loc` otherwise). */
function orgName(raw: string, loc: Loc): string {
  const name = raw.trim();
  if (!name || name.length > 200) throw invalid(loc, INVALID.nameLength, raw);
  return name;
}

/** Plans and organizations: the tenancy roots. */
export class OrganizationsService {
  constructor(
    private readonly db: Db,
    private readonly authChanged: () => Promise<void>,
  ) {}

  async upsertPlan(input: { slug: string; name: string; maxApiCallsPerHour: number }): Promise<PlanRow> {
    if (!SLUG.test(input.slug)) throw invalid("slug", INVALID.slug, input.slug);
    if (!input.name.trim()) throw invalid("name", INVALID.nameEmpty, input.name);
    if (!Number.isInteger(input.maxApiCallsPerHour) || input.maxApiCallsPerHour < 1) {
      throw invalid("max_api_calls_per_hour", INVALID.callsPerHour, input.maxApiCallsPerHour);
    }
    const plan = await repo.upsertPlan(this.db, { ...input, name: input.name.trim() });
    await this.authChanged(); // cached key contexts carry the plan and its limit
    return plan;
  }

  async createOrg(input: { name: string; planSlug?: string }): Promise<{ org: OrgRow; plan: PlanRow | null }> {
    const name = orgName(input.name, ["name"]);
    let plan: PlanRow | null = null;
    if (input.planSlug !== undefined) {
      plan = (await repo.planBySlug(this.db, input.planSlug)) ?? null;
      if (!plan) throw new NotFound(NOT_FOUND.plan(input.planSlug));
    }
    const org = await repo.createOrg(this.db, { name, planId: plan?.id ?? null });
    return { org, plan };
  }

  async getOrg(orgId: string): Promise<{ org: OrgRow; plan: PlanRow | null }> {
    const found = await repo.orgWithPlan(this.db, orgId);
    if (!found) throw new NotFound(NOT_FOUND.organization);
    return found;
  }

  /** Renames an organization its owner reaches (the route checks the role); answers it with the caller's role. */
  async rename(by: SessionContext, org: OrgScope, input: { name: string }): Promise<{ org: OrgRow; role: string }> {
    const row = await repo.rename(this.db, org.id, orgName(input.name, ["body", "name"]));
    if (!row) throw new NotFound(NOT_FOUND.organization);
    return { org: row, role: by.roles.get(org.id)! };
  }

  /** The organizations a caller reaches: an API key's own (the key is live, so it exists), a user's, with their role. */
  async reachable(caller: Caller): Promise<{ org: OrgRow; role: string }[]> {
    if (caller.kind === "apiKey") return [{ org: (await this.getOrg(caller.orgId)).org, role: "api_key" }];
    const orgs = await repo.orgsByIds(this.db, [...caller.roles.keys()]);
    return orgs.map((org) => ({ org, role: caller.roles.get(org.id)! }));
  }
}
