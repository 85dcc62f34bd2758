import { describe, expect, it } from "vitest";
import { buildMessage } from "./runs.message.js";

const project = { id: "p1", name: "Production", orgId: "o1" };
const event = {
  id: 7,
  org_id: "o1",
  project_id: "p1",
  event: "cve.new_match",
  cve_id: "CVE-2024-3400",
  alert_id: "a1",
  payload: { palier: "P1" },
};

describe("buildMessage", () => {
  it("says the CVE, its flags, the project, the palier, the matched version and links to the alert", () => {
    const m = buildMessage(
      event,
      {
        "cve.severity": "critical",
        "cve.cvss_score": 10,
        "cve.epss_score": 0.94,
        "cve.is_kev": true,
        "cve.has_poc": false,
        "cve.vendor": "paloaltonetworks",
        "cve.product": "pan-os",
      },
      project,
      { palier: "P1", match: { version: "10.2.5" } },
      "https://vigie.example.org/",
    );
    expect(m).toMatchObject({
      event: "cve.new_match",
      title: "CVE-2024-3400 (critical, KEV) touche Production",
      lang: "fr",
      cve: {
        id: "CVE-2024-3400",
        severity: "critical",
        cvss_score: 10,
        epss_score: 0.94,
        is_kev: true,
        has_poc: false,
        vendor: "paloaltonetworks",
        product: "pan-os",
        description: null,
      },
      version: "10.2.5",
      palier: "P1",
      project: { id: "p1", name: "Production", org_id: "o1" },
      alert_id: "a1",
      link: "https://vigie.example.org/api/v1/organizations/o1/projects/p1/alerts/a1",
      payload: { palier: "P1" },
    });
  });

  it("unknown facts are null; without an alert the link is the case; English on request", () => {
    const m = buildMessage({ ...event, alert_id: null, event: "case.exception_expired" }, {}, project, null, null, "en");
    expect(m.title).toBe("CVE-2024-3400 affects Production");
    expect(m.cve).toMatchObject({ severity: null, is_kev: null, epss_score: null });
    expect(m.link).toBe("/api/v1/organizations/o1/projects/p1/cases/CVE-2024-3400");
    expect(m.palier).toBeNull();
  });
});
