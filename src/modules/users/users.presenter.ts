import type { MemberRow } from "./users.repository.js";
import type { Member } from "./users.schemas.js";

export function presentMember(m: MemberRow): Member {
  return { id: m.userId, email: m.email, role: m.role, joined_at: m.joinedAt.toISOString() };
}
