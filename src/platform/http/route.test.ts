import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { loadConfig } from "../../config.js";
import type { ApiKeyContext, ProjectResolver } from "../auth/context.js";
import { Unauthorized } from "../errors.js";
import { createLogger } from "../log.js";
import { responsesOf, route, type RouteDef } from "./route.js";
import { buildServer } from "./server.js";

const ORG = "00000000-0000-4000-8000-000000000001";
const PROJECT = "00000000-0000-4000-8000-000000000002";
const KEY: ApiKeyContext = {
  kind: "apiKey",
  keyId: "k",
  keyName: "k",
  orgId: ORG,
  orgName: "o",
  scopes: new Set(),
  projectIds: null,
  plan: null,
};

async function serve(routes: RouteDef[], projects: ProjectResolver) {
  return buildServer({
    signInPaths: [],
    logger: createLogger("silent"),
    version: "test",
    trustProxy: false,
    limits: loadConfig({}).http,
    auth: {
      apiKey: async (req) => {
        if (!req.headers.authorization) throw new Unauthorized();
        return KEY;
      },
      session: async () => {
        throw new Unauthorized();
      },
    },
    projects,
    routes,
  });
}

describe("project: true on a route", () => {
  /** GET /p/{org_id}/{project_id}, declaring project resolution. */
  const projectRoute = (handler: (input: { project: { id: string } }) => Promise<unknown>) =>
    route({
      method: "GET",
      url: "/p/:org_id/:project_id",
      operationId: "p",
      auth: "apiKey",
      project: true,
      tags: ["t"],
      summary: "p",
      params: z.object({ org_id: z.uuid(), project_id: z.uuid() }),
      responses: { 200: null },
      handler,
    });

  it("resolves the path's project against the caller before the handler: 404 « Projet introuvable » when the resolver refuses, the handler not called", async () => {
    const handler = vi.fn(async ({ project }: { project: { id: string } }) => ({ id: project.id }));
    const resolve = vi.fn<ProjectResolver["resolve"]>(async (_caller, projectId) =>
      projectId === PROJECT ? { id: PROJECT, orgId: ORG } : null,
    );
    const app = await serve([projectRoute(handler)], { resolve });
    const auth = { authorization: "Bearer x" };
    const other = await app.inject({ method: "GET", url: `/p/${ORG}/00000000-0000-4000-8000-000000000003`, headers: auth });
    expect([other.statusCode, other.json()]).toEqual([404, { detail: "Projet introuvable" }]);
    expect(handler).not.toHaveBeenCalled();
    const own = await app.inject({ method: "GET", url: `/p/${ORG}/${PROJECT}`, headers: auth });
    expect([own.statusCode, own.json()]).toEqual([200, { id: PROJECT }]);
    expect(resolve).toHaveBeenLastCalledWith(KEY, PROJECT, ORG);
    // 401 and 422 come first: the resolver is not asked.
    resolve.mockClear();
    expect((await app.inject({ method: "GET", url: `/p/${ORG}/${PROJECT}` })).statusCode).toBe(401);
    expect((await app.inject({ method: "GET", url: `/p/${ORG}/not-a-uuid`, headers: auth })).statusCode).toBe(422);
    expect(resolve).not.toHaveBeenCalled();
    await app.close();
  });

  it("is refused at registration without a credential or the path's project_id and org_id", async () => {
    const resolve = async () => null;
    const bad = route({
      method: "GET",
      url: "/q/:project_id",
      operationId: "q",
      auth: "apiKey",
      project: true,
      tags: ["t"],
      summary: "q",
      params: z.object({ project_id: z.uuid() }),
      responses: { 200: null },
      handler: async () => null,
    });
    await expect(serve([bad], { resolve })).rejects.toThrow(/project resolution needs/);
  });

  it("documents the 404", () => {
    expect(Object.keys(responsesOf(projectRoute(async () => null)))).toContain("404");
  });
});

