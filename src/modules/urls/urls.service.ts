import type { ProjectScope } from "../../platform/auth/context.js";
import type { Db } from "../../platform/db/client.js";
import { isUniqueViolation } from "../../platform/db/errors.js";
import { Conflict, invalid, NotFound } from "../../platform/errors.js";
import { CONFLICT, INVALID, NOT_FOUND } from "../../platform/messages.js";
import { parisDate } from "../../platform/paris.js";
import type { StackItemRow } from "../stacks/stacks.repository.js";
import type { StacksService } from "../stacks/stacks.service.js";
import type { TagRow } from "../tags/tags.repository.js";
import type { Detected } from "./urls.detect.js";
import { urlsRepository as repo, type UrlEvent, type UrlRow } from "./urls.repository.js";
import type { ScanResult } from "./urls.scan.js";
import type { MonitoredUrlIn, MonitoredUrlUpdateIn, UrlListQuery, WatchIn } from "./urls.schemas.js";

/** Settings of the scans (configuration): defaults of the per-URL settings and the concurrency. */
export interface UrlSettings {
  /** VIGIE_URLS_DOWN_AFTER: failed scans in a row before url.down. */
  downAfter: number;
  /** VIGIE_URLS_CERT_WARNING_DAYS. */
  certWarningDays: number;
  /** VIGIE_URLS_SCAN_CONCURRENCY: scans at once in a process. */
  concurrency: number;
  /** VIGIE_ALLOW_PRIVATE_TARGETS: scans may reach private addresses (said to the web application, which refuses them otherwise). */
  allowPrivateTargets?: boolean;
}

/** Sends a scan to the job queue (`urls-scan`); absent (no jobs in this process), the next urls-scan-due takes it. */
export type ScanQueue = { scan(urlId: string): Promise<void> };

/** What a run of the scan job did. */
interface ScanRunResult {
  scanned: number;
  /** Scans that could not be recorded (the database failed): taken again when their lease ends. */
  errors: number;
  events: number;
  statuses: Record<string, number>;
}

const DAY = 86_400_000;

/** A fraction in [0, 1) fixed for an id: where in its ±10 % window a URL's next scan falls. */
function spread(id: string): number {
  let h = 2166136261;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619);
  return (h >>> 0) / 2 ** 32;
}

/** The instant of the next scheduled scan: the interval, ±10 % by the id, so URLs added together spread out. */
export function nextScanAt(id: string, intervalHours: number, now: Date): Date {
  return new Date(now.getTime() + intervalHours * 3600_000 * (0.9 + 0.2 * spread(id)));
}

/** Days from `now` to `expires` in Paris calendar days (negative once expired). */
function daysLeft(expires: Date, now: Date): number {
  return Math.round((Date.parse(parisDate(expires)) - Date.parse(parisDate(now))) / DAY);
}

/** A CPE 2.3 with its version attribute set (`*` → `2.4.58`); CPE special characters escaped. */
function versionedCpe(cpe: string, version: string): string | null {
  const parts = cpe.split(":");
  if (parts.length !== 13 || parts[0] !== "cpe" || parts[1] !== "2.3") return null;
  parts[5] = version.replace(/[^A-Za-z0-9._-]/g, (c) => `\\${c}`);
  return parts.join(":");
}

/** Runs `fn` on every item, at most `n` at a time. */
async function pool<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

/**
 * Monitored URLs of a project and their scans. A scan (urls.scan.ts) is recorded with the events
 * it causes in one transaction: `url.down` when the failures in a row reach the URL's threshold
 * (once, until a success), `url.recovered` at that success, `url.cert_expiring` once per
 * certificate expiry date when it comes within the warning days (Paris days).
 */
export class UrlsService {
  private queue: ScanQueue | null = null;

  constructor(
    private readonly db: Db,
    private readonly settings: UrlSettings,
    private readonly scanner: (url: string) => Promise<ScanResult>,
    private readonly stacks: Pick<StacksService, "addItem">,
  ) {}

  /** Attaches the job queue (the server, after its jobs start), or detaches it (null). */
  useQueue(queue: ScanQueue | null): void {
    this.queue = queue;
  }

  private async urlOf(project: ProjectScope, id: string): Promise<UrlRow> {
    const row = await repo.get(this.db, project.id, id);
    if (!row) throw new NotFound(NOT_FOUND.monitoredUrl);
    return row;
  }

