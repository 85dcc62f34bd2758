import { readFileSync } from "node:fs";
import { type Logger, pino } from "pino";
import type { ActionContext, NotificationMessage } from "../src/engine/actions.js";
import { REDACT_PATHS } from "../src/platform/log.js";

const fixture = (path: string) => readFileSync(new URL(`./fixtures/${path}`, import.meta.url), "utf8");

/**
 * The facts of CVE-2024-3400 (PAN-OS GlobalProtect command injection) as the fixtures hold them:
 * NVD 2.0 record (description, CVSS 3.1), EPSS scores of 2026-08-16, the KEV entry, the PoC list.
 */
export function cve20243400(): NotificationMessage["cve"] {
  const nvd = JSON.parse(fixture("feeds/nvd20/CVE-2024-3400.json"));
  const cvss = nvd.metrics.cvssMetricV31[0].cvssData;
  const epssLine = fixture("import/epss_scores-2026-08-16.csv")
    .split("\n")
    .find((l) => l.startsWith("CVE-2024-3400,"))!;
  const kev = (JSON.parse(fixture("feeds/kev/kev-entries.json")) as { cveID: string; vendorProject: string; product: string }[]).find(
    (k) => k.cveID === "CVE-2024-3400",
  )!;
  const poc = fixture("matching/poc-panos.jsonl")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { cve: string; github_pocs: string[] })
    .find((p) => p.cve === "CVE-2024-3400")!;
  return {
    id: nvd.id,
    severity: String(cvss.baseSeverity).toLowerCase(),
    cvss_score: cvss.baseScore,
    epss_score: Number(epssLine.split(",")[1]),
    is_kev: kev !== undefined,
    has_poc: poc.github_pocs.length > 0,
    vendor: kev.vendorProject,
    product: kev.product,
    description: nvd.descriptions.find((d: { lang: string }) => d.lang === "en").value,
  };
}

/** A notification of CVE-2024-3400 newly matching the project "Production". */
export function panosMessage(over: Partial<NotificationMessage> = {}): NotificationMessage {
  return {
    event: "cve.new_match",
    title: "CVE-2024-3400 (critique, KEV) touche Production",
    lang: "fr",
    cve: cve20243400(),
    version: "10.2.0",
    palier: "P1",
    project: { id: "6f1c1b5e-8a7d-4f7e-9a52-0d5a3f1f2a10", name: "Production", org_id: "0b7a7f1e-2c41-4d7e-8f0e-5d2b3c4a5e60" },
    alert_id: "a1b2c3d4-0000-4000-8000-000000000001",
    link: "https://vigie.example.org/projects/6f1c1b5e-8a7d-4f7e-9a52-0d5a3f1f2a10/alerts/a1b2c3d4-0000-4000-8000-000000000001",
    payload: { cve_id: "CVE-2024-3400", alert_id: "a1b2c3d4-0000-4000-8000-000000000001" },
    ...over,
  };
}

/** An action context for one node of one run, around `message`. */
export function actionContext(
  message: NotificationMessage = panosMessage(),
  signal: AbortSignal = new AbortController().signal,
): ActionContext {
  const workflowId = "9d0e6f2a-1111-4a2b-8c3d-4e5f6a7b8c9d";
  return {
    event: { id: 42, name: message.event, cveId: message.cve.id, alertId: message.alert_id, payload: message.payload },
    project: { id: message.project.id, orgId: message.project.org_id, name: message.project.name },
    workflow: { id: workflowId, name: "Critiques → astreinte" },
    runId: "5e6f7a8b-2222-4c3d-9e4f-5a6b7c8d9e0f",
    nodeId: "notify",
    facts: { "cve.id": message.cve.id },
    message,
    deliveryId: `42:${workflowId}:notify`,
    signal,
  };
}

/** A pino logger as the process builds it (same redaction), writing into `lines` (parsed) and `raw` (as written). */
export function capturedLogger(): { logger: Logger; lines: Record<string, unknown>[]; raw: string[] } {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const logger = pino(
    { level: "debug", redact: { paths: REDACT_PATHS, censor: "[redacted]" } },
    {
      write(text: string) {
        raw.push(text);
        lines.push(JSON.parse(text) as Record<string, unknown>);
      },
    },
  );
  return { logger, lines, raw };
}
