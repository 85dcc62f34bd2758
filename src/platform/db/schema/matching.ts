import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/**
 * Evidence that two names designate the same vendor or product: one row per CVE and way it was
 * seen (`via`: "entry" = a CVE 5 entry with its CPEs, "record" = the CNA's one product and the CPE
 * data's one product, "osv" = an advisory's one package and its CVE's one CPE product).
 */
export const nameEvidence = pgTable(
  "name_evidence",
  {
    cveId: text("cve_id").notNull(),
    kind: text("kind").notNull(),
    name: text("name").notNull(),
    equivalent: text("equivalent").notNull(),
    via: text("via").notNull(),
  },
  (t) => [
    primaryKey({ name: "name_evidence_pk", columns: [t.cveId, t.kind, t.name, t.equivalent, t.via] }),
    check("name_evidence_kind_valid", sql`${t.kind} in ('vendor', 'product')`),
    // The recount of a pair after a batch reads its evidence by pair.
    index("name_evidence_pair_idx").on(t.kind, t.name, t.equivalent),
  ],
);

/** The equivalences in force (enough distinct CVEs of evidence), both directions stored. */
export const nameEquivalences = pgTable(
  "name_equivalences",
  {
    kind: text("kind").notNull(),
    name: text("name").notNull(),
    equivalent: text("equivalent").notNull(),
    evidence: integer("evidence").notNull(),
  },
  (t) => [primaryKey({ name: "name_equivalences_pk", columns: [t.kind, t.name, t.equivalent] })],
);
