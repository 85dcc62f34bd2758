import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { organizations, projects } from "./tenancy.js";

/** A workflow belongs to a project, or to the whole organization when project_id is null. */
export const workflows = pgTable(
  "workflows",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    projectId: uuid("project_id").references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    isEnabled: boolean("is_enabled").notNull().default(true),
    isDefault: boolean("is_default").notNull().default(false),
    family: text("family").notNull().default("alerting"),
    version: integer("version").notNull().default(1),
    graph: jsonb("graph").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // Names are unique per project, and per organization among organization workflows.
    uniqueIndex("workflows_project_name_uq").on(t.projectId, t.name).where(sql`${t.projectId} is not null`),
    uniqueIndex("workflows_org_name_uq").on(t.orgId, t.name).where(sql`${t.projectId} is null`),
    // At most one default workflow per project.
    uniqueIndex("workflows_project_default_uq").on(t.projectId).where(sql`${t.isDefault}`),
    // The project workflow list (ordered by creation).
    index("workflows_project_idx").on(t.projectId, t.createdAt),
    check("workflows_version_positive", sql`${t.version} >= 1`),
  ],
);

export const RUN_STATUSES = ["success", "partial", "failed", "throttled", "dry_run"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const workflowRuns = pgTable(
  "workflow_runs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    workflowId: uuid("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    triggerEvent: text("trigger_event").notNull(),
    cveId: text("cve_id"),
    status: text("status").$type<RunStatus>().notNull(),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    /** What each node did (or would have done, for a dry run). */
    report: jsonb("report"),
  },
  (t) => [
    // The run list: newest first per workflow.
    index("workflow_runs_workflow_idx").on(t.workflowId, t.startedAt.desc(), t.id.desc()),
    check("workflow_runs_status_valid", sql`${t.status} in ('success', 'partial', 'failed', 'throttled', 'dry_run')`),
  ],
);

/** Idempotency keys of creation requests, scoped to (organization, route). Kept at least 24 hours. */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    route: text("route").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of the canonical request (project id + canonical JSON body). */
    fingerprint: text("fingerprint").notNull(),
    resourceId: uuid("resource_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.route, t.key] }),
    // The purge job deletes expired keys by age.
    index("idempotency_keys_created_idx").on(t.createdAt),
  ],
);
