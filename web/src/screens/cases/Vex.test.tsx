import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CASES_PATH, json, kase, ORG, PROJECT, renderAt } from "./testing";

const VEX_PATH = `/api/v1/organizations/${ORG}/projects/${PROJECT}/vex`;

/** The files the screen handed to the browser: each Blob and the name it was saved under. */
let saved: { name: string; blob: Blob }[] = [];

beforeEach(() => {
  saved = [];
  const blobs = new Map<string, Blob>();
  let n = 0;
  vi.spyOn(URL, "createObjectURL").mockImplementation((b) => {
    const url = `blob:test/${++n}`;
    blobs.set(url, b as Blob);
    return url;
  });
  vi.spyOn(URL, "revokeObjectURL").mockImplementation(() => {});
  vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
    saved.push({ name: this.download, blob: blobs.get(this.getAttribute("href")!)! });
  });
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

/** An OpenVEX document as the server writes it (src/modules/vex/vex.openvex.ts), one statement. */
const OPENVEX = {
  "@context": "https://openvex.dev/ns/v0.2.0",
  "@id": `urn:vigie:vex:${PROJECT}:37009d13248762a3`,
  author: "ACME",
  timestamp: "2026-11-26T11:13:42.177Z",
  version: 1,
  statements: [
    {
      vulnerability: { name: "CVE-2024-9468" },
      products: [{ "@id": "cpe:2.3:o:paloaltonetworks:pan-os:10.2.5:*:*:*:*:*:*:*" }],
      status: "not_affected",
      justification: "vulnerable_code_not_in_execute_path",
    },
  ],
};

function cases(req: Request, u: URL): Response | null {
  if (u.pathname === VEX_PATH) {
    const format = u.searchParams.get("format");
    if (format === "csaf")
      return json(409, {
        detail: {
          code: "vex_vide",
          message: "Le projet n'a aucune alerte : un document csaf doit contenir au moins une déclaration",
        },
      });
    return new Response(JSON.stringify(OPENVEX), {
      status: 200,
      headers: {
        "content-type": "application/json; charset=utf-8",
        "content-disposition": `attachment; filename="vex-${PROJECT}.${format}.json"`,
      },
    });
  }
  if (u.pathname === `${CASES_PATH}/bulk` && req.method === "POST") return json(200, { matched: 1, created: 0, updated: 1 });
  if (u.pathname === CASES_PATH) {
    // The board asks one status per column.
    const items = [kase("CVE-2024-9468", "en_analyse")].filter(
      (c) => !u.searchParams.has("status") || u.searchParams.getAll("status").includes(c.status),
    );
    return json(200, { items, total: items.length, page: 1, page_size: 20 });
  }
  return null;
}

