import { bigserial, boolean, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { organizations, projects, users } from "./tenancy.js";

export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** Visible part of the key (e.g. "vk_Ab12Cd34"), shown in listings; not a secret. */
    prefix: text("prefix").notNull(),
    /** SHA-256 (hex) of the whole key; the key itself is never stored. */
    keyHash: text("key_hash").notNull().unique(),
    scopes: text("scopes").array().notNull().default([]),
    /** True when the key is limited to the projects in api_key_projects (even if that list became empty). */
    restricted: boolean("restricted").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [index("api_keys_org_idx").on(t.orgId)],
);

export const apiKeyProjects = pgTable(
  "api_key_projects",
  {
    apiKeyId: uuid("api_key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.projectId] })],
);

/**
 * Per-organization call counter, one row per hourly window; shared by every server process.
 * `count`: the calls every process asked to reserve (blocks; minus what a stopping process handed
 * back): it can pass the limit, as the last reservations of a window ask more than is left, and it
 * is what the limit is decided on. `granted`: the part of those reservations granted (never above
 * the limit, minus what was handed back): calls accepted or held by a process at that moment. Billing
 * and quota reports read `granted` (ADR 0033, docs/operations.md).
 */
export const apiUsage = pgTable(
  "api_usage",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    windowStart: timestamp("window_start", { withTimezone: true }).notNull(),
    count: integer("count").notNull(),
    granted: integer("granted").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.windowStart] })],
);

export const sessions = pgTable(
  "sessions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** SHA-256 (hex) of the session token. */
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

/** Failed logins, counted per account and per client address to slow down guessing. */
export const loginFailures = pgTable(
  "login_failures",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** "email:<address>" or "ip:<address>". */
    subject: text("subject").notNull(),
    failedAt: timestamp("failed_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("login_failures_subject_idx").on(t.subject, t.failedAt)],
);
