/**
 * The only writer of `outbox_events`: producers hand it their events, in the transaction of the
 * change that caused them (an event exists exactly when its change is committed). Two forms:
 * events held in memory (`writeEvents`, each payload parsed by its catalog schema), and set-based
 * producers' `insert … select` (`insertEvents`, the payload built from one SQL expression per
 * catalog key, so a key the schema lacks or misses fails the type check). A trigger on the table
 * (migration 0026) notifies the dispatchers at commit.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../platform/db/client.js";
import { EVENT_CATALOG, type EventName, type EventPayload } from "./catalog.js";

/** One event as values. */
export type OutboxEvent = {
  [N in EventName]: {
    event: N;
    org_id: string;
    project_id: string;
    cve_id?: string | null;
    alert_id?: string | null;
    payload: EventPayload<N>;
  };
}[EventName];

/** Throws when a producer leaves out a column its event's catalog `subject` says the row names (a bug, not bad input). */
function checkSubject(event: EventName, cve: boolean, alert: boolean): void {
  const subject = EVENT_CATALOG[event].subject;
  if ((subject !== null && !cve) || (subject === "alert" && !alert))
    throw new Error(`${event}: the catalog's subject "${subject}" needs its cve_id${subject === "alert" ? " and alert_id" : ""}`);
}

/** Writes events in one statement, in order, each payload checked against its catalog schema first. */
export async function writeEvents(ex: Executor, events: readonly OutboxEvent[]): Promise<void> {
  if (!events.length) return;
  for (const e of events) checkSubject(e.event, !!e.cve_id, !!e.alert_id);
  const rows = events.map((e) => ({
    org_id: e.org_id,
    project_id: e.project_id,
    event: e.event,
    cve_id: e.cve_id ?? null,
    alert_id: e.alert_id ?? null,
    payload: EVENT_CATALOG[e.event].payload.parse(e.payload),
  }));
  await ex.execute(sql`insert into outbox_events (org_id, project_id, event, cve_id, alert_id, payload)
    select e.org_id, e.project_id, e.event, e.cve_id, e.alert_id, e.payload
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as e(org_id uuid, project_id uuid, event text, cve_id text, alert_id uuid, payload jsonb)`);
}

type Required<P> = { [K in keyof P as undefined extends P[K] ? never : K]-?: SQL };
type Optional<P> = { [K in keyof P as undefined extends P[K] ? K : never]?: SQL };

/** The columns of events selected in SQL: one expression per payload key of the event's catalog schema. */
export interface EventSelect<N extends EventName> {
  org_id: SQL;
  project_id: SQL;
  cve_id?: SQL;
  alert_id?: SQL;
  payload: Required<EventPayload<N>> & Optional<EventPayload<N>>;
  /** The rest of the select: `from … where … order by …`. */
  from: SQL;
  /** A `returning` list, when the statement is a CTE whose rows the query reads. */
  returning?: SQL;
}

/**
 * `insert into outbox_events … select …` of a set-based producer, run alone or as a CTE of its
 * statement (`ev as (${insertEvents(…)})`): the rows stay in the database, built in one pass.
 */
export function insertEvents<N extends EventName>(event: N, s: EventSelect<N>): SQL {
  checkSubject(event, !!s.cve_id, !!s.alert_id);
  const pairs = Object.entries(s.payload as Record<string, SQL | undefined>).flatMap(([k, v]) => (v ? [sql`${k}::text, ${v}`] : []));
  return sql`insert into outbox_events (org_id, project_id, event, cve_id, alert_id, payload)
    select ${s.org_id}, ${s.project_id}, ${event}::text, ${s.cve_id ?? sql`null`}, ${s.alert_id ?? sql`null`},
      jsonb_build_object(${sql.join(pairs, sql`, `)})
    ${s.from}${s.returning ? sql` returning ${s.returning}` : sql``}`;
}
