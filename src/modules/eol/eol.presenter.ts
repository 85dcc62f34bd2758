import type { EolCycleRow, EolNoticeRow, EolProductRow, EolSubRow } from "./eol.repository.js";
import type { EolCycleOut, EolSubOut } from "./eol.schemas.js";

const iso = (d: Date | string) => new Date(d).toISOString();

export function presentProduct(p: EolProductRow) {
  return { id: p.id, name: p.name, description: p.description, category: p.category };
}

export function presentCycle(c: EolCycleRow): EolCycleOut {
  return {
    cycle: c.cycle,
    release_date: c.release_date,
    eol: c.eol,
    lts: c.lts,
    support: c.support,
    latest: c.latest,
    link: c.link,
    extended_support: c.extended_support,
    latest_release_date: c.latest_release_date,
  };
}

export function presentProductDetail(p: EolProductRow, cycles: EolCycleRow[]) {
  return { ...presentProduct(p), identifiers: p.identifiers, cycles: cycles.map(presentCycle) };
}

export function presentSub(s: EolSubRow): EolSubOut {
  return {
    id: s.id,
    product_id: s.product_id,
    cycle: s.cycle,
    notify_before_eol_days: s.notify_before_eol_days,
    notify_before_support_days: s.notify_before_support_days,
    created_at: iso(s.created_at),
  };
}

export function presentNotice(n: EolNoticeRow) {
  return {
    id: Number(n.id),
    subscription_id: n.subscription_id,
    product_id: n.product_id,
    cycle: n.cycle,
    kind: n.kind,
    stage: n.stage,
    due_on: n.due_on,
    days_left: n.days_left,
    created_at: iso(n.created_at),
  };
}
