import { boolean, date, index, pgTable, real, text } from "drizzle-orm/pg-core";
import { cves } from "./vulns.js";

/**
 * The statistics' narrow copy of each CVE (one row per row of `cves`): only what the aggregates of
 * /api/v1/stats read, with every date already a Europe/Paris calendar day. Kept by the triggers of
 * migration 0020 in the transaction that writes `cves` (whatever wrote it: an import, a merge,
 * psql), so it is never behind the CVEs. A full scan reads ~30 MB instead of the ~375 MB of `cves`
 * (descriptions, references, search vectors) on the 190,000-CVE corpus. EPSS is not copied here
 * (migration 0029): the daily file rescores every CVE, and copying each score doubled the import;
 * the statistics join `epss_current` for the score and the first score date.
 */
export const cveFacts = pgTable(
  "cve_facts",
  {
    cveId: text("cve_id")
      .primaryKey()
      .references(() => cves.cveId, { onDelete: "cascade" }),
    state: text("state").notNull(),
    /**
     * The day the record counts at: published (PUBLISHED), published else last updated (REJECTED),
     * reserved (RESERVED). A period selects by it; null: outside every period.
     */
    day: date("day", { mode: "string" }),
    /** Paris day of date_published; the other dates are Paris days too. */
    published: date("published", { mode: "string" }),
    updated: date("updated", { mode: "string" }),
    reserved: date("reserved", { mode: "string" }),
    kevAdded: date("kev_added", { mode: "string" }),
    pocFirst: date("poc_first", { mode: "string" }),
    severity: text("severity").notNull(),
    cvss: real("cvss"),
    isKev: boolean("is_kev").notNull(),
    hasPoc: boolean("has_poc").notNull(),
    maturite: text("maturite"),
    assigner: text("assigner"),
    vendorKey: text("vendor_key"),
    vendor: text("vendor"),
    productKey: text("product_key"),
    product: text("product"),
    cweIds: text("cwe_ids").array().notNull().default([]),
    sources: text("sources").array().notNull().default([]),
  },
  (t) => [
    // Every figure selects by a day range on one of these dates (day: the published CVEs and the totals).
    index("cve_facts_day_idx").on(t.day, t.state),
    index("cve_facts_updated_idx").on(t.updated),
    index("cve_facts_kev_added_idx").on(t.kevAdded),
    index("cve_facts_poc_first_idx").on(t.pocFirst),
  ],
);
