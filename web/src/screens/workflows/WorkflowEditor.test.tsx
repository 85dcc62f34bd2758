import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createMemoryHistory, createRouter, RouterProvider } from "@tanstack/react-router";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

const ORG = "11111111-1111-4111-8111-111111111111";
const PROJECT = "22222222-2222-4222-8222-222222222222";
const WF = "33333333-3333-4333-8333-333333333333";

const session = (role: string) => ({
  user: { id: "44444444-4444-4444-8444-444444444444", email: "a@example.org" },
  expires_at: "2030-01-01T00:00:00.000Z",
  organizations: [{ id: ORG, name: "ACME", role, is_personal: false, projects: [{ id: PROJECT, name: "Production" }] }],
});

const workflow = {
  id: WF,
  name: "Alerte SOC",
  description: null,
  is_enabled: true,
  is_default: false,
  family: "alerting",
  version: 3,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  graph: {
    nodes: [
      { id: "trigger", type: "trigger", event: "cve.new_match", params: {} },
      {
        id: "hook",
        type: "action",
        action: "notify_webhook",
        params: { url: "https://hooks.example.org/x", secret: "••••long" },
        on_error: "continue",
      },
    ],
    edges: [{ from: "trigger", to: "hook" }],
  },
};

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** The app's routes in memory at `url`; `answer` answers what the test is about, the rest is the session and the workflow. */
async function renderAt(url: string, role: string, answer: (req: Request, path: string) => Response | undefined) {
  const calls: { method: string; path: string; headers: Headers; body: unknown }[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: Request | string, init?: RequestInit) => {
      const req = input instanceof Request ? input : new Request(new URL(input, location.origin), init);
      const path = new URL(req.url).pathname;
      const text = req.method === "GET" ? "" : await req.clone().text();
      calls.push({ method: req.method, path, headers: req.headers, body: text ? JSON.parse(text) : null });
      const own = answer(req, path);
      if (own) return own;
      if (path === "/auth/session") return json(200, session(role));
      if (path === `/projects/${PROJECT}/workflows/${WF}`) return json(200, workflow);
      if (path.endsWith("/runs")) return json(200, []);
      return json(404, { detail: "introuvable" });
    }),
  );
  vi.stubGlobal(
    "ResizeObserver",
    class {
      observe() {}
      unobserve() {}
      disconnect() {}
    },
  );
  vi.resetModules();
  const { routeTree } = await import("../../router");
  const { I18nProvider } = await import("../../i18n/i18n");
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const router = createRouter({ routeTree, context: { queryClient }, history: createMemoryHistory({ initialEntries: [url] }) });
  const view = render(
    <I18nProvider initial="fr">
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </I18nProvider>,
  );
  return { calls, router, view };
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const patchPath = `/api/v1/organizations/${ORG}/projects/${PROJECT}/workflows/${WF}`;

