import type { Config } from "../../config.js";
import type { SessionContext } from "../../platform/auth/context.js";
import { API_KEY_PREFIX, DUMMY_PASSWORD_HASH, hashToken, newSessionToken, verifyPassword } from "../../platform/auth/secrets.js";
import type { Database } from "../../platform/db/client.js";
import type { Role } from "../../platform/db/schema/index.js";
import { TooManyRequests, Unauthorized } from "../../platform/errors.js";
import { AUTH } from "../../platform/messages.js";
import { normaliseEmail } from "../users/users.service.js";
import type { usersRepository } from "../users/users.repository.js";
import type { organizationsRepository } from "../organizations/organizations.repository.js";
import { projectsRead } from "../projects/projects.read.js";
import { sessionsRepository as repo } from "./sessions.repository.js";
import type { SessionOut } from "./sessions.schemas.js";

/** Failures allowed in the window before each further attempt must wait (per account, per address). */
const FREE_FAILURES = { email: 5, ip: 20 };
const MAX_DELAY_SECONDS = 15 * 60;

/** Seconds still to wait after n failures, the last at `last` (exponential: 1, 2, 4 … 900 s). */
export function lockoutRemaining(n: number, free: number, last: Date, now = Date.now()): number {
  if (n < free) return 0;
  const delay = Math.min(MAX_DELAY_SECONDS, 2 ** (n - free));
  return Math.max(0, (last.getTime() + delay * 1000 - now) / 1000);
}

/** Sign-in with e-mail and password, account tokens, and the session authenticator. */
export class SessionsService {
  constructor(
    private readonly database: Database,
    private readonly config: Config,
    private readonly users: Pick<typeof usersRepository, "byEmail">,
    private readonly organizations: Pick<typeof organizationsRepository, "orgsByIds">,
  ) {}

  async login(emailInput: string, password: string, ip: string): Promise<{ token: string; expiresAt: Date }> {
    const db = this.database.db;
    const email = normaliseEmail(emailInput);
    const subjects = { email: `email:${email}`, ip: `ip:${ip}` };
    const failures = await repo.recentFailures(db, [subjects.email, subjects.ip]);
    const wait = Math.max(
      0,
      ...failures.map((f) => lockoutRemaining(f.count, f.subject === subjects.email ? FREE_FAILURES.email : FREE_FAILURES.ip, f.last)),
    );
    if (wait > 0) throw new TooManyRequests(AUTH.loginThrottled(Math.ceil(wait)), wait);

    const user = await this.users.byEmail(db, email);
    // Hash even for an unknown account, so that timing does not tell which accounts exist.
    const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
    if (!user || !ok) {
      await repo.recordFailure(db, [subjects.email, subjects.ip]);
      throw new Unauthorized(AUTH.badCredentials);
    }
    const token = newSessionToken();
    const expiresAt = new Date(Date.now() + this.config.sessionTtlHours * 3600_000);
    await db.transaction(async (tx) => {
      await repo.clearFailures(tx, subjects.email);
      await repo.create(tx, { userId: user.id, tokenHash: hashToken(token), expiresAt });
    });
    return { token, expiresAt };
  }

  /** Revokes the session of a token (none: nothing to do). An API key is not a session: 401, never a silent success. */
  async logout(token: string | null): Promise<void> {
    if (token?.startsWith(API_KEY_PREFIX)) throw new Unauthorized(AUTH.apiKeyRefused);
    if (token) await repo.revoke(this.database.db, hashToken(token));
  }

  /** The signed-in user of a session token; API keys are refused here (401). */
  async authenticate(token: string | null): Promise<SessionContext> {
    if (!token) throw new Unauthorized();
    if (token.startsWith(API_KEY_PREFIX)) throw new Unauthorized(AUTH.apiKeyRefused);
    const s = await repo.live(this.database, hashToken(token));
    if (!s) throw new Unauthorized(AUTH.badSession);
    return {
      kind: "session",
      sessionId: s.id,
      userId: s.user_id,
      email: s.email,
      expiresAt: new Date(s.expires_at),
      roles: new Map(s.memberships.map((m) => [m.org_id, m.role as Role])),
    };
  }

  /** Revokes every session of the signed-in user, on every device. */
  async logoutEverywhere(session: SessionContext): Promise<void> {
    await repo.revokeAll(this.database.db, session.userId);
  }

  /** The signed-in user, their organizations (with their role) and the projects of each. */
  async describe(session: SessionContext): Promise<SessionOut> {
    const db = this.database.db;
    const orgs = await this.organizations.orgsByIds(db, [...session.roles.keys()]);
    const projects = await projectsRead.namedInOrgs(
      db,
      orgs.map((o) => o.id),
    );
    return {
      user: { id: session.userId, email: session.email },
      expires_at: session.expiresAt.toISOString(),
      organizations: orgs.map((o) => ({
        id: o.id,
        name: o.name,
        role: session.roles.get(o.id)!,
        is_personal: o.isPersonal,
        projects: projects.filter((p) => p.orgId === o.id).map((p) => ({ id: p.id, name: p.name })),
      })),
    };
  }

  purge(): Promise<void> {
    return repo.purge(this.database.db);
  }
}
