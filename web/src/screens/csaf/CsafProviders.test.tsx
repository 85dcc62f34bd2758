import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createMemoryHistory, createRouter, RouterProvider } from "@tanstack/react-router";
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Role } from "../../api/session";

const ORG = "11111111-1111-4111-8111-111111111111";
const PROJECT = "22222222-2222-4222-8222-222222222222";
const PROVIDER = "66666666-6666-4666-8666-666666666666";
const PROVIDERS = `/api/v1/organizations/${ORG}/csaf/providers`;
const AGGREGATOR = `/api/v1/organizations/${ORG}/csaf/aggregator`;
/** The first lookup waits for the lazily loaded settings route: longer than findBy's 1 s on a loaded machine. */
const FIRST = { timeout: 5000 };

const session = (role: Role) => ({
  user: { id: "33333333-3333-4333-8333-333333333333", email: "moi@example.org" },
  expires_at: "2026-12-01T10:00:00Z",
  organizations: [{ id: ORG, name: "ACME", role, is_personal: false, projects: [{ id: PROJECT, name: "Site public" }] }],
});

const json = (status: number, body?: unknown) =>
  new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const provider = {
  id: PROVIDER,
  org_id: ORG,
  fournisseur: "csaf.example.com",
  metadata_url: "https://csaf.example.com/.well-known/csaf/provider-metadata.json",
  decouvert_par: "well-known",
  editeur: "Example Company ProductCERT",
  namespace: "https://psirt.example.com",
  role: "csaf_trusted_provider",
  cles: [],
  statut: "a_jour",
  derniere_tentative: "2026-11-28T10:00:00Z",
  dernier_succes: "2026-11-28T10:00:00Z",
  derniere_erreur: null,
  dernier_document: "2022-03-17T13:03:42Z",
  documents: 3,
  refus: 0,
  created_at: "2026-11-27T10:00:00Z",
  refus_recents: [],
};

type Answer = (req: Request, path: string) => Response | Promise<Response> | undefined;

