// Test helpers of the cases screens: the app's routes in memory, the server answered by a function.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createMemoryHistory, createRouter, RouterProvider } from "@tanstack/react-router";
import { render } from "@testing-library/react";
import { vi } from "vitest";

export const ORG = "11111111-1111-4111-8111-111111111111";
export const PROJECT = "22222222-2222-4222-8222-222222222222";
export const CASES_PATH = `/api/v1/organizations/${ORG}/projects/${PROJECT}/cases`;

export const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export const session = (role: string) => ({
  user: { id: "33333333-3333-4333-8333-333333333333", email: "a@example.org" },
  expires_at: "2099-01-01T00:00:00Z",
  organizations: [{ id: ORG, name: "ACME", role, is_personal: false, projects: [{ id: PROJECT, name: "Site" }] }],
});

export const kase = (cve_id: string, status: string, over: Record<string, unknown> = {}) => ({
  cve_id,
  status,
  severity: "high",
  notes: null,
  created_at: "2026-11-01T10:00:00Z",
  updated_at: "2026-11-02T10:00:00Z",
  exception: null,
  tags: [],
  risque: null,
  severity_manual: false,
  ...over,
});

/** Renders the app at `url` signed in with `role`; `answer` serves the other calls (null: a 404). Returns the calls made. */
export async function renderAt(url: string, role: string, answer: (req: Request, u: URL) => Response | null) {
  const calls: Request[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: Request | string, init?: RequestInit) => {
      const req = input instanceof Request ? input : new Request(new URL(input, location.origin), init);
      calls.push(req.clone());
      const u = new URL(req.url);
      if (u.pathname === "/auth/session") return json(200, session(role));
      if (u.pathname.endsWith("/tags") && req.method === "GET") return json(200, []);
      return answer(req, u) ?? json(404, { detail: "Introuvable" });
    }),
  );
  // Fresh modules: the API client takes the stubbed fetch.
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
  return { calls };
}
