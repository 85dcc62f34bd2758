import type { OrgScope, SessionContext } from "../../platform/auth/context.js";
import { hashPassword } from "../../platform/auth/secrets.js";
import type { Db, Executor } from "../../platform/db/client.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { ROLES, type Role } from "../../platform/db/schema/index.js";
import { Conflict, Forbidden, Invalid, NotFound, type Issue, type Loc } from "../../platform/errors.js";
import { isUuid } from "../../platform/ids.js";
import { AUTH, CONFLICT, INVALID, NOT_FOUND } from "../../platform/messages.js";
import type { organizationsRepository } from "../organizations/organizations.repository.js";
import { usersRepository as repo, type MemberRow, type UserRow } from "./users.repository.js";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Normalised form under which e-mail addresses are stored and looked up. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The issues of an account's e-mail and (when one is given) password, at `at` in the input. */
function accountIssues(email: string, raw: string, password: string | undefined, at: Loc): Issue[] {
  const errors: Issue[] = [];
  if (!EMAIL.test(email) || email.length > 254) errors.push({ loc: [...at, "email"], message: INVALID.email, input: raw });
  if (password !== undefined && (password.length < 8 || password.length > 1024))
    errors.push({ loc: [...at, "password"], message: INVALID.passwordLength, input: "[redacted]" });
  return errors;
}

/** User accounts (for the session API) and their organization memberships. */
export class UsersService {
  constructor(
    private readonly db: Db,
    private readonly organizations: Pick<typeof organizationsRepository, "orgExists">,
  ) {}

  /** An account, optionally member of an organization (operators: `vigie user create`). */
  async create(input: {
    email: string;
    password: string;
    orgId?: string;
    role?: string;
  }): Promise<{ user: UserRow; orgId: string | null; role: Role | null }> {
    const email = normaliseEmail(input.email);
    const errors = accountIssues(email, input.email, input.password, []);
    if (input.role !== undefined && !(ROLES as readonly string[]).includes(input.role))
      errors.push({ loc: ["role"], message: INVALID.unknownRole(ROLES), input: input.role });
    if (input.role !== undefined && input.orgId === undefined)
      errors.push({ loc: ["role"], message: INVALID.roleWithoutOrg, input: input.role });
    if (errors.length) throw new Invalid(errors);
    if (input.orgId !== undefined && (!isUuid(input.orgId) || !(await this.organizations.orgExists(this.db, input.orgId)))) {
      throw new NotFound(NOT_FOUND.organization);
    }
    const passwordHash = await hashPassword(input.password);
    const role = input.orgId ? ((input.role as Role | undefined) ?? "member") : null;
    try {
      const user = await this.db.transaction(async (tx) => {
        const user = await repo.create(tx, { email, passwordHash });
        if (input.orgId) await repo.addMembership(tx, { userId: user.id, orgId: input.orgId, role: role! });
        return user;
      });
      return { user, orgId: input.orgId ?? null, role };
    } catch (err) {
      if (isUniqueViolation(err)) throw new Conflict(CONFLICT.emailTaken.code, CONFLICT.emailTaken.message(email));
      throw err;
    }
  }

  /**
   * The first account of an installation (`vigie setup`): the account, then its organization and
   * project, with the account as owner. The account is created first, so that a bad or taken
   * address changes nothing.
   */
  async setUp(
    input: { email: string; password: string; orgName: string; projectName: string },
    create: { org(name: string): Promise<{ id: string }>; project(orgId: string, name: string): Promise<{ id: string }> },
  ): Promise<{ user: UserRow; orgId: string; projectId: string }> {
    const { user } = await this.create({ email: input.email, password: input.password });
    const org = await create.org(input.orgName);
    const project = await create.project(org.id, input.projectName);
    await repo.addMembership(this.db, { userId: user.id, orgId: org.id, role: "owner" });
    return { user, orgId: org.id, projectId: project.id };
  }

  /** True while no account exists (the server then says how to create the first one). */
  async none(): Promise<boolean> {
    return !(await repo.any(this.db));
  }

