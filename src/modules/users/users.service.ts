import type { Db } from "../../platform/db/client.js";
import { hashPassword } from "../../platform/auth/secrets.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { ROLES, type Role } from "../../platform/db/schema/index.js";
import { Conflict, NotFound, ValidationFailed } from "../../platform/errors.js";
import { valueError, type PydanticError } from "../../platform/http/pydantic.js";
import { isUuid } from "../../platform/ids.js";
import { organizationsRepository } from "../organizations/organizations.repository.js";
import { usersRepository as repo, type UserRow } from "./users.repository.js";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Normalised form under which e-mail addresses are stored and looked up. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** User accounts (for the session API) and their organization memberships. */
export class UsersService {
  constructor(private readonly db: Db) {}

  async create(input: { email: string; password: string; orgId?: string; role?: string }): Promise<{ user: UserRow; orgId: string | null; role: Role | null }> {
    const email = normaliseEmail(input.email);
    const errors: PydanticError[] = [];
    if (!EMAIL.test(email) || email.length > 254) errors.push(valueError(["email"], "adresse e-mail invalide", input.email));
    if (input.password.length < 8 || input.password.length > 1024) errors.push(valueError(["password"], "le mot de passe doit faire de 8 à 1024 caractères", "[redacted]"));
    if (input.role !== undefined && !(ROLES as readonly string[]).includes(input.role)) errors.push(valueError(["role"], `rôle inconnu (rôles : ${ROLES.join(", ")})`, input.role));
    if (input.role !== undefined && input.orgId === undefined) errors.push(valueError(["role"], "--role demande --org", input.role));
    if (errors.length) throw new ValidationFailed(errors);
    if (input.orgId !== undefined && (!isUuid(input.orgId) || !(await organizationsRepository.orgExists(this.db, input.orgId)))) {
      throw new NotFound("Organisation introuvable");
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
      if (isUniqueViolation(err)) throw new Conflict("email_deja_utilise", `Un compte existe déjà pour ${email}`);
      throw err;
    }
  }
}
