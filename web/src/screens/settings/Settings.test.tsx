import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createMemoryHistory, createRouter, RouterProvider } from "@tanstack/react-router";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Role } from "../../api/session";

const ORG = "11111111-1111-4111-8111-111111111111";
const PROJECT = "22222222-2222-4222-8222-222222222222";
const ME = "33333333-3333-4333-8333-333333333333";
const OWNER = "44444444-4444-4444-8444-444444444444";

const session = (role: Role) => ({
  user: { id: ME, email: "moi@example.org" },
  expires_at: "2026-12-01T10:00:00Z",
  organizations: [{ id: ORG, name: "ACME", role, is_personal: false, projects: [{ id: PROJECT, name: "Site public" }] }],
});

const json = (status: number, body?: unknown) =>
  new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

type Answer = (req: Request, path: string) => Response | undefined;

/** The app at `url`, signed in with `role`; `answer` serves the settings' calls (anything else: 404). */
async function renderAt(url: string, role: Role, answer: Answer = () => undefined) {
  const calls: { method: string; path: string; body: unknown }[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: Request | string, init?: RequestInit) => {
      const req = input instanceof Request ? input : new Request(new URL(input, location.origin), init);
      const path = new URL(req.url).pathname;
      const text = await req.clone().text();
      calls.push({ method: req.method, path, body: text ? JSON.parse(text) : undefined });
      if (path === "/auth/session") return json(200, session(role));
      return answer(req, path) ?? json(404, { detail: "Not Found" });
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
  return { calls, router };
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const KEYS = `/api/v1/organizations/${ORG}/api-keys`;
const MEMBERS = `/api/v1/organizations/${ORG}/members`;
const SECRET = "vk_abcdefgh_0123456789abcdef0123456789abcdef";
const keyItem = {
  id: "55555555-5555-4555-8555-555555555555",
  prefix: "vk_abcdefgh",
  name: "inventaire",
  org_id: ORG,
  scopes: ["tags-write"],
  project_ids: [PROJECT],
  created_at: "2026-11-20T08:00:00Z",
  last_used_at: null,
  revoked_at: null,
};
const members = [
  { id: OWNER, email: "patronne@example.org", role: "owner", joined_at: "2026-01-01T00:00:00Z" },
  { id: ME, email: "moi@example.org", role: "admin", joined_at: "2026-02-01T00:00:00Z" },
];

describe("API keys", () => {
  it("shows the new key once, with a copy button and a warning; closed, it is gone (the list has its prefix only)", async () => {
    let created = false;
    const { calls } = await renderAt("/settings/keys", "admin", (req, path) => {
      if (path !== KEYS) return;
      if (req.method === "POST") {
        created = true;
        return json(201, { ...keyItem, key: SECRET });
      }
      return json(200, created ? [keyItem] : []);
    });
    expect(await screen.findByText("Aucune clé pour l'instant.")).toBeTruthy();
    // The scopes are the server's enum, each a checkbox; the projects, the organization's.
    expect(screen.getAllByRole("checkbox", { name: /write/ })).toHaveLength(8);
    fireEvent.change(screen.getByLabelText("Nom de la clé"), { target: { value: "inventaire" } });
    fireEvent.click(screen.getByRole("checkbox", { name: /Étiquettes/ }));
    fireEvent.click(screen.getByRole("checkbox", { name: "Site public" }));
    fireEvent.click(screen.getByRole("button", { name: "Créer une clé" }));

    const dialog = await screen.findByRole("dialog", { name: "Clé d'API créée" });
    expect(within(dialog).getByLabelText("Clé « inventaire »")).toHaveProperty("value", SECRET);
    expect(dialog.textContent).toContain("elle ne sera plus jamais affichée");
    expect(within(dialog).getByRole("button", { name: "Copier la clé" })).toBeTruthy();
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({ name: "inventaire", scopes: ["tags-write"], project_ids: [PROJECT] });

    fireEvent.click(within(dialog).getByRole("button", { name: "J'ai copié la clé, fermer" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    const row = await screen.findByRole("row", { name: /inventaire/ });
    expect(row.textContent).toContain("vk_abcdefgh…");
    expect(row.textContent).toContain("Site public");
    expect(document.body.innerHTML).not.toContain(SECRET);
  });

  it("revokes a key after a confirmation, and shows the server's refusal in the user's words (the role named in French)", async () => {
    await renderAt("/settings/keys", "admin", (req, path) => {
      if (path === KEYS) return json(200, [keyItem]);
      if (req.method === "DELETE") return json(403, { detail: "Rôle insuffisant : cette opération exige le rôle « admin »" });
    });
    fireEvent.click(await screen.findByRole("button", { name: "Révoquer la clé inventaire" }));
    const dialog = await screen.findByRole("dialog", { name: "Révoquer la clé ?" });
    fireEvent.click(within(dialog).getByRole("button", { name: "Révoquer" }));
    expect((await within(dialog).findByRole("alert")).textContent).toBe(
      "Votre rôle ne le permet pas : il faut être administrateur (ou plus) dans l'organisation.",
    );
  });

  it("is an admin's: a member sees why, and the keys are not even asked for", async () => {
    const { calls } = await renderAt("/settings/keys", "member");
    expect((await screen.findByText(/Voir et gérer les clés d'API/)).textContent).toContain("« administrateur »");
    expect(screen.queryByRole("button", { name: "Créer une clé" })).toBeNull();
    expect(calls.some((c) => c.path === KEYS)).toBe(false);
  });
});

describe("members and roles", () => {
  it("a viewer reads the members, with no control to change them", async () => {
    await renderAt("/settings/members", "viewer", (_req, path) => (path === MEMBERS ? json(200, members) : undefined));
    expect(await screen.findByRole("row", { name: /patronne@example.org/ })).toBeTruthy();
    expect(screen.queryByRole("combobox", { name: /Rôle de/ })).toBeNull();
    expect(screen.queryByRole("button", { name: /Retirer/ })).toBeNull();
    expect(screen.queryByRole("button", { name: "Ajouter un membre" })).toBeNull();
    expect(screen.getByText(/Ajouter des membres, changer leur rôle ou les retirer/).textContent).toContain("réservé au rôle");
  });

  it("an admin does not touch an owner nor grant the owner role", async () => {
    await renderAt("/settings/members", "admin", (_req, path) => (path === MEMBERS ? json(200, members) : undefined));
    const ownerRole = await screen.findByRole("combobox", { name: "Rôle de patronne@example.org" });
    expect(ownerRole).toHaveProperty("disabled", true);
    expect(screen.getByRole("button", { name: "Retirer patronne@example.org" })).toHaveProperty("disabled", true);
    const mine = screen.getByRole("combobox", { name: "Rôle de moi@example.org" });
    expect(mine).toHaveProperty("disabled", false);
    expect(within(mine).getByRole("option", { name: "propriétaire" })).toHaveProperty("disabled", true);
    const inviteRoles = within(screen.getByLabelText("Rôle"))
      .getAllByRole("option")
      .map((o) => o.textContent);
    expect(inviteRoles).toEqual(["lecteur", "membre", "administrateur"]);
  });

  it("shows the 409 dernier_proprietaire message when the last owner steps down", async () => {
    const message = "Le dernier propriétaire de l'organisation ne peut être ni rétrogradé ni retiré : nommez d'abord un autre propriétaire";
    await renderAt("/settings/members", "owner", (req, path) => {
      if (path === MEMBERS) return json(200, [{ ...members[0], id: ME, email: "moi@example.org" }]);
      if (req.method === "PATCH") return json(409, { detail: { code: "dernier_proprietaire", message } });
    });
    fireEvent.change(await screen.findByRole("combobox", { name: "Rôle de moi@example.org" }), { target: { value: "admin" } });
    expect((await screen.findByRole("alert")).textContent).toBe(message);
  });

  it("asks for an initial password when the server says the address has no account (422 on email)", async () => {
    const { calls } = await renderAt("/settings/members", "admin", (req, path) => {
      if (path === MEMBERS && req.method === "GET") return json(200, members);
      if (path === MEMBERS)
        return json(422, {
          detail: [
            {
              type: "value_error",
              loc: ["body", "email"],
              msg: "aucun compte pour cette adresse : fournir password pour le créer",
              input: "x",
            },
          ],
        });
    });
    fireEvent.change(await screen.findByLabelText("Adresse e-mail"), { target: { value: "nouveau@example.org" } });
    fireEvent.change(screen.getByLabelText("Rôle"), { target: { value: "member" } });
    fireEvent.click(screen.getByRole("button", { name: "Ajouter un membre" }));
    expect((await screen.findByRole("alert")).textContent).toBe(
      "Aucun compte n'existe pour cette adresse : indiquez un mot de passe initial pour le créer.",
    );
    expect(document.activeElement).toBe(screen.getByLabelText("Mot de passe initial (facultatif)"));
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({ email: "nouveau@example.org", role: "member" });
  });
});

describe("organization and project settings by role", () => {
  it("renaming is an owner's, creating a project an admin's", async () => {
    await renderAt("/settings/organization", "admin");
    expect(await screen.findByLabelText("Nouveau nom")).toHaveProperty("disabled", true);
    expect(screen.getByRole("button", { name: "Renommer l'organisation" })).toHaveProperty("disabled", true);
    expect(screen.getByText(/Renommer l'organisation : réservé/).textContent).toContain("« propriétaire »");
    expect(screen.getByLabelText("Nom du projet")).toHaveProperty("disabled", false);
  });

  it("each project setting is shown to all and changed by its role: a member changes the case warning only", async () => {
    const P = `/api/v1/organizations/${ORG}/projects/${PROJECT}`;
    const { calls } = await renderAt("/settings/project", "member", (req, path) => {
      if (path === `${P}/notification-settings`) return json(200, { language: "en" });
      if (path === `${P}/alert-settings`) return json(200, { alert_backfill: "recent", alert_backfill_days: 30 });
      if (path === `${P}/case-settings`)
        return json(200, req.method === "PATCH" ? { exception_warning_days: 14 } : { exception_warning_days: 7 });
    });
    const language = await within(await screen.findByRole("form", { name: "Langue des notifications" })).findByLabelText("Langue");
    expect(language).toHaveProperty("value", "en");
    expect(language).toHaveProperty("disabled", true);
    expect(await screen.findByLabelText("Nombre de jours (1 à 3650)")).toHaveProperty("disabled", true);
    expect(screen.getAllByText(/Modifier ce réglage : réservé au rôle « administrateur »/)).toHaveLength(2);
    const days = await screen.findByLabelText("Jours d'avance (0 à 365)");
    expect(days).toHaveProperty("disabled", false);
    fireEvent.change(days, { target: { value: "14" } });
    fireEvent.submit(days.closest("form")!);
    await screen.findByText("Enregistré.");
    expect(calls.find((c) => c.method === "PATCH")).toMatchObject({ path: `${P}/case-settings`, body: { exception_warning_days: 14 } });
  });
});
