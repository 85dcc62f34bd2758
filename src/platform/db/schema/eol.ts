import { sql } from "drizzle-orm";
import {
  bigserial,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { organizations, projects } from "./tenancy.js";

const tz = (name: string) => timestamp(name, { withTimezone: true });

/**
 * endoflife.date products (`feeds import --source eol`). `hash` is the digest of what the
 * importer extracted: an unchanged page is not written again.
 */
export const eolProducts = pgTable(
  "eol_products",
  {
    /** The page's file name without `.md` (`nginx`, `linux-kernel`), as endoflife.date's API names it. */
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    description: text("description"),
    category: text("category"),
    /** Upstream's identifiers as they are: `[{"purl": …} | {"cpe": …} | {"repology": …}]`. */
    identifiers: jsonb("identifiers").notNull().default(sql`'[]'::jsonb`),
    file: text("file"),
    hash: text("hash").notNull(),
    updatedAt: tz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    // The list's `category` filter.
    index("eol_products_category_idx").on(t.category),
  ],
);

/**
 * Release cycles of a product. `eol`, `lts`, `support`, `extended_support` keep upstream's type
 * (a date string or a boolean, JSON); `eol_date` and `support_date` are the same values when they
 * are dates, for the notice job's comparisons.
 */
export const eolCycles = pgTable(
  "eol_cycles",
  {
    productId: text("product_id")
      .notNull()
      .references(() => eolProducts.id, { onDelete: "cascade" }),
    cycle: text("cycle").notNull(),
    /** Place of the cycle on its page (0 first): the tie-break of "newest first". */
    position: integer("position").notNull(),
    releaseDate: date("release_date"),
    eol: jsonb("eol"),
    eolDate: date("eol_date"),
    lts: jsonb("lts"),
    support: jsonb("support"),
    supportDate: date("support_date"),
    extendedSupport: jsonb("extended_support"),
    latest: text("latest"),
    latestReleaseDate: date("latest_release_date"),
    link: text("link"),
  },
  (t) => [primaryKey({ columns: [t.productId, t.cycle] })],
);

/**
 * Lookup keys of a product's CPE and purl identifiers (`cpe:vendor:product`,
 * `pkg:type/namespace/name`, lower case): how a stack item finds its product.
 */
export const eolIdentifiers = pgTable(
  "eol_identifiers",
  {
    key: text("key").notNull(),
    productId: text("product_id")
      .notNull()
      .references(() => eolProducts.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.key, t.productId] }), index("eol_identifiers_product_idx").on(t.productId)],
);

/** A project's subscription to a product's cycle (`cycle` null: every cycle). */
export const eolSubscriptions = pgTable(
  "eol_subscriptions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    productId: text("product_id")
      .notNull()
      .references(() => eolProducts.id, { onDelete: "cascade" }),
    cycle: text("cycle"),
    notifyBeforeEolDays: integer("notify_before_eol_days"),
    notifyBeforeSupportDays: integer("notify_before_support_days"),
    /** The Paris day the subscription was made: notices concern dates from this day on (a cycle already past is not announced). */
    notifyFrom: date("notify_from").notNull(),
    createdAt: tz("created_at").notNull().defaultNow(),
  },
  (t) => [
    // One subscription per (project, product, cycle), "every cycle" included (409 abonnement_existant).
    unique("eol_subscriptions_project_product_cycle_uq").on(t.projectId, t.productId, t.cycle).nullsNotDistinct(),
    // The notice job joins subscriptions to cycles by product.
    index("eol_subscriptions_product_idx").on(t.productId),
    check("eol_subscriptions_eol_days", sql`${t.notifyBeforeEolDays} between 0 and 3650`),
    check("eol_subscriptions_support_days", sql`${t.notifyBeforeSupportDays} between 0 and 3650`),
  ],
);

export const EOL_NOTICE_KINDS = ["eol", "support"] as const;
export const EOL_NOTICE_STAGES = ["approaching", "reached"] as const;

/**
 * The notices the `eol-notices` job wrote, one per (subscription, cycle, kind, stage, date): the
 * job's idempotence (a second run finds them) and the project's list (GET …/eol-notices). A date
 * changed upstream is another row: it warns again.
 */
export const eolNotices = pgTable(
  "eol_notices",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    orgId: uuid("org_id").notNull(),
    projectId: uuid("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    subscriptionId: uuid("subscription_id")
      .notNull()
      .references(() => eolSubscriptions.id, { onDelete: "cascade" }),
    productId: text("product_id").notNull(),
    cycle: text("cycle").notNull(),
    kind: text("kind").notNull(),
    stage: text("stage").notNull(),
    dueOn: date("due_on").notNull(),
    daysLeft: integer("days_left").notNull(),
    createdAt: tz("created_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("eol_notices_once_uq").on(t.subscriptionId, t.cycle, t.kind, t.stage, t.dueOn),
    // The project's list, newest first.
    index("eol_notices_project_idx").on(t.projectId, t.id.desc()),
    check("eol_notices_kind_valid", sql`${t.kind} in ('eol', 'support')`),
    check("eol_notices_stage_valid", sql`${t.stage} in ('approaching', 'reached')`),
  ],
);
