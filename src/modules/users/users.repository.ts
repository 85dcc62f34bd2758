import { eq } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { memberships, users, type Role } from "../../platform/db/schema/index.js";

export type UserRow = typeof users.$inferSelect;

/** SQL of users and their memberships. */
export const usersRepository = {
  async create(ex: Executor, u: { email: string; passwordHash: string }): Promise<UserRow> {
    const [row] = await ex.insert(users).values(u).returning();
    return row!;
  },

  async byEmail(ex: Executor, email: string): Promise<UserRow | undefined> {
    const [row] = await ex.select().from(users).where(eq(users.email, email));
    return row;
  },

  async addMembership(ex: Executor, m: { userId: string; orgId: string; role: Role }): Promise<void> {
    await ex
      .insert(memberships)
      .values(m)
      .onConflictDoUpdate({ target: [memberships.userId, memberships.orgId], set: { role: m.role } });
  },

  async memberships(ex: Executor, userId: string): Promise<{ orgId: string; role: Role }[]> {
    return ex.select({ orgId: memberships.orgId, role: memberships.role }).from(memberships).where(eq(memberships.userId, userId));
  },
};