describe('project: "query" on a route', () => {
  const queryRoute = (handler: (input: { project?: { id: string } }) => Promise<unknown>) =>
    route({
      method: "GET",
      url: "/s",
      operationId: "s",
      auth: "apiKey",
      project: "query",
      tags: ["t"],
      summary: "s",
      query: z.object({ project_id: z.uuid().optional() }),
      responses: { 200: null },
      handler,
    });

  it("resolves an optional project_id query parameter in the key's organization: undefined when absent, 404 when refused", async () => {
    const handler = vi.fn(async ({ project }: { project?: { id: string } }) => ({ id: project?.id ?? null }));
    const resolve = vi.fn<ProjectResolver["resolve"]>(async (_caller, projectId) =>
      projectId === PROJECT ? { id: PROJECT, orgId: ORG } : null,
    );
    const app = await serve([queryRoute(handler)], { resolve });
    const auth = { authorization: "Bearer x" };
    const none = await app.inject({ method: "GET", url: "/s", headers: auth });
    expect([none.statusCode, none.json()]).toEqual([200, { id: null }]);
    expect(resolve).not.toHaveBeenCalled();
    const own = await app.inject({ method: "GET", url: `/s?project_id=${PROJECT}`, headers: auth });
    expect([own.statusCode, own.json()]).toEqual([200, { id: PROJECT }]);
    expect(resolve).toHaveBeenLastCalledWith(KEY, PROJECT, ORG);
    handler.mockClear();
    const other = await app.inject({ method: "GET", url: "/s?project_id=00000000-0000-4000-8000-000000000003", headers: auth });
    expect([other.statusCode, other.json()]).toEqual([404, { detail: "Projet introuvable" }]);
    expect(handler).not.toHaveBeenCalled();
    expect(Object.keys(responsesOf(queryRoute(async () => null)))).toContain("404");
    await app.close();
  });

  it("is refused at registration without a project_id query parameter", async () => {
    const bad = route({ ...(queryRoute(async () => null) as RouteDef), query: z.object({ q: z.string() }) });
    await expect(serve([bad], { resolve: async () => null })).rejects.toThrow(/project resolution from the query/);
  });
});

describe("org: true on a route", () => {
  const orgRoute = (handler: (input: { org: { id: string; projectIds: ReadonlySet<string> | null } }) => Promise<unknown>) =>
    route({
      method: "GET",
      url: "/o/:org_id",
      operationId: "o",
      auth: "apiKey",
      org: true,
      tags: ["t"],
      summary: "o",
      params: z.object({ org_id: z.uuid() }),
      responses: { 200: null },
      handler,
    });
  const noProject: ProjectResolver = { resolve: async () => null };

  it("resolves the path's organization against the key before the handler: 404 « Organisation introuvable » for another one, the handler not called", async () => {
    const handler = vi.fn(async ({ org }: { org: { id: string; projectIds: ReadonlySet<string> | null } }) => ({
      id: org.id,
      all: org.projectIds === null,
    }));
    const app = await serve([orgRoute(handler)], noProject);
    const auth = { authorization: "Bearer x" };
    const other = await app.inject({ method: "GET", url: `/o/${PROJECT}`, headers: auth });
    expect([other.statusCode, other.json()]).toEqual([404, { detail: "Organisation introuvable" }]);
    expect(handler).not.toHaveBeenCalled();
    const own = await app.inject({ method: "GET", url: `/o/${ORG}`, headers: auth });
    expect([own.statusCode, own.json()]).toEqual([200, { id: ORG, all: true }]);
    expect((await app.inject({ method: "GET", url: `/o/${ORG}` })).statusCode).toBe(401);
    expect((await app.inject({ method: "GET", url: "/o/not-a-uuid", headers: auth })).statusCode).toBe(422);
    expect(handler).toHaveBeenCalledTimes(1);
    await app.close();
  });

  it("is refused at registration without a credential or the path's org_id", async () => {
    const bad = route({
      method: "GET",
      url: "/r/:x",
      operationId: "r",
      auth: "apiKey",
      org: true,
      tags: ["t"],
      summary: "r",
      params: z.object({ x: z.uuid() }),
      responses: { 200: null },
      handler: async () => null,
    });
    await expect(serve([bad], noProject)).rejects.toThrow(/organization resolution needs/);
  });
});
