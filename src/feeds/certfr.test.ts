import { createReadStream, existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createGunzip } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  attributionText,
  contournement_disponible,
  isLinkOnly,
  normaliseText,
  parseCertfrAvis,
  type CertfrRecord,
  type MesureProvisoire,
} from "./certfr.js";
import { RecordError } from "./types.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const FIX = resolve(ROOT, "test/fixtures/feeds/certfr");
const DATA = resolve(ROOT, "../shared/data/certfr");

const sample = new Map(
  readFileSync(resolve(FIX, "avis-sample.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { reference: string })
    .map((o) => [o.reference, o] as const),
);
const avis = (ref: string): CertfrRecord => parseCertfrAvis(sample.get(ref));

const PATCH_LINK = "Se référer au bulletin de sécurité de l'éditeur pour l'obtention des correctifs (cf. section Documentation).";

describe("parseCertfrAvis", () => {
  it("parses CERTFR-2025-AVI-0006 (LibreOffice, 2025, two CVEs) exactly", () => {
    const url = "https://www.cert.ssi.gouv.fr/avis/CERTFR-2025-AVI-0006/";
    const attribution = `Source : CERT-FR (ANSSI), avis CERTFR-2025-AVI-0006, mis à jour le 2025-01-08, ${url} — Licence Ouverte 2.0`;
    const liens = [
      "https://www.libreoffice.org/about-us/security/advisories/cve-2024-12426/",
      "https://www.libreoffice.org/about-us/security/advisories/cve-2024-12425/",
    ];
    const expected: CertfrRecord = {
      reference: "CERTFR-2025-AVI-0006",
      title: "Multiples vulnérabilités dans LibreOffice",
      url,
      published: "2025-01-08",
      modified: "2025-01-08",
      summary:
        "De multiples vulnérabilités ont été découvertes dans LibreOffice. Elles permettent à un attaquant de provoquer une atteinte à la confidentialité des données, une atteinte à l'intégrité des données et un contournement de la politique de sécurité.",
      cve_ids: ["CVE-2024-12425", "CVE-2024-12426"],
      produits: ["LibreOffice"],
      systemes_affectes: ["LibreOffice versions antérieures à 24.8.4"],
      risks: [
        "Atteinte à l'intégrité des données",
        "Contournement de la politique de sécurité",
        "Atteinte à la confidentialité des données",
      ],
      mesures: [
        {
          source: "CERT-FR",
          reference: "CERTFR-2025-AVI-0006",
          categorie: "correctif",
          attribution,
          date: "2025-01-08",
          url,
          produits: ["LibreOffice"],
          texte: PATCH_LINK,
          lien_seulement: true,
          republication: null,
          liens,
        },
      ],
      documentation: [
        { title: "Bulletin de sécurité LibreOffice cve-2024-12426", url: liens[0]!, published_at: "2025-01-07" },
        { title: "Bulletin de sécurité LibreOffice cve-2024-12425", url: liens[1]!, published_at: "2025-01-07" },
      ],
    };
    expect(avis("CERTFR-2025-AVI-0006")).toEqual(expected);
    expect(contournement_disponible(expected)).toBe(false);
    // the raw per-avis file (byte-exact) gives the same record
    expect(parseCertfrAvis(JSON.parse(readFileSync(resolve(FIX, "CERTFR-2025-AVI-0006.json"), "utf8")))).toEqual(expected);
  });

  it("orders unsorted revisions (CERTFR-2025-AVI-0004) and reports the republication", () => {
    const r = avis("CERTFR-2025-AVI-0004");
    expect(r.published).toBe("2025-01-03");
    expect(r.modified).toBe("2025-01-07");
    expect(r.cve_ids).toHaveLength(36);
    expect(r.cve_ids.slice(0, 3)).toEqual(["CVE-2024-20145", "CVE-2024-20146", "CVE-2024-20140"]);
    expect(r.produits).toEqual(["Google Android"]);
    expect(r.mesures[0]).toMatchObject({ categorie: "correctif", date: "2025-01-03", republication: "2025-01-07", lien_seulement: true });
    expect(r.mesures[0]!.attribution).toBe(
      "Source : CERT-FR (ANSSI), avis CERTFR-2025-AVI-0004, mis à jour le 2025-01-07, https://www.cert.ssi.gouv.fr/avis/CERTFR-2025-AVI-0004/ — Licence Ouverte 2.0",
    );
  });

  it("extracts the Drupal workaround (CERTFR-2020-AVI-777), joining the Markdown line wraps", () => {
    const r = avis("CERTFR-2020-AVI-777");
    expect(r.mesures.map((m) => [m.categorie, m.lien_seulement, m.texte])).toEqual([
      ["correctif", true, PATCH_LINK],
      [
        "contournement",
        false,
        "L'éditeur propose comme mesure de contournement pour ces vulnérabilités de limiter aux utilisateurs de confiance le téléchargement des fichiers *.tar*, *.tar.gz*, .*bz2* et .*tlz*.",
      ],
    ]);
    expect(contournement_disponible(r)).toBe(true);
    expect(r.produits).toEqual([]); // no structured affected_systems in this avis…
    expect(r.systemes_affectes.slice(0, 2)).toEqual([
      "Drupal 9.x versions antérieures à 9.0.9",
      "Drupal 8.9.x versions antérieures à 8.9.10",
    ]); // …but an HTML list
  });

  it("marks a workaround that only points to the vendor as link-only (F5, Fortinet)", () => {
    const f5 = avis("CERTFR-2020-AVI-578").mesures.find((m) => m.categorie === "contournement")!;
    expect(f5.texte).toBe(
      "Un contournement est possible pour prévenir l'exécution de code à distance. Se référer au bulletin de l'éditeur pour la mise en œuvre du contournement.",
    );
    expect(f5.lien_seulement).toBe(true);
    const forti = avis("CERTFR-2024-AVI-0212");
    expect(forti.produits).toEqual([
      "Fortinet FortiClientEMS",
      "Fortinet FortiManager",
      "Fortinet FortiProxy",
      "Fortinet FortiOS",
      "Fortinet FortiAnalyzer",
      "Fortinet FortiPortal",
    ]);
    expect(forti.summary).toBe(
      "De multiples vulnérabilités ont été découvertes dans les produits Fortinet. Elles permettent à un attaquant de provoquer une exécution de code arbitraire à distance, un contournement de la politique de sécurité et une élévation de privilèges.",
    ); // inline <span class="textit"> removed
    expect(forti.mesures.find((m) => m.categorie === "contournement")).toMatchObject({
      lien_seulement: true,
      texte:
        "S’il n’est pas possible de procéder à l’installation d’une version corrigeant la vulnérabilité, se référer aux mesures de contournement proposées par l’éditeur à la section *Workaround*.",
    });
  });

  it("finds a workaround announced in the Solution section and a concrete one (CERTFR-2022-AVI-220)", () => {
    const r = avis("CERTFR-2022-AVI-220");
    expect(r.mesures.map((m) => [m.categorie, m.lien_seulement])).toEqual([
      ["correctif", true],
      ["contournement", true],
      ["contournement", false],
    ]);
    expect(r.mesures[2]!.texte).toMatch(/^L'éditeur indique que les applications doivent implémenter une liste d'autorisation stricte/);
  });

  it("does not take a mislabelled, empty or negative 'Contournement provisoire' section for a workaround", () => {
    // 2015: the standard patch sentence under a "Contournement provisoire" heading
    const mariadb = avis("CERTFR-2015-AVI-281");
    expect(mariadb.mesures.map((m) => [m.categorie, m.texte])).toEqual([["correctif", PATCH_LINK]]);
    expect(contournement_disponible(mariadb)).toBe(false);
    // empty section
    expect(contournement_disponible(avis("CERTFR-2022-AVI-163"))).toBe(false);
    // "Aucun contournement provisoire n'a été identifié."
    const none = avis("CERTA-2005-AVI-488");
    expect(none.mesures.map((m) => m.categorie)).toEqual(["correctif"]);
    expect(contournement_disponible(none)).toBe(false);
  });

  it("extracts a concrete old CERTA workaround (CERTA-2005-AVI-313: 'Filtrer le port 10000/tcp.')", () => {
    const r = avis("CERTA-2005-AVI-313");
    expect(r.mesures.map((m) => [m.categorie, m.lien_seulement, m.texte])).toEqual([
      [
        "correctif",
        false,
        "Appliquer le correctif de Symantec tel qu'indiqué dans le bulletin de sécurité SYM05-011 (voir Documentation).",
      ],
      ["contournement", false, "Filtrer le port 10000/tcp."],
    ]);
    expect(r.cve_ids).toEqual([]);
    expect(r.summary).toBeNull();
  });

  it("parses the newest avis of the data set (CERTFR-2026-AVI-0196, IBM)", () => {
    const r = avis("CERTFR-2026-AVI-0196");
    expect(r.published).toBe("2026-02-20");
    expect(r.cve_ids).toHaveLength(18);
    expect(r.cve_ids[0]).toBe("CVE-2026-21933");
    expect(r.produits).toEqual(["IBM Sterling", "IBM VIOS", "IBM AIX"]);
  });

  it("rejects documents without a valid reference", () => {
    expect(() => parseCertfrAvis(null)).toThrow(RecordError);
    expect(() => parseCertfrAvis({ title: "x" })).toThrow(/without reference/);
    expect(() => parseCertfrAvis({ reference: "CERTFR-2025-ALE-001" })).toThrow(/unexpected reference/);
  });
});

describe("text helpers", () => {
  it("normaliseText joins wrapped lines and keeps list items", () => {
    expect(normaliseText("Se référer au bulletin\nde l'éditeur.\n\n- un\n- deux\n")).toBe(
      "Se référer au bulletin de l'éditeur.\n\n- un\n- deux",
    );
    expect(normaliseText('<span class="mx_EventTile_body" dir="auto"> Texte</span>')).toBe("Texte");
  });

  it("isLinkOnly tells pointers from instructions", () => {
    expect(isLinkOnly(PATCH_LINK)).toBe(true);
    expect(isLinkOnly("Voir article Microsoft 816930 :\n\nhttp://support.microsoft.com/default.aspx?scid=kb;EN-US;816930")).toBe(true);
    expect(
      isLinkOnly(
        "L'éditeur propose des mesures de contournement pour les systèmes AMD. Se référer au bulletin de sécurité dans la section Documentation.",
      ),
    ).toBe(true);
    expect(isLinkOnly("Désactiver le protocole CDP sur le matériel vulnérable (cf section documentation).")).toBe(false);
    expect(
      isLinkOnly(
        "Dans l'attente d'appliquer le correctif il est possible de désactiver le protocole HTML Help InfoTech (cf. bulletin de sécurité de l'éditeur, section documentation)",
      ),
    ).toBe(false);
    expect(isLinkOnly("L'éditeur propose une mesure de contournement temporaire en annulant l'enregistrement de l'agent.exe.")).toBe(false);
  });

  it("attributionText", () => {
    expect(attributionText("CERTA-2005-AVI-313", null)).toBe(
      "Source : CERT-FR (ANSSI), avis CERTA-2005-AVI-313, https://www.cert.ssi.gouv.fr/avis/CERTA-2005-AVI-313/ — Licence Ouverte 2.0",
    );
  });
});

const all = resolve(DATA, "certfr-all-json.jsonl.gz");
describe.skipIf(!existsSync(all))("whole CERT-FR files (shared/data)", () => {
  it("parses the 16,538 avis of certfr-all-json.jsonl.gz", async () => {
    const t0 = performance.now();
    const rl = createInterface({ input: createReadStream(all).pipe(createGunzip()), crlfDelay: Infinity });
    const prefix: Record<string, number> = {};
    const cats: Record<string, number> = {};
    let cves = 0;
    let workarounds = 0;
    let noMesure = 0;
    let y2025: CertfrRecord | undefined;
    const byRef = new Map<string, CertfrRecord>();
    for await (const line of rl) {
      const r = parseCertfrAvis(JSON.parse(line));
      byRef.set(r.reference, r);
      const p = r.reference.startsWith("CERTA") ? "CERTA" : "CERTFR";
      prefix[p] = (prefix[p] ?? 0) + 1;
      cves += r.cve_ids.length;
      if (contournement_disponible(r)) workarounds++;
      if (r.mesures.length === 0) noMesure++;
      for (const m of r.mesures as MesureProvisoire[]) {
        const k = `${m.categorie}${m.lien_seulement ? "/lien" : ""}`;
        cats[k] = (cats[k] ?? 0) + 1;
      }
      if (r.reference === "CERTFR-2025-AVI-0006") y2025 = r;
    }
    const t1 = performance.now();
    console.log(`CERT-FR: certfr-all-json.jsonl.gz 16,538 avis in ${(t1 - t0).toFixed(0)} ms`);
    expect(prefix).toEqual({ CERTA: 6818, CERTFR: 9720 });
    expect(cves).toBe(174_358);
    expect(workarounds).toBe(505);
    expect(noMesure).toBe(7);
    expect(cats).toEqual({ correctif: 1982, "correctif/lien": 14_547, contournement: 484, "contournement/lien": 32 });
    expect(y2025).toEqual(avis("CERTFR-2025-AVI-0006"));

    // Every 2025–2026 avis has only the link-only patch measure.
    const recent = [...byRef.values()].filter((r) => /^CERTFR-202[56]-/.test(r.reference));
    expect(recent).toHaveLength(1338);
    expect(recent.every((r) => r.mesures.length === 1 && r.mesures[0]!.categorie === "correctif" && r.mesures[0]!.lien_seulement)).toBe(
      true,
    );

    // The raw per-avis files are the same documents.
    let raw = 0;
    for (const year of ["2025", "2026"]) {
      for (const f of readdirSync(resolve(DATA, "raw", year))) {
        const r = parseCertfrAvis(JSON.parse(readFileSync(resolve(DATA, "raw", year, f), "utf8")));
        expect(r).toEqual(byRef.get(r.reference));
        raw++;
      }
    }
    console.log(`CERT-FR: raw/2025 + raw/2026 (1,338 files) in ${(performance.now() - t1).toFixed(0)} ms`);
    expect(raw).toBe(1338);
  }, 60_000);
});
