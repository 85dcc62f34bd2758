import { compareVersions } from "../../matching/version.js";
import type { ProjectScope } from "../../platform/auth/context.js";
import type { Db } from "../../platform/db/client.js";
import { Conflict, Invalid, NotFound, type Issue } from "../../platform/errors.js";
import { CONFLICT, INVALID, NOT_FOUND } from "../../platform/messages.js";
import { parisDate } from "../../platform/paris.js";
import { type EolCycleRow, eolRepository as repo, type EolSubRow } from "./eol.repository.js";
import { EOL_DEFAULT_DAYS, type EolNoticeListQuery, type EolPastDueItem, type EolProductListQuery, type EolSubIn } from "./eol.schemas.js";
import { cyclesOfItems } from "./eol.stack.js";

/**
 * Newest first: by release date (latest first; a cycle without one after those with one), then by
 * cycle version (highest first), then by place on the page.
 */
export function newestFirst<C extends Pick<EolCycleRow, "cycle" | "release_date" | "position">>(cycles: C[]): C[] {
  return [...cycles].sort((a, b) => {
    if (a.release_date !== b.release_date) {
      if (a.release_date === null) return 1;
      if (b.release_date === null) return -1;
      return a.release_date < b.release_date ? 1 : -1;
    }
    return compareVersions(b.cycle, a.cycle) || a.position - b.position;
  });
}

/** endoflife.date products (read by every key) and the project's subscriptions to their cycles. */
export class EolService {
  constructor(
    private readonly db: Db,
    /** The instant a subscription is made (tests set it): its Paris day is the first day notices concern. */
    private readonly clock: () => Date = () => new Date(),
  ) {}

  listProducts(q: EolProductListQuery) {
    return repo.listProducts(this.db, q);
  }

  async product(id: string) {
    const product = await repo.product(this.db, id);
    if (!product) throw new NotFound(NOT_FOUND.eolProduct);
    return { product, cycles: newestFirst(await repo.cycles(this.db, id)) };
  }

  async subscriptions(project: ProjectScope): Promise<EolSubRow[]> {
    return repo.subscriptions(this.db, project.id);
  }

  async subscription(project: ProjectScope, id: string): Promise<EolSubRow> {
    const row = await repo.subscription(this.db, project.id, id);
    if (!row) throw new NotFound(NOT_FOUND.eolSubscription);
    return row;
  }

  /**
   * Subscribes the project to a product's cycle (or every cycle). The product and the cycle must
   * exist (422 on the field); a second subscription to the same product and cycle is a 409
   * `abonnement_existant` (with the existing one's id).
   */
  async subscribe(project: ProjectScope, body: EolSubIn): Promise<EolSubRow> {
    const issues: Issue[] = [];
    if (!(await repo.product(this.db, body.product_id))) {
      issues.push({ loc: ["body", "product_id"], message: INVALID.unknownEolProduct(body.product_id), input: body.product_id });
    } else if (body.cycle !== null && !(await repo.cycleExists(this.db, body.product_id, body.cycle))) {
      issues.push({ loc: ["body", "cycle"], message: INVALID.unknownEolCycle(body.product_id, body.cycle), input: body.cycle });
    }
    if (issues.length) throw new Invalid(issues);
    const [row] = await repo.insert(this.db, project, parisDate(this.clock()), [body]);
    if (row) return row;
    const existing = (await repo.subscriptions(this.db, project.id)).find(
      (s) => s.product_id === body.product_id && s.cycle === body.cycle,
    );
    throw new Conflict(CONFLICT.eolSubscriptionExists.code, CONFLICT.eolSubscriptionExists.message(body.product_id, body.cycle), {
      subscription_id: existing?.id ?? null,
    });
  }

  async unsubscribe(project: ProjectScope, id: string): Promise<void> {
    if (!(await repo.delete(this.db, project.id, id))) throw new NotFound(NOT_FOUND.eolSubscription);
  }

  /**
   * Subscribes the project, in one statement, to every cycle its stack items run (see
   * eol.stack.ts), with the default warning periods. Answers the subscriptions created and those
   * to the same cycles that were already there; a cycle is subscribed once whatever the number of
   * items running it.
   */
  async subscribeFromStack(project: ProjectScope): Promise<{ created: EolSubRow[]; existing: EolSubRow[] }> {
    return this.db.transaction(async (tx) => {
      const found = await cyclesOfItems(tx, await repo.projectItems(tx, project.id));
      const pairs = new Map<string, { product_id: string; cycle: string }>();
      for (const c of found.values()) pairs.set(JSON.stringify([c.product_id, c.cycle]), { product_id: c.product_id, cycle: c.cycle });
      const wanted = [...pairs.values()];
      const created = await repo.insert(
        tx,
        project,
        parisDate(this.clock()),
        wanted.map((p) => ({ ...p, notify_before_eol_days: EOL_DEFAULT_DAYS.eol, notify_before_support_days: EOL_DEFAULT_DAYS.support })),
      );
      const ids = new Set(created.map((c) => c.id));
      const existing = (await repo.subscriptionsTo(tx, project.id, wanted)).filter((s) => !ids.has(s.id));
      return { created, existing };
    });
  }

  /**
   * The cycles the project depends on whose end of life has come (Paris day): those it subscribes
   * to and those its stack items run. Notices only announce the dates that come after a
   * subscription (no flood of old news); this is what is already past, for home and the calendar.
   */
  async pastDue(project: ProjectScope): Promise<{ today: string; items: EolPastDueItem[] }> {
    const today = parisDate(this.clock());
    const byCycle = new Map<string, EolPastDueItem>();
    const key = (productId: string, cycle: string) => JSON.stringify([productId, cycle]);
    const over = (eol: string | boolean | null) => eol === true || (typeof eol === "string" && eol <= today);
    const day = (eol: string | boolean | null) => (typeof eol === "string" ? eol.slice(0, 10) : null);
    for (const c of await repo.subscribedPastDue(this.db, project.id, today)) {
      byCycle.set(key(c.product_id, c.cycle), { ...c, eol: day(c.eol), subscribed: true, stack_items: 0 });
    }
    const items = await cyclesOfItems(this.db, await repo.projectItems(this.db, project.id));
    for (const c of items.values()) {
      if (!over(c.eol)) continue;
      const k = key(c.product_id, c.cycle);
      const seen = byCycle.get(k);
      if (seen) seen.stack_items++;
      else
        byCycle.set(k, {
          product_id: c.product_id,
          product_name: c.product_name,
          cycle: c.cycle,
          eol: day(c.eol),
          link: c.link,
          subscribed: false,
          stack_items: 1,
        });
    }
    const list = [...byCycle.values()].sort(
      (a, b) => (a.eol ?? "").localeCompare(b.eol ?? "") || a.product_name.localeCompare(b.product_name) || a.cycle.localeCompare(b.cycle),
    );
    return { today, items: list };
  }

  /** The project's EOL notices, newest first (what the eol-notices job wrote). */
  notices(project: ProjectScope, q: EolNoticeListQuery) {
    return repo.notices(this.db, project.id, q);
  }

  /** The project's subscriptions (ProjectStatsOut.eol_subscriptions). */
  countInProject(projectId: string): Promise<number> {
    return repo.countInProject(this.db, projectId);
  }
}
