import { sql } from "drizzle-orm";
import { insertEvents } from "../../events/outbox.js";
import type { Executor } from "../../platform/db/client.js";
import { likeContains, pgArray, rowsOf } from "../../platform/db/sql.js";
import type { EolCycle } from "../../feeds/eol.js";
import type { EolNoticeListQuery, EolProductListQuery } from "./eol.schemas.js";

export interface EolProductRow {
  id: string;
  name: string;
  description: string | null;
  category: string | null;
  identifiers: Record<string, string>[];
}

/** A stored cycle: what the parser extracted (dates as YYYY-MM-DD text). */
export type EolCycleRow = EolCycle;

export interface EolSubRow {
  id: string;
  product_id: string;
  cycle: string | null;
  notify_before_eol_days: number | null;
  notify_before_support_days: number | null;
  created_at: Date | string;
}

export interface EolNoticeRow {
  id: number | string;
  subscription_id: string;
  product_id: string;
  cycle: string;
  kind: "eol" | "support";
  stage: "approaching" | "reached";
  due_on: string;
  days_left: number;
  created_at: Date | string;
}

/** Dates as YYYY-MM-DD text whatever the driver's date parsing. */
const CYCLE_COLUMNS = sql`c.cycle, c.position, to_char(c.release_date, 'YYYY-MM-DD') as release_date, c.eol, c.lts, c.support,
  c.extended_support, c.latest, to_char(c.latest_release_date, 'YYYY-MM-DD') as latest_release_date, c.link`;
const SUB_COLUMNS = sql`id, product_id, cycle, notify_before_eol_days, notify_before_support_days, created_at`;

