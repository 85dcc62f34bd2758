import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createMemoryHistory, createRouter, RouterProvider } from "@tanstack/react-router";
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { explain } from "./explain";
import { alertQuery, validateAlertSearch } from "./search";

const ORG = "11111111-1111-4111-8111-111111111111";
const PROJECT = "22222222-2222-4222-8222-222222222222";
const BASE = `/api/v1/organizations/${ORG}/projects/${PROJECT}`;

const alert = (n: number, over: Record<string, unknown> = {}) => ({
  id: `00000000-0000-4000-8000-00000000000${n}`,
  cve_id: `CVE-2024-000${n}`,
  triggered_at: "2026-11-25T08:00:00Z",
  is_read: false,
  severity: "critical",
  description: `Faille ${n}`,
  vendor: "Palo Alto Networks",
  product: "PAN-OS",
  cvss_score: 10,
  is_kev: n === 1,
  has_poc: true,
  aliases: [],
  fusion_de: [],
  palier: "P1",
  source: "",
  tags: [],
  epss_score: 0.9,
  correspondance: {
    rule: "version_range",
    item_type: "product",
    value: "paloaltonetworks:pan-os@10.2.5",
    version: "10.2.5",
    range: "[10.2.0, 10.2.9-h1[",
    origin: "cna",
  },
  ...over,
});

/** The inbox in memory, the server stubbed: a session of `role`, three alerts; each call recorded. */
async function renderInbox(role: "member" | "viewer", url = `/p/${PROJECT}/alerts`) {
  const calls: { method: string; path: string; search: URLSearchParams; body: unknown }[] = [];
  const read = new Set<string>();
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: Request | string, init?: RequestInit) => {
      const req = input instanceof Request ? input : new Request(new URL(input, location.origin), init);
      const u = new URL(req.url);
      const body = req.method === "GET" ? undefined : await req.json().catch(() => undefined);
      calls.push({ method: req.method, path: u.pathname, search: u.searchParams, body });
      if (u.pathname === "/auth/session")
        return json(200, {
          user: { id: "u", email: "a@example.org" },
          expires_at: "2099-01-01T00:00:00Z",
          organizations: [{ id: ORG, name: "ACME", role, is_personal: false, projects: [{ id: PROJECT, name: "Site" }] }],
        });
      if (u.pathname === `${BASE}/alerts`) {
        const items = [alert(1), alert(2), alert(3)].map((a) => ({ ...a, is_read: read.has(a.id) }));
        return json(200, { items, total: 3, unread_count: items.filter((a) => !a.is_read).length, page: 1, page_size: 50 });
      }
      if (u.pathname === `${BASE}/alerts/read`) {
        for (const id of (body as { ids: string[] }).ids) read.add(id);
        return json(200, { updated: (body as { ids: string[] }).ids.length });
      }
      if (u.pathname === `${BASE}/tags`) return json(200, []);
      if (u.pathname.startsWith(`${BASE}/cases/`))
        return json(201, {
          cve_id: u.pathname.split("/").at(-1),
          status: "nouveau",
          severity: "critical",
          notes: null,
          created_at: "2026-11-26T08:00:00Z",
          updated_at: "2026-11-26T08:00:00Z",
          exception: null,
          tags: [],
          risque: null,
          severity_manual: false,
          history: [],
        });
      return json(404, { detail: "Introuvable" });
    }),
  );
  vi.resetModules();
  const { routeTree } = await import("../../router");
  const { I18nProvider } = await import("../../i18n/i18n");
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const router = createRouter({ routeTree, context: { queryClient }, history: createMemoryHistory({ initialEntries: [url] }) });
  render(
    <I18nProvider initial="fr">
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </I18nProvider>,
  );
  const grid = await screen.findByRole("grid");
  return { calls, router, grid };
}