/** The settings' CSAF tab signed in with `role`; `answer` serves the calls (anything else: 404). */
async function renderCsaf(role: Role, answer: Answer) {
  const calls: { method: string; path: string; query: string; body: unknown }[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: Request | string, init?: RequestInit) => {
      const req = input instanceof Request ? input : new Request(new URL(input, location.origin), init);
      const url = new URL(req.url);
      const text = await req.clone().text();
      calls.push({ method: req.method, path: url.pathname, query: url.search, body: text ? JSON.parse(text) : undefined });
      if (url.pathname === "/auth/session") return json(200, session(role));
      return (await answer(req, url.pathname)) ?? json(404, { detail: "Not Found" });
    }),
  );
  vi.resetModules();
  const { routeTree } = await import("../../router");
  const { I18nProvider } = await import("../../i18n/i18n");
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const router = createRouter({
    routeTree,
    context: { queryClient },
    history: createMemoryHistory({ initialEntries: ["/settings/csaf"] }),
  });
  render(
    <I18nProvider initial="fr">
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </I18nProvider>,
  );
  return calls;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("Settings › Fournisseurs CSAF", () => {
  it("an admin stops following a provider only after confirming; Annuler sends nothing; the card goes and the status says so", async () => {
    let followed = [provider];
    const calls = await renderCsaf("admin", (req, path) => {
      if (path === "/api/v1/feeds") return json(200, { sources: [], fournisseurs_csaf: followed });
      if (path === `${PROVIDERS}/${PROVIDER}` && req.method === "DELETE") {
        followed = [];
        return new Response(null, { status: 204 });
      }
    });
    const list = await screen.findByRole("list", { name: "Fournisseurs suivis" }, FIRST);
    await within(list).findByText(/Example Company ProductCERT/);
    fireEvent.click(within(list).getByRole("button", { name: "Ne plus suivre Example Company ProductCERT" }));
    const ask = within(list).getByRole("group", { name: /Ne plus suivre Example Company ProductCERT \?/ });
    expect(ask.textContent).toContain("les alertes et propositions déjà faites restent");
    fireEvent.click(within(ask).getByRole("button", { name: "Annuler" }));
    expect(within(list).queryByRole("group")).toBeNull();
    expect(calls.filter((c) => c.method === "DELETE")).toEqual([]);

    fireEvent.click(within(list).getByRole("button", { name: "Ne plus suivre Example Company ProductCERT" }));
    fireEvent.click(within(list).getByRole("button", { name: "Confirmer : ne plus suivre Example Company ProductCERT" }));
    await screen.findByText("Example Company ProductCERT n'est plus suivi.");
    expect(calls.filter((c) => c.method === "DELETE").map((c) => c.path)).toEqual([`${PROVIDERS}/${PROVIDER}`]);
    await within(list).findByText("L'organisation ne suit encore aucun fournisseur.");
  });

  it("a member sees the providers but no button to stop following one", async () => {
    await renderCsaf("member", (_req, path) => {
      if (path === "/api/v1/feeds") return json(200, { sources: [], fournisseurs_csaf: [provider] });
    });
    const list = await screen.findByRole("list", { name: "Fournisseurs suivis" }, FIRST);
    await within(list).findByText(/Example Company ProductCERT/);
    expect(within(list).queryByRole("button", { name: /Ne plus suivre/ })).toBeNull();
  });

  it("reads an aggregator's list, marks the providers already followed, and follows another by its metadata address", async () => {
    const other = "https://cert.example/advisories/csaf/provider-metadata.json";
    const calls = await renderCsaf("admin", (req, path) => {
      if (path === "/api/v1/feeds") return json(200, { sources: [], fournisseurs_csaf: [provider] });
      if (path === AGGREGATOR)
        return json(200, {
          url: "https://aggregator.example/.well-known/csaf-aggregator/aggregator.json",
          nom: "Example Aggregator",
          namespace: "https://aggregator.example",
          categorie: "aggregator",
          derniere_maj: "2021-07-12T22:35:38.978Z",
          fournisseurs: [
            {
              type: "csaf_provider",
              metadata_url: provider.metadata_url,
              editeur: "Example Company ProductCERT",
              namespace: "https://psirt.example.com",
              categorie: "vendor",
              role: null,
              derniere_maj: null,
              miroirs: [],
              suivi: PROVIDER,
            },
            {
              type: "csaf_provider",
              metadata_url: other,
              editeur: "Example Coordinator CERT",
              namespace: "https://cert.example",
              categorie: "coordinator",
              role: null,
              derniere_maj: null,
              miroirs: [],
              suivi: null,
            },
          ],
        });
      if (path === PROVIDERS && req.method === "POST")
        return json(201, {
          fournisseur: { ...provider, id: "77777777-7777-4777-8777-777777777777", fournisseur: other, editeur: "Example Coordinator CERT" },
          synchronisation: {
            provider_id: PROVIDER,
            status: "synced",
            appliquees: 2,
            inchangees: 0,
            refusees: [],
            alertes: 0,
            propositions: 0,
          },
        });
    });
    fireEvent.change(await screen.findByLabelText("Domaine ou adresse de l'aggregator.json", {}, FIRST), {
      target: { value: "aggregator.example" },
    });
    fireEvent.click(screen.getByRole("button", { name: "Lire la liste" }));
    const listed = await screen.findByRole("list", { name: "Fournisseurs listés par Example Aggregator" });
    expect(calls.find((c) => c.path === AGGREGATOR)?.query).toBe("?agregateur=aggregator.example");
    const items = within(listed).getAllByRole("listitem");
    expect(within(items[0]!).getByText("Suivi")).toBeTruthy();
    expect(within(items[0]!).queryByRole("button")).toBeNull();
    fireEvent.click(within(items[1]!).getByRole("button", { name: "Suivre Example Coordinator CERT" }));
    await screen.findByText("Example Coordinator CERT suivi : 2 avis retenus, 0 refusé.");
    expect(calls.filter((c) => c.method === "POST").map((c) => [c.path, c.body])).toEqual([[PROVIDERS, { fournisseur: other }]]);
  });
});
