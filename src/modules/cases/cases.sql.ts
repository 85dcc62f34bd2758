import { sql, type SQL } from "drizzle-orm";

/**
 * SQL fragments of a case that several statements (and the risk register's repository) read the
 * same way: written once so that every CaseRow and every history detail has one shape.
 */

/** The columns of a CaseRow: `c` is the case, `cr` the register entry covering it (left-joined). */
export const CASE_COLUMNS = sql`c.id, c.org_id, c.project_id, c.cve_id, c.status, c.severity, c.severity_manual, c.notes,
  c.exception_nature, c.exception_measure, c.exception_justification, to_char(c.exception_expires_on, 'YYYY-MM-DD') as exception_expires_on,
  c.exception_set_at, c.risk_id, c.vex_justification, cr.title as risk_title, to_char(cr.expires_on, 'YYYY-MM-DD') as risk_expires_on, c.created_at, c.updated_at`;

/** The exception of the row aliased `a` (a case, or a CTE with its exception columns), as history details keep it (`exceptionOf`). */
export function exceptionJson(a: "c" | "o"): SQL {
  const t = sql.raw(a);
  return sql`jsonb_build_object('nature', ${t}.exception_nature, 'measure', ${t}.exception_measure,
    'justification', ${t}.exception_justification, 'expires_on', to_char(${t}.exception_expires_on, 'YYYY-MM-DD'),
    'set_at', to_char(${t}.exception_set_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;
}

/** A register entry as history details and events keep it (`riskOf`): its id, title and expiry. */
export function riskJson(id: SQL, title: SQL, expiresOn: SQL): SQL {
  return sql`jsonb_build_object('id', ${id}, 'title', ${title}, 'expires_on', to_char(${expiresOn}, 'YYYY-MM-DD'))`;
}
