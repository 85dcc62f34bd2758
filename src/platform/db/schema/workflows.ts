import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
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
    /** Runs allowed per rolling hour; past it a run is recorded `throttled` and nothing is executed. */
    maxRunsPerHour: integer("max_runs_per_hour").notNull().default(500),
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
    check("workflows_max_runs_per_hour_valid", sql`${t.maxRunsPerHour} >= 0`),
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
    /** What each node did (or would have done, for a dry run): `{steps: [...]}` for a run of an event. */
    report: jsonb("report"),
    /** The outbox event that caused the run (null for a dry run). */
    eventId: bigint("event_id", { mode: "number" }),
    /** The project the run acted on (an organization workflow runs for each project). */
    projectId: uuid("project_id").references(() => projects.id, { onDelete: "cascade" }),
    /** The worker holding the run until then; past it the run is resumed by runs-recover. */
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    leaseToken: uuid("lease_token"),
    /** How many times a worker took the run (a run past its limit is finished failed). */
    attempts: integer("attempts").notNull().default(0),
    /** The event's tier at dispatch (1 for P1 … 4 for P4, 3 for an event about no alert): runs are claimed by it, then by age. */
    priority: smallint("priority").notNull().default(3),
  },
  (t) => [
    // The run list: newest first per workflow; also the hourly count of the throttle.
    index("workflow_runs_workflow_idx").on(t.workflowId, t.startedAt.desc(), t.id.desc()),
    // One run per (event, workflow): a dispatch replayed never creates a second run.
    uniqueIndex("workflow_runs_event_workflow_uq").on(t.eventId, t.workflowId).where(sql`${t.eventId} is not null`),
    // runs-recover: unfinished runs by lease.
    index("workflow_runs_unfinished_idx").on(t.leaseUntil).where(sql`${t.finishedAt} is null`),
    // The engine's claim: runs no worker took yet, P1 first, then oldest (migration 0040).
    index("workflow_runs_queue_idx")
      .on(t.priority, t.startedAt)
      .where(sql`${t.finishedAt} is null and ${t.leaseUntil} is null and ${t.eventId} is not null`),
    // maintenance-purge: finished runs past retention (VIGIE_RUNS_RETENTION_DAYS), oldest first.
    index("workflow_runs_finished_idx").on(t.finishedAt).where(sql`${t.finishedAt} is not null`),
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

/**
 * A digest of a notify node (issue 37, migration 0039): closed when its schedule came, with the
 * events it claimed (digest_items.digest_id), then sent with its id as the receiver's idempotency key.
 */
export const digests = pgTable(
  "digests",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    workflowId: uuid("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    nodeId: text("node_id").notNull(),
    projectId: uuid("project_id"),
    slot: timestamp("slot", { withTimezone: true }).notNull(),
    periodStart: timestamp("period_start", { withTimezone: true }),
    closedAt: timestamp("closed_at", { withTimezone: true }).notNull().defaultNow(),
    status: text("status").notNull().default("pending"),
    itemCount: integer("item_count").notNull().default(0),
    attempts: integer("attempts").notNull().default(0),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    sentAt: timestamp("sent_at", { withTimezone: true }),
    lastError: text("last_error"),
    sent: jsonb("sent"),
  },
  (t) => [
    // One digest per node, project and schedule slot (an organization workflow's project may be null).
    uniqueIndex("digests_workflow_node_slot_uq").on(
      t.workflowId,
      t.nodeId,
      sql`coalesce(${t.projectId}, '00000000-0000-0000-0000-000000000000'::uuid)`,
      t.slot,
    ),
    index("digests_pending_idx").on(t.closedAt).where(sql`${t.status} = 'pending'`),
    check("digests_status_valid", sql`${t.status} in ('pending', 'sent', 'failed', 'empty')`),
  ],
);

/** An event a digest notify node holds until its digest closes; in one digest of its workflow's node at most. */
export const digestItems = pgTable(
  "digest_items",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    workflowId: uuid("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    nodeId: text("node_id").notNull(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    eventId: bigint("event_id", { mode: "number" }).notNull(),
    runId: uuid("run_id"),
    alertId: uuid("alert_id"),
    message: jsonb("message"),
    throttled: boolean("throttled").notNull().default(false),
    addedAt: timestamp("added_at", { withTimezone: true }).notNull().defaultNow(),
    digestId: uuid("digest_id").references(() => digests.id, { onDelete: "cascade" }),
  },
  (t) => [
    uniqueIndex("digest_items_event_uq").on(t.workflowId, t.nodeId, t.eventId),
    index("digest_items_pending_idx").on(t.workflowId, t.nodeId).where(sql`${t.digestId} is null`),
    index("digest_items_digest_idx").on(t.digestId),
  ],
);
