import type { Detected } from "./urls.detect.js";
import type { UrlRow } from "./urls.repository.js";
import type { MonitoredUrl } from "./urls.schemas.js";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** MonitoredUrlOut. */
export function presentUrl(r: UrlRow): MonitoredUrl {
  return {
    id: r.id,
    url: r.url,
    label: r.label,
    is_enabled: r.isEnabled,
    last_status: r.lastStatus,
    last_http_status: r.lastHttpStatus,
    cert_expires_at: iso(r.certExpiresAt),
    cert_issuer: r.certIssuer,
    last_scanned_at: iso(r.lastScannedAt),
    created_at: r.createdAt.toISOString(),
    cert_valid: r.certValid,
    cert_error: r.certError,
    cert_subject: r.certSubject,
    last_error: r.lastError,
    final_url: r.finalUrl,
    consecutive_failures: r.consecutiveFailures,
    scan_interval_hours: r.scanIntervalHours,
    down_after: r.downAfter,
    cert_warning_days: r.certWarningDays,
    next_scan_at: r.nextScanAt.toISOString(),
  };
}

/** MonitoredUrlDetailOut: with the technologies of the last answer. */
export function presentUrlDetail(r: UrlRow) {
  const technologies = (r.technologies as Detected[]).map((t) => ({
    name: t.name,
    version: t.version,
    confidence: t.confidence,
    categories: t.categories,
    cpe: t.cpe,
    website: t.website,
  }));
  return { ...presentUrl(r), technologies };
}
