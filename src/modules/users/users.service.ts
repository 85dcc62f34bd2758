import type { Db } from "../../platform/db/client.js";
import { hashPassword } from "../../platform/auth/secrets.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { ROLES, type Role } from "../../platform/db/schema/index.js";
import { Conflict, Invalid, NotFound, type Issue } from "../../platform/errors.js";
import { isUuid } from "../../platform/ids.js";
import { CONFLICT, INVALID, NOT_FOUND } from "../../platform/messages.js";
import type { organizationsRepository } from "../organizations/organizations.repository.js";
import { usersRepository as repo, type UserRow } from "./users.repository.js";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Normalised form under which e-mail addresses are stored and looked up. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** User accounts (for the session API) and their organization memberships. */
export class UsersService {
  constructor(
    private readonly db: Db,
    private readonly organizations: Pick<typeof organizationsRepository, "orgExists">,
  ) {}

  async create(input: {
    email: string;
    password: string;
    orgId?: string;
    role?: string;
  }): Promise<{ user: UserRow; orgId: string | null; role: Role | null }> {
    const email = normaliseEmail(input.email);
    const errors: Issue[] = [];
    if (!EMAIL.test(email) || email.length > 254) errors.push({ loc: ["email"], message: INVALID.email, input: input.email });
    if (input.password.length < 8 || input.password.length > 1024)
      errors.push({ loc: ["password"], message: INVALID.passwordLength, input: "[redacted]" });
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
}
