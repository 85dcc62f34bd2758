import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import type { ApiKeyContext } from "../platform/auth/context.js";
import type { ToolServices } from "./tools.js";

export const MCP_PATH = "/mcp";

export interface McpHttpOptions {
  /** The API-key authenticator of /api/v1 (401 `Not authenticated`, 429; counts the call). */
  authenticate(req: FastifyRequest): Promise<ApiKeyContext>;
  /** Headers the answer carries beyond the protocol's (X-RateLimit-*), read once authenticated. */
  headers(req: FastifyRequest): Record<string, string>;
  services: ToolServices;
  version: string;
}

/**
 * The MCP SDK and the tools' server, loaded at the first MCP request: a third of a second and 300 KB
 * of JavaScript off every process start (the CLI's, the workers') that never answers MCP.
 */
let sdk: Promise<[typeof import("@modelcontextprotocol/sdk/server/streamableHttp.js"), typeof import("./server.js")]> | undefined;
const loadSdk = () => (sdk ??= Promise.all([import("@modelcontextprotocol/sdk/server/streamableHttp.js"), import("./server.js")]));

/** JSON-RPC's answer to a body that is not JSON, as the SDK's transport gives it. */
const PARSE_ERROR = { jsonrpc: "2.0", error: { code: -32700, message: "Parse error: Invalid JSON" }, id: null };

/**
 * The MCP server at /mcp: Streamable HTTP, stateless (a server and a transport per request, so
 * that any process of a multi-process deployment answers any request; no session id, no
 * server-to-client stream). POST carries JSON-RPC and is answered in JSON; GET and DELETE (the
 * stream and session ends of stateful servers) answer 405. Everything before the protocol —
 * authentication, the hourly limit, the body limits — answers `{"detail": …}` as REST does.
 *
 * Not in the OpenAPI document: a JSON-RPC endpoint whose operations are the tools, discovered with
 * `tools/list` (each with its JSON Schemas); the README documents it.
 */
export function registerMcp(app: FastifyInstance, opts: McpHttpOptions): void {
  app.post(MCP_PATH, { schema: { hide: true } }, async (req, reply) => {
    const caller = await opts.authenticate(req);
    let message: unknown;
    try {
      message = JSON.parse(req.rawBody ?? "");
    } catch {
      return reply.code(400).headers(opts.headers(req)).send(PARSE_ERROR);
    }
    const log = req.log as unknown as Logger;
    const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await loadSdk();
    const server = createMcpServer(caller, opts.services, log, opts.version);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // The transport writes the answer itself on the raw response; Fastify's onSend hooks do not run.
    reply.hijack();
    for (const [name, value] of Object.entries(opts.headers(req))) reply.raw.setHeader(name, value);
    reply.raw.on("close", () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req.raw, reply.raw, message);
    } catch (err) {
      log.error({ err }, "MCP request failed");
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { "content-type": "application/json" });
        reply.raw.end(JSON.stringify({ detail: "Internal Server Error" }));
      } else reply.raw.destroy();
    }
  });
  // No server-to-client stream (GET) nor session to end (DELETE) in stateless mode.
  app.route({
    method: ["GET", "PUT", "PATCH", "DELETE"],
    url: MCP_PATH,
    schema: { hide: true },
    handler: async (_req, reply) => reply.code(405).header("allow", "POST").send({ detail: "Method Not Allowed" }),
  });
}
