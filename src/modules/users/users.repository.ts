import { and, asc, eq } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { memberships, users, type Role } from "../../platform/db/schema/index.js";

export type UserRow = typeof users.$inferSelect;

/** A member of an organization: the account and its membership. */
export interface MemberRow {
  userId: string;
  email: string;
  role: Role;
  joinedAt: Date;
}

const member = { userId: users.id, email: users.email, role: memberships.role, joinedAt: memberships.createdAt };

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

  /** Adds the membership, or sets its role when the user is already a member (operators' `user create`). */
  async any(ex: Executor): Promise<boolean> {
    const rows = await ex.select({ id: users.id }).from(users).limit(1);
    return rows.length > 0;
  },

  async addMembership(ex: Executor, m: { userId: string; orgId: string; role: Role }): Promise<void> {
    await ex
      .insert(memberships)
      .values(m)
      .onConflictDoUpdate({ target: [memberships.userId, memberships.orgId], set: { role: m.role } });
  },

  /** Adds the membership and returns when; undefined when the user is already a member (nothing changed). */
  async insertMembership(ex: Executor, m: { userId: string; orgId: string; role: Role }): Promise<Date | undefined> {
    const [row] = await ex.insert(memberships).values(m).onConflictDoNothing().returning({ joinedAt: memberships.createdAt });
    return row?.joinedAt;
  },

  async memberships(ex: Executor, userId: string): Promise<{ orgId: string; role: Role }[]> {
    return ex.select({ orgId: memberships.orgId, role: memberships.role }).from(memberships).where(eq(memberships.userId, userId));
  },

  /** The members of an organization, by e-mail. */
  async members(ex: Executor, orgId: string): Promise<MemberRow[]> {
    return ex
      .select(member)
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(eq(memberships.orgId, orgId))
      .orderBy(asc(users.email));
  },

  /** One member of an organization, its row locked until the transaction ends. */
  async memberForUpdate(ex: Executor, orgId: string, userId: string): Promise<MemberRow | undefined> {
    const [row] = await ex
      .select(member)
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)))
      .for("update", { of: memberships });
    return row;
  },

  /**
   * How many owners the organization has, their rows locked: two owners demoting each other at once
   * are serialised here, and the second sees one owner left (read committed re-reads locked rows).
   */
  async lockOwners(ex: Executor, orgId: string): Promise<number> {
    const rows = await ex
      .select({ userId: memberships.userId })
      .from(memberships)
      .where(and(eq(memberships.orgId, orgId), eq(memberships.role, "owner")))
      .orderBy(asc(memberships.userId))
      .for("update");
    return rows.length;
  },

  async setRole(ex: Executor, orgId: string, userId: string, role: Role): Promise<void> {
    await ex
      .update(memberships)
      .set({ role })
      .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)));
  },

  async removeMembership(ex: Executor, orgId: string, userId: string): Promise<void> {
    await ex.delete(memberships).where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)));
  },
};