describe("the VEX export of the cases page", () => {
  it("downloads the chosen format with the session and saves it under the server's name; a 409 is said, not saved", async () => {
    const { calls } = await renderAt(`/p/${PROJECT}/cases`, "viewer", cases);
    await screen.findByRole("article", { name: "CVE-2024-9468" });
    const format = screen.getByLabelText("Format VEX") as HTMLSelectElement;
    expect([...format.options].map((o) => o.textContent)).toEqual(["CycloneDX 1.6", "CSAF 2.0", "OpenVEX 0.2"]);
    fireEvent.change(format, { target: { value: "openvex" } });
    fireEvent.click(screen.getByRole("button", { name: "Exporter en VEX" }));
    await screen.findByText(`vex-${PROJECT}.openvex.json téléchargé.`);
    const get = calls.find((c) => new URL(c.url).pathname === VEX_PATH)!;
    expect(new URL(get.url).searchParams.get("format")).toBe("openvex");
    expect(get.credentials).toBe("same-origin");
    expect(saved.map((s) => s.name)).toEqual([`vex-${PROJECT}.openvex.json`]);
    expect(JSON.parse(await saved[0]!.blob.text())).toEqual(OPENVEX);

    fireEvent.change(format, { target: { value: "csaf" } });
    fireEvent.click(screen.getByRole("button", { name: "Exporter en VEX" }));
    expect((await screen.findByRole("alert")).textContent).toBe(
      "Le projet n'a aucune alerte : un document csaf doit contenir au moins une déclaration",
    );
    expect(saved).toHaveLength(1);
  });

  it("offers the justification when a bulk change closes cases as not affected, and sends it", async () => {
    const { calls } = await renderAt(`/p/${PROJECT}/cases`, "member", cases);
    fireEvent.click(await screen.findByRole("checkbox", { name: "Sélectionner CVE-2024-9468" }));
    expect(screen.queryByLabelText("Justification VEX")).toBeNull();
    fireEvent.change(screen.getByLabelText("Passer au statut"), { target: { value: "non_concerne" } });
    const select = screen.getByLabelText("Justification VEX") as HTMLSelectElement;
    expect([...select.options].map((o) => o.value)).toEqual([
      "",
      "component_not_present",
      "vulnerable_code_not_present",
      "vulnerable_code_not_in_execute_path",
      "vulnerable_code_cannot_be_controlled_by_adversary",
      "inline_mitigations_already_exist",
    ]);
    fireEvent.change(select, { target: { value: "inline_mitigations_already_exist" } });
    expect(screen.getByText("Le produit contient déjà des protections qui empêchent l'exploitation.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Appliquer" }));
    await screen.findByText("1 dossier modifié.");
    const bulk = calls.find((c) => new URL(c.url).pathname.endsWith("/cases/bulk"))!;
    expect(await bulk.json()).toEqual({
      cve_ids: ["CVE-2024-9468"],
      set: { status: "non_concerne", justification_vex: "inline_mitigations_already_exist" },
      create_missing: false,
    });
  });
});

describe("a case closed as not affected", () => {
  const detail = (over: Record<string, unknown> = {}) => ({
    ...kase("CVE-2024-9468", "en_analyse"),
    justification_vex: null,
    transitions: ["en_remediation", "corrige", "non_concerne"],
    history: [],
    ...over,
  });

  it("asks for the justification, sends it with the status, and shows it on the case afterwards", async () => {
    let current = detail();
    const { calls } = await renderAt(`/p/${PROJECT}/cases/CVE-2024-9468`, "member", (req, u) => {
      if (u.pathname !== `${CASES_PATH}/CVE-2024-9468`) return null;
      if (req.method === "PUT") {
        current = detail({
          status: "non_concerne",
          justification_vex: "vulnerable_code_not_in_execute_path",
          transitions: ["en_analyse"],
          history: [
            {
              from_status: "en_analyse",
              to_status: "non_concerne",
              comment: "jamais chargé",
              created_at: "2026-11-26T10:00:00Z",
              event: "status",
              actor: { type: "user", id: "u1", label: "a@example.org" },
              details: { justification_vex: "vulnerable_code_not_in_execute_path" },
            },
          ],
        });
      }
      return json(200, current);
    });
    fireEvent.click(await screen.findByRole("button", { name: "Passer à « Non concerné »" }));
    // Nothing sent yet: the justification first.
    expect(calls.some((c) => c.method === "PUT")).toBe(false);
    const group = screen.getByRole("group", { name: "Passer à « Non concerné »" });
    fireEvent.change(within(group).getByLabelText("Justification VEX (pour « Non concerné »)"), {
      target: { value: "vulnerable_code_not_in_execute_path" },
    });
    expect(
      within(group).getByText("Le code vulnérable est présent, mais le produit ne l'exécute jamais.", { selector: ".sub" }),
    ).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Commentaire (conservé dans l'historique)"), { target: { value: "jamais chargé" } });
    fireEvent.click(within(group).getByRole("button", { name: "Confirmer « Non concerné »" }));
    await waitFor(() => expect(document.querySelector("dl.case-facts")!.textContent).toContain("Code vulnérable jamais exécuté"));
    const put = calls.find((c) => c.method === "PUT")!;
    expect(await put.json()).toEqual({
      status: "non_concerne",
      justification_vex: "vulnerable_code_not_in_execute_path",
      comment: "jamais chargé",
    });
    const history = screen.getByRole("table", { name: "Historique du dossier, du plus ancien au plus récent" });
    expect(history.textContent).toContain("StatutCode vulnérable jamais exécuté");
  });
});
