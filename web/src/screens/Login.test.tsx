import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createMemoryHistory, createRouter, RouterProvider } from "@tanstack/react-router";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

/** The app's routes in memory at `url`, the server answered by `answer`. */
async function renderAt(url: string, answer: (req: Request) => Response) {
  const calls: Request[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: Request | string, init?: RequestInit) => {
      const req = input instanceof Request ? input : new Request(new URL(input, location.origin), init);
      calls.push(req);
      return answer(req);
    }),
  );
  // Fresh modules: the API client takes the stubbed fetch (openapi-fetch reads it when created).
  vi.resetModules();
  const { routeTree } = await import("../router");
  const { I18nProvider } = await import("../i18n/i18n");
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

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

async function signIn() {
  fireEvent.change(await screen.findByLabelText("Adresse e-mail"), { target: { value: "a@example.org" } });
  fireEvent.change(screen.getByLabelText("Mot de passe"), { target: { value: "secret" } });
  fireEvent.click(screen.getByRole("button", { name: "Se connecter" }));
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("the login screen", () => {
  it("says « E-mail ou mot de passe incorrect » on a 401, having posted the form's e-mail and password", async () => {
    const { calls } = await renderAt("/login", () => json(401, { detail: "Identifiants invalides" }));
    await signIn();
    expect((await screen.findByRole("alert")).textContent).toBe("E-mail ou mot de passe incorrect");
    const login = calls.find((c) => new URL(c.url).pathname === "/auth/login")!;
    expect(login.method).toBe("POST");
    expect(await login.json()).toEqual({ email: "a@example.org", password: "secret" });
  });

  it("says how long to wait on a 429 (Retry-After)", async () => {
    await renderAt("/login", () => json(429, { detail: "Trop de tentatives" }, { "retry-after": "17" }));
    await signIn();
    expect((await screen.findByRole("alert")).textContent).toBe("Trop de tentatives : réessayez dans 17 s.");
  });

  it("sends a visitor without a session from a screen to the login, to come back after", async () => {
    const { router } = await renderAt("/feeds", () => json(401, { detail: "Non authentifié" }));
    await screen.findByRole("heading", { name: "Connexion" });
    expect(router.state.location.pathname).toBe("/login");
    expect(router.state.location.search).toEqual({ redirect: "/feeds" });
  });
});