/** SQL of the endoflife.date products (global) and of the projects' subscriptions and notices (by project). */
export const eolRepository = {
  async listProducts(ex: Executor, q: EolProductListQuery): Promise<{ rows: EolProductRow[]; total: number }> {
    const where = [sql`true`];
    if (q.q) where.push(sql`(p.id ilike ${likeContains(q.q)} or p.name ilike ${likeContains(q.q)})`);
    if (q.category) where.push(sql`p.category = ${q.category}`);
    const rows = await rowsOf<EolProductRow & { total: number | string }>(
      ex,
      sql`select p.id, p.name, p.description, p.category, p.identifiers, count(*) over () as total
        from eol_products p where ${sql.join(where, sql` and `)}
        order by p.id limit ${q.page_size} offset ${(q.page - 1) * q.page_size}`,
    );
    // Past the last page the window count is absent: count alone.
    const total = rows.length
      ? Number(rows[0]!.total)
      : Number(
          (await rowsOf<{ n: number | string }>(ex, sql`select count(*) as n from eol_products p where ${sql.join(where, sql` and `)}`))[0]!
            .n,
        );
    return { rows, total };
  },

  async product(ex: Executor, id: string): Promise<EolProductRow | undefined> {
    const [row] = await rowsOf<EolProductRow>(
      ex,
      sql`select id, name, description, category, identifiers from eol_products where id = ${id}`,
    );
    return row;
  },

  /** The product's cycles, in page order (the service sorts them newest first). */
  async cycles(ex: Executor, productId: string): Promise<EolCycleRow[]> {
    return rowsOf<EolCycleRow>(ex, sql`select ${CYCLE_COLUMNS} from eol_cycles c where c.product_id = ${productId} order by c.position`);
  },

  async cycleExists(ex: Executor, productId: string, cycle: string): Promise<boolean> {
    return (await rowsOf(ex, sql`select 1 from eol_cycles where product_id = ${productId} and cycle = ${cycle}`)).length > 0;
  },

  /**
   * The cycles of the products whose identifiers have these lookup keys, with the key: one query
   * for a whole stack view (eol_identifiers' primary key leads with the key).
   */
  async cyclesOfKeys(ex: Executor, keys: string[]): Promise<(EolCycleRow & { key: string; product_id: string; product_name: string })[]> {
    if (!keys.length) return [];
    return rowsOf(
      ex,
      sql`select i.key, p.id as product_id, p.name as product_name, ${CYCLE_COLUMNS}
        from eol_identifiers i join eol_products p on p.id = i.product_id join eol_cycles c on c.product_id = p.id
        where i.key = any(${pgArray(keys)}::text[]) order by p.id, c.position`,
    );
  },

  /** The project's stack items that may name an endoflife.date product (CPE, purl, vendor:product). */
  async projectItems(ex: Executor, projectId: string): Promise<{ id: string; itemType: string; value: string }[]> {
    return rowsOf(
      ex,
      sql`select id, item_type as "itemType", value from stack_items
        where project_id = ${projectId} and item_type in ('cpe', 'purl', 'product') order by created_at, id`,
    );
  },

  /** The distinct stack items of every project that may name an endoflife.date product (the EOL sync's focus). */
  async itemsNamingProducts(ex: Executor): Promise<{ itemType: string; value: string }[]> {
    return rowsOf(ex, sql`select distinct item_type as "itemType", value from stack_items where item_type in ('cpe', 'purl', 'product')`);
  },

  /** The products any project subscribes to. */
  async subscribedProducts(ex: Executor): Promise<string[]> {
    return (await rowsOf<{ id: string }>(ex, sql`select distinct product_id as id from eol_subscriptions`)).map((r) => r.id);
  },

  /** The products whose identifiers have these lookup keys. */
  async productsOfKeys(ex: Executor, keys: string[]): Promise<string[]> {
    if (!keys.length) return [];
    return (
      await rowsOf<{ id: string }>(ex, sql`select distinct product_id as id from eol_identifiers where key = any(${pgArray(keys)}::text[])`)
    ).map((r) => r.id);
  },

  /** The subscribed cycles of the project whose end of life is on or before `today` (the product named, with its name). */
  async subscribedPastDue(
    ex: Executor,
    projectId: string,
    today: string,
  ): Promise<{ product_id: string; product_name: string; cycle: string; eol: string | boolean | null; link: string | null }[]> {
    return rowsOf(
      ex,
      sql`select distinct c.product_id, p.name as product_name, c.cycle, c.eol, c.link
        from eol_subscriptions s
        join eol_cycles c on c.product_id = s.product_id and (s.cycle is null or c.cycle = s.cycle)
        join eol_products p on p.id = c.product_id
        where s.project_id = ${projectId} and (c.eol_date <= ${today}::date or c.eol = 'true'::jsonb)`,
    );
  },

  async subscriptions(ex: Executor, projectId: string): Promise<EolSubRow[]> {
    return rowsOf(ex, sql`select ${SUB_COLUMNS} from eol_subscriptions where project_id = ${projectId} order by created_at, id`);
  },

  async subscription(ex: Executor, projectId: string, id: string): Promise<EolSubRow | undefined> {
    const [row] = await rowsOf<EolSubRow>(
      ex,
      sql`select ${SUB_COLUMNS} from eol_subscriptions where project_id = ${projectId} and id = ${id}`,
    );
    return row;
  },

  /**
   * Inserts subscriptions in one statement; those the project already has (same product and
   * cycle) are left as they are. Returns the rows inserted.
   */
  async insert(
    ex: Executor,
    project: { id: string; orgId: string },
    notifyFrom: string,
    subs: { product_id: string; cycle: string | null; notify_before_eol_days: number | null; notify_before_support_days: number | null }[],
  ): Promise<EolSubRow[]> {
    if (!subs.length) return [];
    return rowsOf(
      ex,
      sql`insert into eol_subscriptions (org_id, project_id, product_id, cycle, notify_before_eol_days, notify_before_support_days, notify_from, created_at)
        select ${project.orgId}::uuid, ${project.id}::uuid, x.product_id, x.cycle, x.notify_before_eol_days, x.notify_before_support_days,
          ${notifyFrom}::date, clock_timestamp() + x.ord * interval '1 microsecond'
        from jsonb_to_recordset(${JSON.stringify(subs.map((s, ord) => ({ ...s, ord })))}::jsonb)
          as x(ord int, product_id text, cycle text, notify_before_eol_days int, notify_before_support_days int)
        order by x.ord
        on conflict (project_id, product_id, cycle) do nothing
        returning ${SUB_COLUMNS}`,
    );
  },

  /** The project's subscriptions to these (product, cycle) pairs. */
  async subscriptionsTo(ex: Executor, projectId: string, pairs: { product_id: string; cycle: string }[]): Promise<EolSubRow[]> {
    if (!pairs.length) return [];
    return rowsOf(
      ex,
      sql`select ${SUB_COLUMNS} from eol_subscriptions s
        where s.project_id = ${projectId}
          and (s.product_id, s.cycle) in (select x.product_id, x.cycle from jsonb_to_recordset(${JSON.stringify(pairs)}::jsonb) as x(product_id text, cycle text))
        order by s.created_at, s.id`,
    );
  },

  async delete(ex: Executor, projectId: string, id: string): Promise<boolean> {
    return (await rowsOf(ex, sql`delete from eol_subscriptions where project_id = ${projectId} and id = ${id} returning id`)).length > 0;
  },

  /** The project's subscriptions (its statistics). */
  async countInProject(ex: Executor, projectId: string): Promise<number> {
    const [row] = await rowsOf<{ n: number | string }>(
      ex,
      sql`select count(*) as n from eol_subscriptions where project_id = ${projectId}`,
    );
    return Number(row!.n);
  },

  async notices(ex: Executor, projectId: string, q: EolNoticeListQuery): Promise<{ rows: EolNoticeRow[]; total: number }> {
    const rows = await rowsOf<EolNoticeRow>(
      ex,
      sql`select id, subscription_id, product_id, cycle, kind, stage, to_char(due_on, 'YYYY-MM-DD') as due_on, days_left, created_at
        from eol_notices where project_id = ${projectId} order by id desc limit ${q.page_size} offset ${(q.page - 1) * q.page_size}`,
    );
    const [count] = await rowsOf<{ n: number | string }>(ex, sql`select count(*) as n from eol_notices where project_id = ${projectId}`);
    return { rows, total: Number(count!.n) };
  },
};

