import { z } from "zod";
import { PAGING } from "../../platform/http/paging.js";
import { MATCH_RULES } from "../../matching/decide.js";
import { PALIERS } from "../../matching/priority.js";
import { SEVERITY_VALUES } from "../cves/cves.schemas.js";
import { ProjectParams } from "../projects/projects.schemas.js";
import { TagBrief } from "../tags/tags.schemas.js";

export const AlertOut = z
  .object({
    id: z.uuid(),
    cve_id: z.string(),
    triggered_at: z.iso.datetime(),
    is_read: z.boolean(),
    severity: z.string(),
    description: z.string().nullable(),
    vendor: z.string().nullable(),
    product: z.string().nullable(),
    cvss_score: z.number().nullable(),
    is_kev: z.boolean(),
    has_poc: z.boolean(),
    aliases: z.array(z.string()).default([]),
    fusion_de: z.array(z.string()).default([]),
    palier: z.string().nullable().optional().describe("P1 (KEV, EPSS ≥ 0.5, or critical with a PoC) … P4; docs/stacks.md, Alerts"),
    source: z.string().nullable().optional().describe("Why it matched: item, rule, versions compared"),
    tags: z.array(TagBrief).default([]),
    // Beyond the specification.
    epss_score: z.number().nullable(),
    correspondance: z
      .record(z.string(), z.unknown())
      .describe("The match, structured: item_id, item_type, value, rule, version, range, origin"),
    correspond_encore: z
      .boolean()
      .describe(
        "false: no item of the project matches the CVE any more (an SBOM upload removed or upgraded the package, an item was changed, or the CVE's ranges changed); the alert, its case and tags are kept",
      ),
  })
  .meta({ id: "AlertOut" });

export const AlertListOut = z
  .object({
    items: z.array(AlertOut),
    total: z.int(),
    unread_count: z.int().describe("Unread alerts among those the other filters select (is_read aside)"),
    page: z.int(),
    page_size: z.int(),
  })
  .meta({ id: "AlertListOut" });

export const ALERT_SORTS = ["-triggered_at", "triggered_at", "-cvss", "cvss", "-epss", "epss", "palier"] as const;

export const AlertListQuery = z.object({
  is_read: z.boolean().optional(),
  severity: z.array(z.enum(SEVERITY_VALUES)).optional().describe("Repeatable"),
  palier: z.array(z.enum(PALIERS)).optional().describe("Repeatable: the alert's priority tier (P1 act now … P4)"),
  is_kev: z.boolean().optional(),
  correspond_encore: z.boolean().optional().describe("false: the alerts no item of the project matches any more (see AlertOut)"),
  has_poc: z.boolean().optional(),
  q: z.string().min(1).max(200).optional().describe("CVE id, words of the description, vendor or product"),
  tag: z.string().min(1).max(100).optional().describe("A tag id or name"),
  min_epss: z.number().min(0).max(1).optional(),
  rule: z
    .array(z.enum(MATCH_RULES))
    .optional()
    .describe(
      "Repeatable: the rule that raised the alert (correspondance.rule), e.g. unversioned for the versions KEV alone could not check",
    ),
  resume: z.uuid().optional().describe("A digest's id: exactly the alerts that digest listed (the link a digest carries)"),
  sort: z.enum(ALERT_SORTS).default("-triggered_at"),
  ...PAGING,
});

export const AlertReadIn = z.object({ is_read: z.boolean() }).meta({ id: "AlertReadIn" });

export const AlertsReadIn = z
  .object({
    ids: z.array(z.uuid()).max(1000).optional().describe("These alerts (of the project; others are ignored)"),
    all: z.boolean().optional().describe("true: every alert of the project"),
  })
  .meta({
    id: "AlertsReadIn",
    description: 'Either {"ids": [...]} (non-empty) or {"all": true}, not both (422 otherwise)',
    // The rule the service checks (exactly one of a non-empty ids and all: true), for generated clients.
    oneOf: [
      { required: ["ids"], properties: { ids: { minItems: 1 } } },
      { required: ["all"], properties: { all: { const: true } } },
    ],
  });

export const AlertsReadOut = z.object({ updated: z.int() }).meta({ id: "AlertsReadOut" });

export const ProjectStatsOut = z
  .object({
    total_alerts: z.int(),
    unread_alerts: z.int(),
    kev_alerts: z.int(),
    poc_alerts: z.int(),
    stack_items: z.int(),
    monitored_urls: z.int(),
    eol_subscriptions: z.int(),
    alerts_by_severity: z.record(z.string(), z.int()),
  })
  .meta({ id: "ProjectStatsOut" });

export const AlertParams = ProjectParams.extend({ alert_id: z.uuid() });

export type AlertListQuery = z.output<typeof AlertListQuery>;
export type AlertOut = z.infer<typeof AlertOut>;
export type AlertListOut = z.infer<typeof AlertListOut>;

export const AlertSettings = z
  .object({
    alert_backfill: z
      .enum(["recent", "all"])
      .describe(
        "What a new stack item alerts on among stored CVEs: recent (published in the last alert_backfill_days days, plus every KEV) or all",
      ),
    alert_backfill_days: z.int().min(1).max(3650),
  })
  .meta({ id: "AlertSettingsOut" });

export const AlertSettingsIn = AlertSettings.partial().meta({ id: "AlertSettingsIn" });
