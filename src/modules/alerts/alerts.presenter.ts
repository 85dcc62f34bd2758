import type { TagRow } from "../tags/tags.repository.js";
import { presentTag } from "../tags/tags.presenter.js";
import type { AlertRow } from "./alerts.repository.js";
import type { AlertListOut, AlertListQuery, AlertOut } from "./alerts.schemas.js";

export function presentAlert(a: AlertRow, tags: TagRow[] = []): AlertOut {
  return {
    id: a.id,
    cve_id: a.cve_id,
    triggered_at: new Date(a.triggered_at).toISOString(),
    is_read: a.is_read,
    severity: a.severity,
    description: a.description,
    vendor: a.vendor,
    product: a.product,
    cvss_score: a.cvss_score,
    is_kev: a.is_kev,
    has_poc: a.has_poc,
    aliases: a.aliases ?? [],
    fusion_de: a.fusion_de ?? [],
    palier: a.palier,
    source: a.source,
    tags: tags.map(presentTag),
    epss_score: a.epss,
    correspondance: a.match,
    correspond_encore: a.matching,
  };
}

/** A page of the alert list (GET …/alerts and the MCP tool list_alerts). */
export function presentAlertList(
  r: { rows: AlertRow[]; tags: Map<string, TagRow[]>; total: number; unread: number },
  q: Pick<AlertListQuery, "page" | "page_size">,
): AlertListOut {
  return {
    items: r.rows.map((a) => presentAlert(a, r.tags.get(a.id))),
    total: r.total,
    unread_count: r.unread,
    page: q.page,
    page_size: q.page_size,
  };
}