  /** The address as stored: parsed, http(s), without credentials; a 422 on `loc` otherwise. */
  private normalize(raw: string, loc: (string | number)[]): string {
    let url: URL;
    try {
      url = new URL(raw.trim());
    } catch {
      throw invalid(loc, INVALID.url, raw);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid(loc, INVALID.url, raw);
    if (url.username || url.password) throw invalid(loc, INVALID.urlCredentials, raw);
    url.hash = "";
    return url.toString();
  }

  private taken(url: string): Conflict {
    return new Conflict(CONFLICT.urlTaken.code, CONFLICT.urlTaken.message(url));
  }

  async list(project: ProjectScope, q: UrlListQuery): Promise<{ rows: UrlRow[]; total: number; privateTargetsAllowed: boolean }> {
    const { rows, total } = await repo.page(this.db, project.id, q.page, q.page_size);
    return { rows, total, privateTargetsAllowed: this.settings.allowPrivateTargets === true };
  }

  async get(project: ProjectScope, id: string): Promise<UrlRow> {
    return this.urlOf(project, id);
  }

  /** Adds a URL; it is due at once (scanned by the next run of urls-scan-due, within the minute). */
  async create(project: ProjectScope, body: MonitoredUrlIn): Promise<UrlRow> {
    const url = this.normalize(body.url, ["body", "url"]);
    try {
      return await repo.insert(this.db, project.orgId, project.id, {
        url,
        label: body.label ?? null,
        isEnabled: body.is_enabled ?? true,
        scanIntervalHours: body.scan_interval_hours ?? 24,
        downAfter: body.down_after ?? null,
        certWarningDays: body.cert_warning_days ?? null,
      });
    } catch (err) {
      if (isUniqueViolation(err, "monitored_urls_project_url_uq")) throw this.taken(url);
      throw err;
    }
  }

  /** Changes a URL's settings; a new address forgets the old one's results and is due at once. */
  async update(project: ProjectScope, id: string, body: MonitoredUrlUpdateIn): Promise<UrlRow> {
    const current = await this.urlOf(project, id);
    const url = body.url === undefined ? undefined : this.normalize(body.url, ["body", "url"]);
    const patch = {
      ...(url !== undefined && { url }),
      ...(body.label !== undefined && { label: body.label }),
      ...(body.is_enabled !== undefined && { isEnabled: body.is_enabled }),
      ...(body.scan_interval_hours !== undefined && { scanIntervalHours: body.scan_interval_hours }),
      ...(body.down_after !== undefined && { downAfter: body.down_after }),
      ...(body.cert_warning_days !== undefined && { certWarningDays: body.cert_warning_days }),
    };
    try {
      const row = await repo.update(this.db, project.id, id, patch, url !== undefined && url !== current.url);
      if (!row) throw new NotFound(NOT_FOUND.monitoredUrl);
      return row;
    } catch (err) {
      if (url && isUniqueViolation(err, "monitored_urls_project_url_uq")) throw this.taken(url);
      throw err;
    }
  }

  async delete(project: ProjectScope, id: string): Promise<void> {
    if (!(await repo.delete(this.db, project.id, id))) throw new NotFound(NOT_FOUND.monitoredUrl);
  }

  /** Asks for a scan now: a `urls-scan` job, and the URL made due (the minute's urls-scan-due is the fallback). */
  async requestScan(project: ProjectScope, id: string): Promise<{ id: string; status: "queued"; requested_at: string }> {
    if (!(await repo.makeDue(this.db, project.id, id))) throw new NotFound(NOT_FOUND.monitoredUrl);
    try {
      await this.queue?.scan(id);
    } catch {
      // The URL is due: urls-scan-due takes it within the minute.
    }
    return { id, status: "queued", requested_at: new Date().toISOString() };
  }

  /** The project's number of monitored URLs (ProjectStatsOut.monitored_urls). */
  async count(projectId: string): Promise<number> {
    return repo.countInProject(this.db, projectId);
  }

  /** `urls-scan`: scans one URL now unless a worker holds it; null when it is gone or held. */
  async scanOne(id: string, now: Date = new Date()): Promise<ScanRunResult | null> {
    const claimed = await repo.claimOne(this.db, id, now);
    if (!claimed) return null;
    return this.scanAll([claimed], now);
  }

  /**
   * `urls-scan-due`: every enabled URL due at `now`, taken `batch` at a time (SKIP LOCKED: other
   * processes take others) and scanned `concurrency` at a time, until none is due.
   */
  async scanDue(now: Date = new Date(), batch = 200): Promise<ScanRunResult> {
    const total: ScanRunResult = { scanned: 0, errors: 0, events: 0, statuses: {} };
    for (;;) {
      const claimed = await repo.claimDue(this.db, now, batch);
      if (!claimed.length) return total;
      const r = await this.scanAll(claimed, now);
      total.scanned += r.scanned;
      total.errors += r.errors;
      total.events += r.events;
      for (const [s, n] of Object.entries(r.statuses)) total.statuses[s] = (total.statuses[s] ?? 0) + n;
      if (claimed.length < batch) return total;
    }
  }

  private async scanAll(claimed: { id: string; url: string }[], now: Date): Promise<ScanRunResult> {
    const out: ScanRunResult = { scanned: 0, errors: 0, events: 0, statuses: {} };
    await pool(claimed, this.settings.concurrency, async (u) => {
      try {
        const result = await this.scanner(u.url);
        out.events += await this.record(u.id, result, now);
        out.scanned++;
        out.statuses[result.status] = (out.statuses[result.status] ?? 0) + 1;
      } catch {
        // Not the site's failure (the scanner reports those): the URL keeps its lease and is taken
        // again in 10 minutes; the other scans go on.
        out.errors++;
      }
    });
    return out;
  }

  /** Records a scan and writes its events, in one transaction; returns the events written. */
  async record(id: string, r: ScanResult, now: Date): Promise<number> {
    return this.db.transaction(async (tx) => {
      const row = await repo.lockState(tx, id);
      if (!row) return 0; // deleted while it was scanned
      const ok = r.status === "up";
      const failures = ok ? 0 : row.consecutiveFailures + 1;
      const downAfter = row.downAfter ?? this.settings.downAfter;
      const about = { url_id: row.id, url: row.url, label: row.label };
      const events: UrlEvent[] = [];
      let isDown = row.isDown;
      if (!ok && !row.isDown && failures >= downAfter) {
        isDown = true;
        events.push({
          event: "url.down",
          payload: { ...about, status: r.status, http_status: r.httpStatus, error: r.error, consecutive_failures: failures },
        });
      } else if (ok && row.isDown) {
        isDown = false;
        events.push({ event: "url.recovered", payload: { ...about, status: r.status, http_status: r.httpStatus } });
      }
      const expires = r.cert?.expiresAt ?? null;
      let warnedFor = row.certWarnedFor;
      if (expires && warnedFor?.getTime() !== expires.getTime()) {
        const left = daysLeft(expires, now);
        if (left <= (row.certWarningDays ?? this.settings.certWarningDays)) {
          warnedFor = expires;
          events.push({
            event: "url.cert_expiring",
            payload: {
              ...about,
              cert_issuer: r.cert?.issuer ?? null,
              cert_subject: r.cert?.subject ?? null,
              cert_expires_at: expires.toISOString(),
              days_left: left,
            },
          });
        }
      }
      await repo.record(tx, id, {
        lastStatus: r.status,
        lastHttpStatus: r.httpStatus,
        lastError: r.error,
        finalUrl: r.finalUrl,
        lastDurationMs: r.durationMs,
        // A failure with no TLS answer keeps what was known of the certificate.
        ...(r.cert
          ? {
              certExpiresAt: expires,
              certIssuer: r.cert.issuer,
              certSubject: r.cert.subject,
              certValid: r.cert.valid,
              certError: r.cert.error,
            }
          : r.httpStatus !== null
            ? { certExpiresAt: null, certIssuer: null, certSubject: null, certValid: null, certError: null }
            : {}),
        // An error page (a CDN's 503, a 404) says little of the site: the last successful answer's technologies stay.
        ...(r.httpStatus !== null && r.httpStatus < 400 && { technologies: r.technologies }),
        lastScannedAt: now,
        consecutiveFailures: failures,
        isDown,
        certWarnedFor: warnedFor,
        nextScanAt: nextScanAt(row.id, row.scanIntervalHours, now),
      });
      await repo.events(tx, row, events);
      return events.length;
    });
  }

  /**
   * Adds a detected technology to one of the project's stacks as a CPE with its version, through
   * the stacks service (matched at once, alerts raised as for any item).
   */
  async watch(
    project: ProjectScope,
    id: string,
    name: string,
    body: WatchIn,
  ): Promise<{ item: StackItemRow; tags: TagRow[]; raised: number }> {
    const row = await this.urlOf(project, id);
    const tech = (row.technologies as Detected[]).find((t) => t.name.toLowerCase() === name.toLowerCase());
    if (!tech) throw new NotFound(NOT_FOUND.technology);
    if (!tech.cpe) throw new Conflict(CONFLICT.technologyWithoutCpe.code, CONFLICT.technologyWithoutCpe.message(tech.name));
    if (!tech.version) throw new Conflict(CONFLICT.technologyWithoutVersion.code, CONFLICT.technologyWithoutVersion.message(tech.name));
    const cpe = versionedCpe(tech.cpe, tech.version);
    if (!cpe) throw new Conflict(CONFLICT.technologyWithoutCpe.code, CONFLICT.technologyWithoutCpe.message(tech.name));
    return this.stacks.addItem(project, body.stack_id, { item_type: "cpe", value: cpe, tag_ids: [] });
  }
}
