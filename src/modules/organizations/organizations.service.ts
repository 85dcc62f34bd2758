import type { Db } from "../../platform/db/client.js";
import { invalid, NotFound } from "../../platform/errors.js";
import type { ApiKeyContext } from "../../platform/auth/context.js";
import { organizationsRepository as repo, type OrgRow, type PlanRow } from "./organizations.repository.js";

const SLUG = /^[a-z0-9][a-z0-9_-]{0,49}$/;

/** Plans and organizations: the tenancy roots. */
export class OrganizationsService {
  constructor(private readonly db: Db, private readonly authChanged: () => Promise<void>) {}

  async upsertPlan(input: { slug: string; name: string; maxApiCallsPerHour: number }): Promise<PlanRow> {
    if (!SLUG.test(input.slug)) throw invalid("slug", "slug invalide : minuscules, chiffres, - et _ (50 caractères au plus)", input.slug);
    if (!input.name.trim()) throw invalid("name", "le nom ne peut pas être vide", input.name);
    if (!Number.isInteger(input.maxApiCallsPerHour) || input.maxApiCallsPerHour < 1) {
      throw invalid("max_api_calls_per_hour", "doit être un entier supérieur ou égal à 1", input.maxApiCallsPerHour);
    }
    const plan = await repo.upsertPlan(this.db, { ...input, name: input.name.trim() });
    await this.authChanged(); // cached key contexts carry the plan and its limit
    return plan;
  }

  async createOrg(input: { name: string; planSlug?: string }): Promise<{ org: OrgRow; plan: PlanRow | null }> {
    const name = input.name.trim();
    if (!name || name.length > 200) throw invalid("name", "le nom doit faire de 1 à 200 caractères", input.name);
    let plan: PlanRow | null = null;
    if (input.planSlug !== undefined) {
      plan = (await repo.planBySlug(this.db, input.planSlug)) ?? null;
      if (!plan) throw new NotFound(`Plan introuvable : ${input.planSlug}`);
    }
    const org = await repo.createOrg(this.db, { name, planId: plan?.id ?? null });
    return { org, plan };
  }

  async getOrg(orgId: string): Promise<{ org: OrgRow; plan: PlanRow | null }> {
    const found = await repo.orgWithPlan(this.db, orgId);
    if (!found) throw new NotFound("Organisation introuvable");
    return found;
  }

  /** The organization of an API key (the key is live, so it exists). */
  async forKey(ctx: ApiKeyContext): Promise<OrgRow> {
    return (await this.getOrg(ctx.orgId)).org;
  }
}
