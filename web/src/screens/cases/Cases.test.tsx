import { cleanup, fireEvent, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { exportHref, listQuery } from "./Cases";
import { CASES_PATH, json, kase, ORG, PROJECT, renderAt } from "./testing";

/** The server's cases, answered by status as the list route filters them (`status=` repeatable), 2 per page at most. */
const CASES = [
  kase("CVE-2024-0001", "nouveau"),
  kase("CVE-2024-0002", "nouveau"),
  kase("CVE-2024-0003", "nouveau"),
  kase("CVE-2024-0004", "en_analyse"),
  kase("CVE-2024-0005", "attenue", {
    exception: {
      nature: "MITIGATED",
      measure: "WAF",
      justification: "en attente",
      expires_on: "2099-12-31",
      set_at: "2026-11-01T10:00:00Z",
    },
  }),
  kase("CVE-2024-0006", "risque_accepte", {
    risque: { id: "44444444-4444-4444-8444-444444444444", title: "PAN-OS", expires_on: "2099-06-30" },
  }),
  kase("CVE-2024-0007", "corrige"),
];

function answer(_req: Request, u: URL): Response | null {
  if (u.pathname === `${CASES_PATH}/bulk`) return json(200, { matched: 2, created: 0, updated: 2 });
  if (u.pathname === CASES_PATH) {
    const statuses = u.searchParams.getAll("status");
    const size = Math.min(Number(u.searchParams.get("page_size") ?? 20), 2);
    const all = CASES.filter((c) => statuses.length === 0 || statuses.includes(c.status));
    return json(200, { items: all.slice(0, size), total: all.length, page: 1, page_size: size });
  }
  return null;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("the cases board", () => {
  it("groups the cards by status, one column per status with the server's total, and the exception countdown on the card", async () => {
    await renderAt(`/p/${PROJECT}/cases`, "member", answer);
    const column = async (name: string) => within(await screen.findByRole("region", { name: new RegExp(`^${name}`) }));
    const nouveau = await column("Nouveau");
    // Two cards of three: the column says so and where to see the rest.
    expect((await nouveau.findAllByRole("article")).map((a) => a.getAttribute("aria-label"))).toEqual(["CVE-2024-0001", "CVE-2024-0002"]);
    expect(nouveau.getByRole("heading").textContent).toContain("2 sur 3");
    expect(nouveau.getByText("1 de plus : voir la liste")).toBeTruthy();
    const analyse = await column("En analyse");
    expect((await analyse.findAllByRole("article")).map((a) => a.getAttribute("aria-label"))).toEqual(["CVE-2024-0004"]);
    const attenue = await column("Atténué");
    const card = await attenue.findByRole("article", { name: "CVE-2024-0005" });
    expect(card.textContent).toMatch(/expire dans \d+ jours \(jours calendaires de Paris\)/);
    const accepted = await column("Risque accepté");
    expect((await accepted.findByRole("article", { name: "CVE-2024-0006" })).textContent).toContain("jours calendaires de Paris");
    expect((await column("Corrigé")).getByRole("link", { name: "CVE-2024-0007" })).toBeTruthy();
    expect(await (await column("Non concerné")).findByText("Aucun dossier")).toBeTruthy();
  });

  it("changes the selected cards' status in one bulk call", async () => {
    const { calls } = await renderAt(`/p/${PROJECT}/cases`, "member", answer);
    fireEvent.click(await screen.findByRole("checkbox", { name: "Sélectionner CVE-2024-0001" }));
    fireEvent.click(screen.getByRole("checkbox", { name: "Sélectionner CVE-2024-0004" }));
    fireEvent.change(screen.getByLabelText("Passer au statut"), { target: { value: "en_remediation" } });
    fireEvent.click(screen.getByRole("button", { name: "Appliquer" }));
    expect((await screen.findByRole("status")).textContent).toBe("2 dossiers modifiés.");
    const bulk = calls.find((c) => new URL(c.url).pathname.endsWith("/cases/bulk"))!;
    expect(bulk.method).toBe("POST");
    expect(await bulk.json()).toEqual({
      cve_ids: ["CVE-2024-0001", "CVE-2024-0004"],
      set: { status: "en_remediation" },
      create_missing: false,
    });
  });

  it("offers a viewer no selection and says the screen is read only", async () => {
    await renderAt(`/p/${PROJECT}/cases`, "viewer", answer);
    await screen.findByRole("article", { name: "CVE-2024-0001" });
    expect(screen.getByText("Lecture seule : votre rôle permet de consulter, pas de modifier.")).toBeTruthy();
    expect(screen.queryAllByRole("checkbox")).toEqual([]);
  });

  it("exports the filtered, sorted list as CSV through a plain link", () => {
    expect(listQuery({ severity: "high", has_exception: false, q: "pan" }, "nouveau")).toEqual({
      status: ["nouveau"],
      severity: ["high"],
      q: "pan",
      has_exception: false,
    });
    expect(exportHref(ORG, PROJECT, { status: "corrige", tag: "urgent" }, "expires_on")).toBe(
      `/api/v1/organizations/${ORG}/projects/${PROJECT}/cases/export?format=csv&status=corrige&tag=urgent&sort=expires_on`,
    );
  });
});