  /** The members of an organization, by e-mail. */
  members(org: OrgScope): Promise<MemberRow[]> {
    return repo.members(this.db, org.id);
  }

  /**
   * Adds an account to the organization with a role: an existing account (no password), or a new
   * one created with `password`. An unknown address without password is a 422 on `email` (the form
   * field to correct), an existing one with a password a 409 (a password is never reset this way),
   * a member already a 409 `deja_membre` (change the role with changeRole). Granting owner takes an owner.
   */
  async addMember(by: SessionContext, org: OrgScope, input: { email: string; role: Role; password?: string }): Promise<MemberRow> {
    const email = normaliseEmail(input.email);
    const errors = accountIssues(email, input.email, input.password, ["body"]);
    if (errors.length) throw new Invalid(errors);
    this.mayTouchOwner(by, org, input.role);
    const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
    try {
      return await this.db.transaction(async (tx) => {
        let user = await repo.byEmail(tx, email);
        if (user && passwordHash) throw new Conflict(CONFLICT.emailTaken.code, CONFLICT.emailTaken.message(email));
        if (!user && !passwordHash) throw new Invalid([{ loc: ["body", "email"], message: INVALID.unknownAccount, input: input.email }]);
        user ??= await repo.create(tx, { email, passwordHash: passwordHash! });
        const joinedAt = await repo.insertMembership(tx, { userId: user.id, orgId: org.id, role: input.role });
        if (!joinedAt) {
          const current = await repo.memberForUpdate(tx, org.id, user.id);
          throw new Conflict(CONFLICT.alreadyMember.code, CONFLICT.alreadyMember.message(email, current?.role ?? input.role));
        }
        return { userId: user.id, email, role: input.role, joinedAt };
      });
    } catch (err) {
      // Two requests creating the same account at once: the second is told the account exists.
      if (isUniqueViolation(err, "users_email_unique")) throw new Conflict(CONFLICT.emailTaken.code, CONFLICT.emailTaken.message(email));
      throw err;
    }
  }

  /** Changes a member's role. The owner role is granted and taken by owners only; the last owner stays one (409). */
  async changeRole(by: SessionContext, org: OrgScope, userId: string, role: Role): Promise<MemberRow> {
    return this.db.transaction(async (tx) => {
      const { member, owners } = await this.lockMember(tx, org, userId);
      this.mayTouchOwner(by, org, member.role, role);
      if (member.role === "owner" && role !== "owner" && owners <= 1) throw lastOwner();
      if (role !== member.role) await repo.setRole(tx, org.id, userId, role);
      return { ...member, role };
    });
  }

  /**
   * Removes a member (themselves included: an admin or owner may leave). Only their access to this
   * organization ends: the session reads memberships on every request, so their next request here is a
   * 404, and their sessions keep serving their other organizations.
   */
  async removeMember(by: SessionContext, org: OrgScope, userId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const { member, owners } = await this.lockMember(tx, org, userId);
      this.mayTouchOwner(by, org, member.role);
      if (member.role === "owner" && owners <= 1) throw lastOwner();
      await repo.removeMembership(tx, org.id, userId);
    });
  }

  /** The member (404 « Membre introuvable » otherwise), after the organization's owners, all locked in one order. */
  private async lockMember(tx: Executor, org: OrgScope, userId: string) {
    const owners = await repo.lockOwners(tx, org.id);
    const member = isUuid(userId) ? await repo.memberForUpdate(tx, org.id, userId) : undefined;
    if (!member) throw new NotFound(NOT_FOUND.member);
    return { member, owners };
  }

  /** Only an owner grants, changes or removes the owner role (403 for an admin). */
  private mayTouchOwner(by: SessionContext, org: OrgScope, ...roles: Role[]): void {
    if (roles.includes("owner") && by.roles.get(org.id) !== "owner") throw new Forbidden(AUTH.ownerRole);
  }
}

function lastOwner(): Conflict {
  return new Conflict(CONFLICT.lastOwner.code, CONFLICT.lastOwner.message);
}