const rowsOf = (grid: HTMLElement) => within(grid).getAllByRole("row").slice(1);
const press = (key: string) => fireEvent.keyDown(document.activeElement!, { key });

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("the alert inbox, from the keyboard", () => {
  it("j/k move the focus (roving tabindex), x selects, e marks the selection read, c opens a case, Enter opens the detail", async () => {
    const { calls, grid } = await renderInbox("member");
    const rows = rowsOf(grid);
    expect(rows.map((r) => r.tabIndex)).toEqual([0, -1, -1]);
    expect(screen.getByText("3 non lues")).toBeTruthy();
    act(() => rows[0]!.focus());

    press("j");
    expect(document.activeElement).toBe(rowsOf(grid)[1]);
    expect(rowsOf(grid).map((r) => r.tabIndex)).toEqual([-1, 0, -1]);
    press("j");
    press("j"); // past the last row: stays there
    expect(document.activeElement).toBe(rowsOf(grid)[2]);
    press("k");
    expect(document.activeElement).toBe(rowsOf(grid)[1]);

    // x selects the focused row (aria-selected), twice unselects; e marks the selection read.
    press("x");
    expect(rowsOf(grid)[1]!.getAttribute("aria-selected")).toBe("true");
    press("k");
    press("x");
    expect(screen.getByText("2 sélectionnées")).toBeTruthy();
    press("e");
    await screen.findByText("2 alertes marquées comme lues.");
    const readCall = calls.find((c) => c.path === `${BASE}/alerts/read`)!;
    expect(readCall.method).toBe("POST");
    expect((readCall.body as { ids: string[] }).ids.sort()).toEqual([alert(1).id, alert(2).id]);
    await waitFor(() => expect(screen.getByText("1 non lue")).toBeTruthy());
    expect(rowsOf(grid)[0]!.getAttribute("aria-selected")).toBe("false");

    // Nothing selected: e marks the focused alert.
    press("j");
    press("j");
    press("e");
    await screen.findByText("1 alerte marquée comme lue.");
    expect((calls.filter((c) => c.path === `${BASE}/alerts/read`).at(-1)!.body as { ids: string[] }).ids).toEqual([alert(3).id]);

    // c: PUT …/cases/{cve_id} of the focused alert, and says so.
    press("c");
    await screen.findByText("Dossier CVE-2024-0003 ouvert (statut : nouveau).");
    expect(screen.getByRole("link", { name: "Voir le dossier" }).getAttribute("href")).toBe(`/p/${PROJECT}/cases/CVE-2024-0003`);
    const put = calls.find((c) => c.method === "PUT")!;
    expect(put.path).toBe(`${BASE}/cases/CVE-2024-0003`);
    expect(put.body).toEqual({});

    // Enter: the detail of the focused alert, with why it matched and a link to the CVE.
    press("Enter");
    const detail = await screen.findByRole("complementary", { name: "Détail de l'alerte : CVE-2024-0003" });
    expect(detail.textContent).toContain("La version 10.2.5 du produit paloaltonetworks:pan-os@10.2.5 est dans la plage affectée");
    expect(within(detail).getByRole("link", { name: "Voir la fiche CVE-2024-0003" }).getAttribute("href")).toBe("/cves/CVE-2024-0003");
  });

  it("« ? » shows the keys; a viewer gets no write control and e/c/x do nothing", async () => {
    const { calls, grid } = await renderInbox("viewer");
    act(() => rowsOf(grid)[0]!.focus());
    press("?");
    const help = await screen.findByRole("dialog", { name: "Raccourcis clavier" });
    expect(help.textContent).toContain("marquer comme lue");
    fireEvent.keyDown(help, { key: "Escape" });
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(document.activeElement).toBe(rowsOf(grid)[0]);

    expect(screen.getByText("Lecture seule : votre rôle ne permet pas de trier les alertes.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Marquer comme lues" })).toBeNull();
    expect(within(grid).queryAllByRole("checkbox")).toEqual([]);
    press("x");
    press("e");
    press("c");
    expect(calls.filter((c) => c.method !== "GET")).toEqual([]);
    expect(grid.getAttribute("aria-multiselectable")).toBeNull();
  });

  it("reads its filters from the URL and sends them; the « Non vérifiables » tab asks for the unversioned rule alone", async () => {
    const { calls, router } = await renderInbox("member", `/p/${PROJECT}/alerts?palier=%5B%22P1%22%2C%22P2%22%5D&is_kev=true&q=pan`);
    const list = calls.filter((c) => c.path === `${BASE}/alerts`);
    const main = list.find((c) => c.search.get("page_size") === "50")!;
    expect(main.search.getAll("palier")).toEqual(["P1", "P2"]);
    expect(main.search.get("is_kev")).toBe("true");
    expect(main.search.get("q")).toBe("pan");
    expect(main.search.getAll("rule")).not.toContain("unversioned");
    fireEvent.click(screen.getByRole("button", { name: /^Non vérifiables/ }));
    await waitFor(() => expect(router.state.location.search).toMatchObject({ unverified: true, palier: ["P1", "P2"] }));
    await waitFor(() =>
      expect(
        calls.some(
          (c) => c.path === `${BASE}/alerts` && c.search.get("page_size") === "50" && c.search.getAll("rule").join() === "unversioned",
        ),
      ).toBe(true),
    );
  });
});

