import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

export const plans = pgTable(
  "plans",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    slug: text("slug").notNull().unique(),
    name: text("name").notNull(),
    maxApiCallsPerHour: integer("max_api_calls_per_hour").notNull(),
    createdAt: createdAt(),
  },
  (t) => [check("plans_max_calls_positive", sql`${t.maxApiCallsPerHour} > 0`)],
);

export const organizations = pgTable("organizations", {
  id: uuid("id").primaryKey().defaultRandom(),
  name: text("name").notNull(),
  planId: uuid("plan_id").references(() => plans.id, { onDelete: "set null" }),
  isPersonal: boolean("is_personal").notNull().default(false),
  createdAt: createdAt(),
});

export const projects = pgTable(
  "projects",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    isDefault: boolean("is_default").notNull().default(false),
    /** What a new stack item alerts on in the stored corpus: "recent" (published in the last N days, or KEV) or "all". */
    alertBackfill: text("alert_backfill").notNull().default("recent"),
    alertBackfillDays: integer("alert_backfill_days").notNull().default(90),
    /** How many days before a case's exception (or register entry) expires `case.exception_expiring` is written. */
    exceptionWarningDays: integer("exception_warning_days").notNull().default(7),
    /** The language of the project's notifications (e-mail, webhook, Slack, Teams): fr or en. */
    notificationLang: text("notification_lang").$type<"fr" | "en">().notNull().default("fr"),
    createdAt: createdAt(),
  },
  (t) => [
    check("projects_alert_backfill_valid", sql`${t.alertBackfill} in ('recent', 'all')`),
    check("projects_notification_lang_valid", sql`${t.notificationLang} in ('fr', 'en')`),
    check("projects_exception_warning_days_valid", sql`${t.exceptionWarningDays} between 0 and 365`),
    // The organization's project list and the tenant check (id + org_id) on every project route.
    index("projects_org_idx").on(t.orgId, t.createdAt),
    uniqueIndex("projects_org_name_uq").on(t.orgId, t.name),
  ],
);

export const users = pgTable("users", {
  id: uuid("id").primaryKey().defaultRandom(),
  /** Stored lower-cased; unique. */
  email: text("email").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  createdAt: createdAt(),
});

export const ROLES = ["owner", "admin", "member", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export const memberships = pgTable(
  "memberships",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    role: text("role").$type<Role>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.orgId] }),
    index("memberships_org_idx").on(t.orgId),
    check("memberships_role_valid", sql`${t.role} in ('owner', 'admin', 'member', 'viewer')`),
  ],
);
