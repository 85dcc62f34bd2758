import { and, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Database, Executor } from "../../platform/db/client.js";
import { loginFailures, sessions } from "../../platform/db/schema/index.js";
import type { Role } from "../../platform/db/schema/index.js";

export interface LiveSession {
  id: string;
  user_id: string;
  email: string;
  expires_at: Date;
  memberships: { org_id: string; role: Role }[];
}

const SESSION_SQL = `
select s.id, s.user_id, u.email, s.expires_at,
       coalesce(json_agg(json_build_object('org_id', m.org_id, 'role', m.role)) filter (where m.org_id is not null), '[]') as memberships
from sessions s
join users u on u.id = s.user_id
left join memberships m on m.user_id = u.id
where s.token_hash = $1 and s.revoked_at is null and s.expires_at > now()
group by s.id, u.email`;

/** Failed logins are counted over this window. */
export const FAILURE_WINDOW = "15 minutes";

/** SQL of sessions and failed logins. */
export const sessionsRepository = {
  async create(ex: Executor, s: { userId: string; tokenHash: string; expiresAt: Date }) {
    const [row] = await ex.insert(sessions).values(s).returning();
    return row!;
  },

  /** The live session of a token hash, with the user's memberships (one query per request). */
  async live(database: Database, tokenHash: string): Promise<LiveSession | undefined> {
    const [row] = await database.raw<LiveSession>("vigie_session_live", SESSION_SQL, [tokenHash]);
    return row;
  },

  /** Revokes every live session of a user. */
  async revokeAll(ex: Executor, userId: string): Promise<void> {
    await ex
      .update(sessions)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)));
  },

  async revoke(ex: Executor, tokenHash: string): Promise<void> {
    await ex
      .update(sessions)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(sessions.tokenHash, tokenHash), isNull(sessions.revokedAt)));
  },

  /** Recent failures per subject: how many and the latest. */
  async recentFailures(ex: Executor, subjects: string[]): Promise<{ subject: string; count: number; last: Date }[]> {
    return ex
      .select({ subject: loginFailures.subject, count: sql<number>`count(*)::int`, last: sql<Date>`max(${loginFailures.failedAt})` })
      .from(loginFailures)
      .where(and(inArray(loginFailures.subject, subjects), sql`${loginFailures.failedAt} > now() - interval '${sql.raw(FAILURE_WINDOW)}'`))
      .groupBy(loginFailures.subject)
      .then((rows) => rows.map((r) => ({ ...r, last: new Date(r.last) })));
  },

  async recordFailure(ex: Executor, subjects: string[]): Promise<void> {
    await ex.insert(loginFailures).values(subjects.map((subject) => ({ subject })));
  },

  async clearFailures(ex: Executor, subject: string): Promise<void> {
    await ex.delete(loginFailures).where(eq(loginFailures.subject, subject));
  },

  /** Maintenance: old failures and expired sessions. */
  async purge(ex: Executor): Promise<void> {
    await ex.delete(loginFailures).where(sql`${loginFailures.failedAt} < now() - interval '1 day'`);
    await ex.delete(sessions).where(lt(sessions.expiresAt, sql`now() - interval '7 days'`));
  },
};
