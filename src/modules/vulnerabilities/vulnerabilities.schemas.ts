import { z } from "zod";
import { pageOf, PAGING } from "../../platform/http/paging.js";

export const PublicVulnOut = z
  .object({
    id: z.string(),
    source: z.string().describe("ghsa, go, pysec, rustsec, osv, certfr"),
    url: z.string(),
    aliases: z.array(z.string()).default([]),
    correspondances: z
      .array(z.record(z.string(), z.unknown()))
      .default([])
      .describe("Affected packages (OSV: ecosystem, name, purl, ranges) or products (CERT-FR)"),
    cvss_score: z.number().nullable().optional(),
    fusion_de: z.array(z.string()).default([]),
    palier: z.string().nullable().optional(),
    severity: z.string().nullable().optional(),
    signaux: z.array(z.string()).default([]).describe("Signals on the linked CVEs: kev, poc, epss"),
    summary: z.string().nullable().optional(),
  })
  .meta({ id: "PublicVulnOut" });

export const PublicVulnListOut = pageOf(PublicVulnOut, "PublicVulnListOut");

export const VulnListQuery = z.object({
  q: z.string().min(1).max(200).optional().describe("Id, alias or words of the summary"),
  source: z.enum(["ghsa", "go", "pysec", "rustsec", "osv", "certfr"]).optional(),
  ...PAGING,
});

export type PublicVulnOut = z.infer<typeof PublicVulnOut>;
export type VulnListQuery = z.output<typeof VulnListQuery>;
