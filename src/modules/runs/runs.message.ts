import type { NotificationMessage } from "../../engine/actions.js";
import type { Facts } from "../../engine/evaluate.js";
import type { EventName } from "../../engine/vocabulary.js";
import type { EventRow } from "./runs.repository.js";

const str = (v: unknown) => (typeof v === "string" ? v : null);
const num = (v: unknown) => (typeof v === "number" ? v : null);
const bool = (v: unknown) => (typeof v === "boolean" ? v : null);

/** An EOL event's subject: "nginx 1.29 (fin de vie le 2026-05-13)"; null for other events. */
function eolSubject(event: EventRow, lang: "fr" | "en"): string | null {
  if (!event.event.startsWith("eol.")) return null;
  const p = event.payload;
  const what =
    p.kind === "support"
      ? lang === "en"
        ? "end of active support on"
        : "fin du support actif le"
      : lang === "en"
        ? "end of life on"
        : "fin de vie le";
  return `${str(p.product_name) ?? str(p.product)} ${str(p.cycle)} (${what} ${str(p.date)})`;
}

/**
 * What every notification of a run says, built once per run from the event and its facts. The
 * link points at the alert (or the case when the event has no alert) on the API, absolute when
 * a public URL is configured.
 */
export function buildMessage(
  event: EventRow,
  facts: Facts,
  project: { id: string; name: string; orgId: string },
  alert: { palier: string; match: Record<string, unknown> | null } | null,
  publicUrl: string | null,
  lang: "fr" | "en" = "fr",
): NotificationMessage {
  const cveId = event.cve_id;
  const severity = str(facts["cve.severity"]);
  const isKev = bool(facts["cve.is_kev"]);
  const hasPoc = bool(facts["cve.has_poc"]);
  const flags = [severity, isKev ? "KEV" : null, hasPoc ? "PoC" : null].filter(Boolean).join(", ");
  // An event about a monitored URL names it: "url.down https://shop.example.org"; an EOL event its product and cycle.
  const subject =
    cveId ?? eolSubject(event, lang) ?? (typeof event.payload?.url === "string" ? `${event.event} ${event.payload.url}` : event.event);
  const title = `${subject}${flags ? ` (${flags})` : ""} ${lang === "en" ? "affects" : "touche"} ${project.name}`;
  const base = `${(publicUrl ?? "").replace(/\/$/, "")}/api/v1/organizations/${project.orgId}/projects/${project.id}`;
  const eol = event.event.startsWith("eol.");
  const link = event.alert_id ? `${base}/alerts/${event.alert_id}` : cveId ? `${base}/cases/${cveId}` : eol ? `${base}/eol-notices` : base;
  const version = alert?.match && typeof alert.match.version === "string" ? alert.match.version : null;
  return {
    event: event.event as EventName,
    title,
    lang,
    cve: {
      id: cveId,
      severity,
      cvss_score: num(facts["cve.cvss_score"]),
      epss_score: num(facts["cve.epss_score"]),
      is_kev: isKev,
      has_poc: hasPoc,
      vendor: str(facts["cve.vendor"]),
      product: str(facts["cve.product"]),
      description: str(facts["cve.description"]),
    },
    version,
    palier: alert?.palier ?? null,
    project: { id: project.id, name: project.name, org_id: project.orgId },
    alert_id: event.alert_id,
    link,
    payload: event.payload,
  };
}
