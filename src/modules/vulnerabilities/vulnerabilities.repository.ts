import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Executor } from "../../platform/db/client.js";
import { likeContains } from "../../platform/db/sql.js";
import { cves, epssCurrent, publicVulns } from "../../platform/db/schema/index.js";
import type { VulnListQuery } from "./vulnerabilities.schemas.js";

export type PublicVulnRow = typeof publicVulns.$inferSelect;
/** An advisory with the signals of the CVEs it covers. */
export type PublicVulnWithSignals = PublicVulnRow & { kev: boolean; poc: boolean; epss: number | null };

// Qualified: inside these subqueries a bare "aliases" is the column of cves (c), not the advisory's.
const PV_ALIASES = sql.raw(`"public_vulns"."aliases"`);

const WITH_SIGNALS = {
  id: publicVulns.id,
  source: publicVulns.source,
  url: publicVulns.url,
  summary: publicVulns.summary,
  aliases: publicVulns.aliases,
  severity: publicVulns.severity,
  cvssScore: publicVulns.cvssScore,
  published: publicVulns.published,
  modified: publicVulns.modified,
  data: publicVulns.data,
  hash: publicVulns.hash,
  file: publicVulns.file,
  importedAt: publicVulns.importedAt,
  kev: sql<boolean>`coalesce((select bool_or(c.is_kev) from ${cves} c where c.cve_id = any(${PV_ALIASES})), false)`,
  poc: sql<boolean>`coalesce((select bool_or(c.has_poc) from ${cves} c where c.cve_id = any(${PV_ALIASES})), false)`,
  epss: sql<number | null>`(select max(e.epss) from ${epssCurrent} e where e.cve_id = any(${PV_ALIASES}))`,
};

/** SQL of public advisories. */
export const vulnerabilitiesRepository = {
  async list(ex: Executor, q: VulnListQuery): Promise<{ rows: PublicVulnWithSignals[]; total: number }> {
    const where: SQL[] = [];
    if (q.source) where.push(eq(publicVulns.source, q.source));
    if (q.q) {
      const term = q.q.trim();
      // Ids and aliases as written (GHSA-gfw2-… is mixed-case) or upper-cased (cve-… typed in lower case).
      where.push(
        sql`(upper(${publicVulns.id}) = ${term.toUpperCase()} or ${publicVulns.aliases} && array[${term}, ${term.toUpperCase()}]::text[] or ${publicVulns.summary} ilike ${likeContains(term)})`,
      );
    }
    const cond = where.length ? and(...where) : undefined;
    const [rows, total] = await Promise.all([
      ex
        .select(WITH_SIGNALS)
        .from(publicVulns)
        .where(cond)
        .orderBy(sql`${publicVulns.published} desc nulls last`, desc(publicVulns.id))
        .limit(q.page_size)
        .offset((q.page - 1) * q.page_size),
      ex.$count(publicVulns, cond),
    ]);
    return { rows, total };
  },

  async get(ex: Executor, id: string): Promise<PublicVulnWithSignals | undefined> {
    const [row] = await ex.select(WITH_SIGNALS).from(publicVulns).where(sql`upper(${publicVulns.id}) = ${id.trim().toUpperCase()}`);
    return row;
  },
};