/** The outbox events of the notices `n` (a CTE of eolNoticesRepository.write) at one stage. */
function noticeEvents(event: "eol.reached" | "eol.approaching", stage: string) {
  return insertEvents(event, {
    org_id: sql`n.org_id`,
    project_id: sql`n.project_id`,
    payload: {
      notice_id: sql`n.id`,
      subscription_id: sql`n.subscription_id`,
      product: sql`n.product_id`,
      product_name: sql`p.name`,
      cycle: sql`n.cycle`,
      kind: sql`n.kind`,
      date: sql`to_char(n.due_on, 'YYYY-MM-DD')`,
      days_left: sql`n.days_left`,
    },
    from: sql`from n join eol_products p on p.id = n.product_id where n.stage = ${stage} order by n.id`,
  });
}

/**
 * The `eol-notices` job's SQL. `today` is the Paris calendar day computed by the caller
 * (src/platform/paris.ts): nothing here reads the database's clock or time zone.
 */
export const eolNoticesRepository = {
  /** Serializes the job (released at the end of the transaction): a second run waits, then finds nothing to do. */
  async lock(ex: Executor): Promise<void> {
    await ex.execute(sql`select pg_advisory_xact_lock(hashtext('vigie:eol-notices'))`);
  },

  /**
   * One statement: for every subscribed cycle and each of its two dates (end of life, end of
   * active support) from the subscription's first day on, a notice `reached` when the date has
   * come (date ≤ today) or `approaching` when today is within the warning period (date − days ≤
   * today), once per (subscription, cycle, kind, stage, date) — the unique index drops what an
   * earlier run wrote, and a date changed upstream is a new row — with its outbox event
   * (`eol.reached`, `eol.approaching`) for the workflows. Returns the notices written.
   */
  async write(ex: Executor, today: string): Promise<{ stage: string; project_id: string }[]> {
    return rowsOf(
      ex,
      sql`
      with due as (
        select s.id as subscription_id, s.org_id, s.project_id, c.product_id, c.cycle, k.kind, k.due_on,
          case when k.due_on <= ${today}::date then 'reached' else 'approaching' end as stage
        from eol_subscriptions s
        join eol_cycles c on c.product_id = s.product_id and (s.cycle is null or c.cycle = s.cycle)
        cross join lateral (values ('eol', c.eol_date, s.notify_before_eol_days), ('support', c.support_date, s.notify_before_support_days))
          as k(kind, due_on, days)
        where k.due_on is not null and k.due_on >= s.notify_from
          and (k.due_on <= ${today}::date or (k.days is not null and k.due_on - k.days <= ${today}::date))),
      n as (
        insert into eol_notices (org_id, project_id, subscription_id, product_id, cycle, kind, stage, due_on, days_left)
        select d.org_id, d.project_id, d.subscription_id, d.product_id, d.cycle, d.kind, d.stage, d.due_on, d.due_on - ${today}::date
        from due d order by d.project_id, d.product_id, d.cycle, d.kind
        on conflict (subscription_id, cycle, kind, stage, due_on) do nothing
        returning id, org_id, project_id, subscription_id, product_id, cycle, kind, stage, due_on, days_left),
      reached as (${noticeEvents("eol.reached", "reached")}),
      approaching as (${noticeEvents("eol.approaching", "approaching")})
      select n.stage, n.project_id from n`,
    );
  },
};