describe("why an alert matched, in words", () => {
  it("says the version, the range and the source; « non vérifiable » says what is missing", () => {
    expect(explain(alert(1).correspondance, "fr")).toBe(
      "La version 10.2.5 du produit paloaltonetworks:pan-os@10.2.5 est dans la plage affectée [10.2.0, 10.2.9-h1[, selon l'éditeur (CNA).",
    );
    expect(
      explain({ rule: "unversioned", item_type: "product", value: "fortinet:fortios@7.2.0", version: "7.2.0", origin: "kev" }, "en"),
    ).toBe(
      "Not verifiable: CISA's KEV catalog names product fortinet:fortios@7.2.0 without saying which versions are affected, and no source gives a range to check version 7.2.0 against.",
    );
  });

  it("a vendor's CSAF advisory: who says it, in which advisory and version", () => {
    const m = {
      rule: "vendor_advisory",
      item_type: "product",
      value: "Mitsubishi Electric:C80 (BND-2036W000-**)@BE",
      version: "BE",
      origin: "csaf",
      avis_editeur: { editeur: "CISA", tracking_id: "ICSA-23-208-03", version_avis: "6" },
    };
    expect(explain(m, "fr")).toBe(
      "La version BE du produit Mitsubishi Electric:C80 (BND-2036W000-**)@BE est concernée, selon l'avis de l'éditeur CISA (ICSA-23-208-03 version 6).",
    );
    expect(explain(m, "en")).toBe(
      "Version BE of product Mitsubishi Electric:C80 (BND-2036W000-**)@BE is affected, according to the vendor CISA (ICSA-23-208-03 version 6).",
    );
  });
});

describe("the inbox's search params", () => {
  it("keeps known values only, and a view's query asks for the verified rules unless the tab is « Non vérifiables »", () => {
    expect(validateAlertSearch({ palier: ["P1", "P9"], is_read: "false", min_epss: "2", sort: "bogus", page: "3" })).toEqual({
      palier: ["P1"],
      is_read: false,
      page: 3,
    });
    expect(alertQuery({}).rule).not.toContain("unversioned");
    expect(alertQuery({ unverified: true, rule: ["vendor"] }).rule).toEqual(["unversioned"]);
  });

  it("a digest's link (?resume=<digest id>) asks for exactly that digest's alerts and says so; the notice's button shows every alert", async () => {
    const DIGEST = "1ed1c723-d9d1-4616-ae9a-7920e1c4b5f6";
    expect(validateAlertSearch({ resume: "not-an-id" })).toEqual({});
    expect(validateAlertSearch({ resume: DIGEST.toUpperCase() })).toEqual({ resume: DIGEST });
    const { calls, router } = await renderInbox("member", `/p/${PROJECT}/alerts?resume=${DIGEST}`);
    expect(calls.find((c) => c.path === `${BASE}/alerts` && c.search.get("page_size") === "50")!.search.get("resume")).toBe(DIGEST);
    expect(await screen.findByText("Seules les alertes d'un résumé envoyé sont affichées.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Voir toutes les alertes" }));
    await waitFor(() => expect(router.state.location.search).not.toHaveProperty("resume"));
  });

  it("orders by what to handle first unless the URL names another order", async () => {
    expect(alertQuery({}).sort).toBe("palier");
    expect(alertQuery({ sort: "-triggered_at" }).sort).toBe("-triggered_at");
    const { calls } = await renderInbox("member", `/p/${PROJECT}/alerts?sort=-cvss`);
    expect(calls.find((c) => c.path === `${BASE}/alerts` && c.search.get("page_size") === "50")!.search.get("sort")).toBe("-cvss");
    cleanup();
    const plain = await renderInbox("member");
    expect(plain.calls.find((c) => c.path === `${BASE}/alerts` && c.search.get("page_size") === "50")!.search.get("sort")).toBe("palier");
  });
});
