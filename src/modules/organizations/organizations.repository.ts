import { eq, inArray } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { organizations, plans } from "../../platform/db/schema/index.js";

export type PlanRow = typeof plans.$inferSelect;
export type OrgRow = typeof organizations.$inferSelect;

/** SQL of plans and organizations. */
export const organizationsRepository = {
  async upsertPlan(ex: Executor, p: { slug: string; name: string; maxApiCallsPerHour: number }): Promise<PlanRow> {
    const [row] = await ex
      .insert(plans)
      .values(p)
      .onConflictDoUpdate({ target: plans.slug, set: { name: p.name, maxApiCallsPerHour: p.maxApiCallsPerHour } })
      .returning();
    return row!;
  },

  async planBySlug(ex: Executor, slug: string): Promise<PlanRow | undefined> {
    const [row] = await ex.select().from(plans).where(eq(plans.slug, slug));
    return row;
  },

  async createOrg(ex: Executor, o: { name: string; planId: string | null; isPersonal?: boolean }): Promise<OrgRow> {
    const [row] = await ex.insert(organizations).values(o).returning();
    return row!;
  },

  /** The organization with its plan (null when it has none). */
  async orgWithPlan(ex: Executor, orgId: string): Promise<{ org: OrgRow; plan: PlanRow | null } | undefined> {
    const [row] = await ex
      .select({ org: organizations, plan: plans })
      .from(organizations)
      .leftJoin(plans, eq(plans.id, organizations.planId))
      .where(eq(organizations.id, orgId));
    return row;
  },

  /** Organizations by id, by name. */
  async orgsByIds(ex: Executor, ids: string[]): Promise<OrgRow[]> {
    if (!ids.length) return [];
    return ex.select().from(organizations).where(inArray(organizations.id, ids)).orderBy(organizations.name, organizations.id);
  },

  async rename(ex: Executor, orgId: string, name: string): Promise<OrgRow | undefined> {
    const [row] = await ex.update(organizations).set({ name }).where(eq(organizations.id, orgId)).returning();
    return row;
  },

  async orgExists(ex: Executor, orgId: string): Promise<boolean> {
    return (await ex.$count(organizations, eq(organizations.id, orgId))) > 0;
  },
};
