import { afterEach, describe, expect, it, vi } from "vitest";

const MARK = "vigie.signed-in";

/** The session module over a stubbed fetch answering `answers` in turn; returns the calls made. */
async function load(...answers: Response[]) {
  const calls: string[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: Request | string) => {
      calls.push(new URL(input instanceof Request ? input.url : input, location.origin).pathname);
      return answers.shift() ?? new Response(null, { status: 500 });
    }),
  );
  // Fresh modules: the API client takes the stubbed fetch.
  vi.resetModules();
  const { api } = await import("./client");
  const { sessionQuery } = await import("./session");
  return { api, calls, ask: () => (sessionQuery.queryFn as () => Promise<unknown>)() };
}
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

describe("the session check", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    localStorage.setItem(MARK, "1");
  });

  it("a browser that never signed in here asks nothing (no 401 in the console)", async () => {
    localStorage.removeItem(MARK);
    const { ask, calls } = await load();
    expect(await ask()).toBeNull();
    expect(calls).toEqual([]);
  });

  it("a sign-in leaves the mark, a 401 removes it, a sign-out too", async () => {
    localStorage.removeItem(MARK);
    const { api, ask, calls } = await load(
      json(200, { token: "t", expires_at: "2026-12-01T00:00:00Z" }),
      json(401, { detail: "Non authentifié" }),
      new Response(null, { status: 204 }),
    );
    await api.POST("/auth/login", { body: { email: "a@b.fr", password: "x" } });
    expect(localStorage.getItem(MARK)).toBe("1");
    expect(await ask()).toBeNull();
    expect(localStorage.getItem(MARK)).toBeNull();
    localStorage.setItem(MARK, "1");
    await api.POST("/auth/logout");
    expect(localStorage.getItem(MARK)).toBeNull();
    expect(calls).toEqual(["/auth/login", "/auth/session", "/auth/logout"]);
  });
});