describe("the workflow editor", () => {
  it("draws a 422 on the node its loc points at (red outline, message), in the list and on the parameter", async () => {
    const { calls, view } = await renderAt(`/p/${PROJECT}/workflows/${WF}`, "admin", (req, path) =>
      req.method === "PATCH" && path === patchPath
        ? json(422, {
            detail: [
              {
                type: "value_error",
                loc: ["body", "graph", "nodes", 1, "action", "params", "url"],
                msg: "Value error, une URL http:// ou https:// est attendue",
                input: "x",
              },
            ],
          })
        : undefined,
    );
    fireEvent.click(await screen.findByRole("button", { name: "Enregistrer" }));
    const item = await screen.findByRole("button", { name: "Voir le nœud hook" });
    expect(screen.getByText(/Une erreur empêche l'enregistrement/)).toBeTruthy();
    const node = view.container.querySelector('.react-flow__node[data-id="hook"] .wf-node')!;
    expect(node.className).toContain("wf-node-invalid");
    expect(node.textContent).toContain("params.url : une URL http:// ou https:// est attendue");
    expect(node.textContent).not.toContain("Value error");
    expect(view.container.querySelector('.react-flow__node[data-id="trigger"] .wf-node')!.className).not.toContain("wf-node-invalid");
    // The PATCH carried the version read, and the secret as the server masked it (never anything else).
    const patch = calls.find((c) => c.method === "PATCH")!;
    expect(patch.body).toMatchObject({ version: 3, name: "Alerte SOC" });
    expect((patch.body as typeof workflow).graph.nodes[1]).toMatchObject({ params: { secret: "••••long" } });
    // From the list, the node's panel: the parameter is marked invalid.
    fireEvent.click(item);
    const url = await screen.findByLabelText("url");
    expect(url.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(url.getAttribute("aria-describedby")!)!.textContent).toContain("une URL http:// ou https://");
  });

  it("keeps a masked secret unless a new one is typed, and never shows the stored one in a field", async () => {
    const { calls } = await renderAt(`/p/${PROJECT}/workflows/${WF}`, "admin", (req) =>
      req.method === "PATCH" ? json(200, { ...workflow, version: 4 }) : undefined,
    );
    fireEvent.click(await screen.findByRole("button", { name: "Modifier hook" }));
    expect(screen.getByText("Secret enregistré : ••••long")).toBeTruthy();
    const secret = screen.getByLabelText("Nouvelle valeur de secret") as HTMLInputElement;
    expect(secret.value).toBe("");
    expect(secret.type).toBe("password");
    fireEvent.change(secret, { target: { value: "un tout nouveau secret" } });
    fireEvent.click(screen.getByRole("button", { name: "Enregistrer" }));
    await waitFor(() => expect(calls.some((c) => c.method === "PATCH")).toBe(true));
    const sent = calls.find((c) => c.method === "PATCH")!.body as typeof workflow;
    expect(sent.graph.nodes[1]!.params).toEqual({ url: "https://hooks.example.org/x", secret: "un tout nouveau secret" });
    // The editor starts afresh on the version saved, and says so.
    expect((await screen.findByRole("status")).textContent).toBe("Workflow enregistré.");
    expect(screen.getByText("version 4")).toBeTruthy();
  });

  it("chooses a digest on a notify node (weekly, a day and a Paris hour, « rien à signaler ») and back to immediate", async () => {
    const { calls } = await renderAt(`/p/${PROJECT}/workflows/${WF}`, "admin", (req) =>
      req.method === "PATCH" ? json(200, { ...workflow, version: 4 }) : undefined,
    );
    fireEvent.click(await screen.findByRole("button", { name: "Modifier hook" }));
    const delivery = screen.getByLabelText("Envoi") as HTMLSelectElement;
    expect(delivery.value).toBe("immediate");
    expect(screen.queryByLabelText("Fréquence du résumé")).toBeNull();
    fireEvent.change(delivery, { target: { value: "digest" } });
    fireEvent.change(screen.getByLabelText("Fréquence du résumé"), { target: { value: "weekly" } });
    fireEvent.change(screen.getByLabelText("Jour"), { target: { value: "5" } });
    fireEvent.change(screen.getByLabelText("Heure (heure de Paris)"), { target: { value: "17" } });
    fireEvent.change(screen.getByLabelText("Période sans événement"), { target: { value: "rien_a_signaler" } });
    fireEvent.click(screen.getByRole("button", { name: "Enregistrer" }));
    await waitFor(() => expect(calls.some((c) => c.method === "PATCH")).toBe(true));
    const sent = calls.find((c) => c.method === "PATCH")!.body as typeof workflow;
    expect(sent.graph.nodes[1]!.params).toEqual({
      url: "https://hooks.example.org/x",
      secret: "••••long",
      delivery: { mode: "digest", every: "weekly", weekday: 5, hour: 17, empty: "rien_a_signaler" },
    });
    // Back to immediate: the parameter goes, as in a workflow written before digests.
    fireEvent.click(await screen.findByRole("button", { name: "Modifier hook" }));
    fireEvent.change(screen.getByLabelText("Envoi"), { target: { value: "digest" } });
    fireEvent.change(screen.getByLabelText("Envoi"), { target: { value: "immediate" } });
    expect(screen.queryByLabelText("Fréquence du résumé")).toBeNull();
  });

  it("previews the next digest from the events waiting, and lists the last ones", async () => {
    await renderAt(`/p/${PROJECT}/workflows/${WF}`, "viewer", (_req, path) =>
      path === `${patchPath}/digest-preview`
        ? json(200, {
            workflow_id: WF,
            resumes: [
              {
                node_id: "hook",
                action: "notify_webhook",
                every: "daily",
                fait_pour_la_limite: false,
                prochain_envoi: "2026-11-29T07:00:00.000Z",
                depuis: null,
                total: 2,
                reportes_par_limite: 1,
                envoye_si_vide: false,
                groupes: [{ palier: "P1", libelle: "P1", total: 2, produits: [{ nom: "Palo Alto Networks PAN-OS", total: 2 }] }],
                titre: "Résumé Vigie : 2 événements",
                texte: "Résumé Vigie : 2 événements\n",
              },
            ],
            derniers: [
              {
                id: "55555555-5555-4555-8555-555555555555",
                node_id: "hook",
                statut: "sent",
                ferme_a: "2026-11-28T07:00:10.000Z",
                envoye_a: "2026-11-28T07:00:11.000Z",
                total: 5,
                tentatives: 1,
                erreur: null,
              },
            ],
          })
        : undefined,
    );
    const panel = await screen.findByRole("region", { name: "Prochains résumés" });
    expect(panel.textContent).toMatch(/hook · chaque jour · envoi prévu le .+ · 2 événements en attente/);
    expect(panel.textContent).toContain("dont 1 reporté par la limite horaire du workflow");
    expect(panel.textContent).toContain("P1 : 2 — Palo Alto Networks PAN-OS (2)");
    expect(panel.textContent).toMatch(/hook · envoyé · 5/);
  });

  it("says a 409 version_perimee and offers to reload", async () => {
    let reads = 0;
    await renderAt(`/p/${PROJECT}/workflows/${WF}`, "admin", (req, path) => {
      if (req.method === "PATCH") return json(409, { detail: { code: "version_perimee", message: "version périmée", current_version: 5 } });
      if (path === `/projects/${PROJECT}/workflows/${WF}`) return json(200, { ...workflow, version: ++reads === 1 ? 3 : 5 });
      return undefined;
    });
    fireEvent.click(await screen.findByRole("button", { name: "Enregistrer" }));
    const alert = await screen.findByText(/modifié entre-temps \(version 5 sur le serveur\)/);
    expect(alert).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Recharger" }));
    expect(await screen.findByText("version 5")).toBeTruthy();
  });

  it("creates with POST and an Idempotency-Key, the same key when the same body is sent again", async () => {
    const { calls } = await renderAt(`/p/${PROJECT}/workflows/new`, "owner", (req) =>
      req.method === "POST" ? json(503, { detail: "indisponible" }) : undefined,
    );
    fireEvent.change(await screen.findByLabelText("Nom"), { target: { value: "Nouveau" } });
    fireEvent.click(screen.getByRole("button", { name: /notify_webhook/ }));
    fireEvent.click(screen.getByRole("button", { name: "Enregistrer" }));
    await screen.findByText("indisponible");
    fireEvent.click(screen.getByRole("button", { name: "Enregistrer" }));
    await waitFor(() => expect(calls.filter((c) => c.method === "POST")).toHaveLength(2));
    const [a, b] = calls.filter((c) => c.method === "POST");
    expect(a!.headers.get("idempotency-key")).toMatch(/^[0-9a-f-]{36}$/);
    expect(b!.headers.get("idempotency-key")).toBe(a!.headers.get("idempotency-key"));
    expect(a!.body).toMatchObject({
      name: "Nouveau",
      graph: { nodes: [{ type: "trigger" }, { type: "action", action: "notify_webhook" }] },
    });
  });

  it("edits the graph without a mouse: the list's buttons add a node, connect, delete an edge and a node", async () => {
    const { calls } = await renderAt(`/p/${PROJECT}/workflows/${WF}`, "admin", (req) =>
      req.method === "PATCH" ? json(200, { ...workflow, version: 4 }) : undefined,
    );
    fireEvent.click(await screen.findByRole("button", { name: /^\+ Condition/ }));
    fireEvent.change(screen.getByLabelText("De"), { target: { value: "trigger" } });
    fireEvent.change(screen.getByLabelText("Vers"), { target: { value: "condition-1" } });
    fireEvent.click(screen.getByRole("button", { name: "Relier" }));
    fireEvent.change(screen.getByLabelText("De"), { target: { value: "condition-1" } });
    fireEvent.change(screen.getByLabelText("Vers"), { target: { value: "hook" } });
    fireEvent.change(screen.getByLabelText("Branche"), { target: { value: "false" } });
    fireEvent.click(screen.getByRole("button", { name: "Relier" }));
    fireEvent.click(screen.getByRole("button", { name: "Supprimer l'arête trigger → hook" }));
    fireEvent.click(screen.getByRole("button", { name: "Enregistrer" }));
    await waitFor(() => expect(calls.some((c) => c.method === "PATCH")).toBe(true));
    const graph = (calls.find((c) => c.method === "PATCH")!.body as typeof workflow).graph;
    expect(graph.nodes.map((n) => n.id)).toEqual(["trigger", "hook", "condition-1"]);
    expect(graph.edges).toEqual([
      { from: "trigger", to: "condition-1" },
      { from: "condition-1", to: "hook", when: "false" },
    ]);
    // Saved: the editor shows the graph the server answered (here, the one read first); delete a node there.
    fireEvent.click(await screen.findByRole("button", { name: "Supprimer le nœud hook" }));
    expect(screen.queryByRole("button", { name: "Modifier hook" })).toBeNull();
    expect(screen.getByText("Aucune arête.")).toBeTruthy();
  });

  it("is read-only for a viewer: no palette, no save", async () => {
    await renderAt(`/p/${PROJECT}/workflows/${WF}`, "viewer", () => undefined);
    expect(await screen.findByText(/Lecture seule/)).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Enregistrer" })).toBeNull();
    expect(screen.queryByRole("group", { name: "Ajouter un nœud" })).toBeNull();
  });
});

describe("the workflow list", () => {
  it("says why the default workflow cannot be deleted (409 workflow_par_defaut)", async () => {
    await renderAt(`/p/${PROJECT}/workflows`, "admin", (req, path) => {
      if (path === `/api/v1/organizations/${ORG}/projects/${PROJECT}/workflows` && req.method === "GET")
        return json(200, [
          {
            id: WF,
            name: "Par défaut",
            is_enabled: true,
            is_default: true,
            created_at: workflow.created_at,
            updated_at: workflow.updated_at,
          },
        ]);
      if (req.method === "DELETE") return json(409, { detail: { code: "workflow_par_defaut", message: "…" } });
      return undefined;
    });
    vi.stubGlobal("confirm", () => true);
    fireEvent.click(await screen.findByRole("button", { name: "Supprimer Par défaut" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Le workflow par défaut du projet ne peut pas être supprimé.");
  });
});
