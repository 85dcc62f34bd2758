import { z } from "zod";
import { URL_STATUSES } from "../../platform/db/schema/index.js";
import { PAGING, pageOf } from "../../platform/http/paging.js";
import { ProjectParams } from "../projects/projects.schemas.js";

/** An http(s) address: anything else is a 422 on the field (string_pattern_mismatch), before the service reads it. */
export const URL_PATTERN = "^[Hh][Tt][Tt][Pp][Ss]?:\\/\\/\\S+$";
const UrlField = z
  .string()
  .max(2048)
  .regex(new RegExp(URL_PATTERN))
  .describe("http:// or https:// address, without user:password (stored normalized: lower-case scheme and host)");

const SETTINGS = {
  label: z.string().max(200).nullable().optional(),
  is_enabled: z.boolean().optional(),
  scan_interval_hours: z.int().min(1).max(720).optional().describe("Hours between scheduled scans (default 24)"),
  down_after: z
    .int()
    .min(1)
    .max(100)
    .nullable()
    .optional()
    .describe("Failed scans in a row before url.down (null: VIGIE_URLS_DOWN_AFTER, 3 by default)"),
  cert_warning_days: z
    .int()
    .min(0)
    .max(365)
    .nullable()
    .optional()
    .describe("Days before the certificate's expiry when url.cert_expiring is written (null: VIGIE_URLS_CERT_WARNING_DAYS, 30 by default)"),
};

export const MonitoredUrlIn = z.object({ url: UrlField, ...SETTINGS }).meta({ id: "MonitoredUrlIn" });
export type MonitoredUrlIn = z.output<typeof MonitoredUrlIn>;

export const MonitoredUrlUpdateIn = z.object({ url: UrlField.optional(), ...SETTINGS }).meta({ id: "MonitoredUrlUpdateIn" });
export type MonitoredUrlUpdateIn = z.output<typeof MonitoredUrlUpdateIn>;

const STATUS_TEXT =
  "pending (not scanned yet), up (HTTP < 400), http_error (4xx), down (5xx), tls_error (the certificate does not verify, or no TLS handshake), " +
  "redirect_loop (more than 5 redirects), timeout, refused (connection refused), dns_error, network_error, blocked (a private, loopback, " +
  "link-local or metadata address, refused by the SSRF guard)";

export const MonitoredUrl = z
  .object({
    id: z.uuid(),
    url: z.string(),
    label: z.string().nullable(),
    is_enabled: z.boolean(),
    last_status: z.string().describe(`One of: ${STATUS_TEXT}`),
    last_http_status: z.int().nullable(),
    cert_expires_at: z.iso.datetime().nullable().describe("End of validity of the leaf certificate (HTTPS), even when it does not verify"),
    cert_issuer: z.string().nullable().describe("The leaf certificate's issuer (organization, else common name)"),
    last_scanned_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
    // Beyond the specification's fields:
    cert_valid: z.boolean().nullable().describe("The certificate verified (chain and host name); null before an HTTPS answer"),
    cert_error: z.string().nullable().describe("Why it did not (CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT…)"),
    cert_subject: z.string().nullable(),
    last_error: z.string().nullable().describe("Why the last scan failed"),
    final_url: z.string().nullable().describe("The address that answered, after redirects"),
    consecutive_failures: z.int(),
    scan_interval_hours: z.int(),
    down_after: z.int().nullable(),
    cert_warning_days: z.int().nullable(),
    next_scan_at: z.iso.datetime(),
  })
  .meta({ id: "MonitoredUrlOut" });
export type MonitoredUrl = z.infer<typeof MonitoredUrl>;

export const Technology = z
  .object({
    name: z.string(),
    version: z.string().nullable(),
    confidence: z.int().describe("0–100"),
    categories: z.array(z.string()),
    cpe: z.string().nullable().describe("CPE 2.3 of the product (version *), when the fingerprint has one"),
    website: z.string().nullable(),
  })
  .meta({ id: "DetectedTechnologyOut" });

export const MonitoredUrlDetail = MonitoredUrl.extend({ technologies: z.array(Technology) }).meta({ id: "MonitoredUrlDetailOut" });

export const MonitoredUrlList = pageOf(MonitoredUrl, "MonitoredUrlListOut")
  .extend({
    private_targets_allowed: z
      .boolean()
      .optional()
      .describe(
        "Whether scans may reach loopback, private, link-local or metadata addresses (the operator's setting): " +
          "when false, a URL naming such an address is scanned as blocked; the web application refuses it when typed",
      ),
  })
  .meta({ id: "MonitoredUrlListOut" });
export const UrlListQuery = z.object({ ...PAGING });
export type UrlListQuery = z.output<typeof UrlListQuery>;

export const UrlParams = ProjectParams.extend({ url_id: z.uuid() });
export const TechnologyParams = UrlParams.extend({ name: z.string().min(1).max(200) });

export const ScanRequested = z
  .object({ id: z.uuid(), status: z.literal("queued"), requested_at: z.iso.datetime() })
  .meta({ id: "ScanRequestedOut", description: "The scan runs as a job (urls-scan); the URL's record shows its result" });

export const WatchIn = z
  .object({ stack_id: z.uuid().describe("The project's stack that receives the item") })
  .meta({ id: "WatchTechnologyIn" });
export type WatchIn = z.output<typeof WatchIn>;

export { URL_STATUSES };
