import { describe, expect, it } from "vitest";
import { panosMessage } from "../../../test/notify-fixtures.js";
import { escapeHtml, render, renderHtml, renderText } from "./render.js";

describe("render: CVE-2024-3400 from the fixtures", () => {
  it("gives every fact, in French by default", () => {
    const r = render(panosMessage(), "Critiques → astreinte");
    expect(r.lang).toBe("fr");
    expect(r.headline).toBe("Nouvelle vulnérabilité touchant le projet");
    expect(r.facts.map((f) => [f.key, f.value])).toEqual([
      ["cve", "CVE-2024-3400"],
      ["severity", "critique"],
      ["cvss", "10,0"],
      ["epss", "99,99\u00a0%"],
      ["kev", "oui"],
      ["poc", "oui"],
      ["product", "Palo Alto Networks PAN-OS"],
      ["version", "10.2.0"],
      ["project", "Production"],
      ["palier", "P1"],
    ]);
    expect(r.description).toContain("GlobalProtect feature of Palo Alto Networks PAN-OS");
    expect(r.absoluteLink).toMatch(/^https:\/\/vigie\.example\.org\/projects\//);
    expect(r.footer).toBe("Vigie · workflow « Critiques → astreinte »");
  });

  it("speaks English when the message's language is en", () => {
    const r = render(panosMessage({ lang: "en", title: "CVE-2024-3400 (critical, KEV) affects Production", event: "cve.kev_added" }));
    expect(r.headline).toBe("Added to CISA's KEV catalog: known to be exploited");
    expect(r.linkLabel).toBe("Open in Vigie");
    expect(Object.fromEntries(r.facts.map((f) => [f.label, f.value]))).toMatchObject({
      Severity: "critical",
      "CVSS score": "10.0",
      "EPSS (exploitation probability, 30 days)": "99.99%",
      "KEV catalog (exploited)": "yes",
      "Public proof of concept": "yes",
      "Affected product": "Palo Alto Networks PAN-OS",
      "Tier (palier)": "P1",
    });
    expect(renderText(r)).toContain("Severity: critical\n");
  });

  it("leaves out what Vigie does not know, and a relative link is no button", () => {
    const base = panosMessage();
    const r = render({
      ...base,
      event: "eol.approaching",
      cve: {
        id: null,
        severity: null,
        cvss_score: null,
        epss_score: null,
        is_kev: null,
        has_poc: null,
        vendor: null,
        product: null,
        description: null,
      },
      version: null,
      palier: null,
      link: "/projects/p/alerts",
    });
    expect(r.facts.map((f) => f.key)).toEqual(["project"]);
    expect(r.absoluteLink).toBeNull();
    expect(r.headline).toBe("Fin de vie proche");
    expect(render({ ...base, cve: { ...base.cve, is_kev: false, has_poc: false } }).facts.filter((f) => f.value === "non")).toHaveLength(2);
  });

  it("writes a plain-text body with French typography", () => {
    const text = renderText(render(panosMessage(), "Critiques → astreinte"));
    expect(text.split("\n").slice(0, 6)).toEqual([
      "CVE-2024-3400 (critique, KEV) touche Production",
      "Nouvelle vulnérabilité touchant le projet",
      "",
      "CVE : CVE-2024-3400",
      "Sévérité : critique",
      "Score CVSS : 10,0",
    ]);
    expect(text).toContain("Voir dans Vigie : https://vigie.example.org/projects/");
    expect(text).toContain("\n-- \nVigie · workflow « Critiques → astreinte »\n");
  });

  it("escapes every text in the HTML body", () => {
    const html = renderHtml(
      render(panosMessage({ title: '<script>alert("x")</script>', project: { id: "p", name: "R&D <prod>", org_id: "o" } })),
    );
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(html).toContain("R&amp;D &lt;prod&gt;");
    expect(html).toContain('<a href="https://vigie.example.org/projects/');
    expect(html).toContain('<html lang="fr">');
    expect(escapeHtml(`'&"`)).toBe("&#39;&amp;&quot;");
  });
});
