import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import type { ApiKeyContext } from "../platform/auth/context.js";
import { DomainError, Invalid } from "../platform/errors.js";
import { MCP } from "../platform/messages.js";
import { runTool, TOOLS, type ToolDef, type ToolServices } from "./tools.js";

const INSTRUCTIONS =
  "Vigie watches vulnerabilities for the projects of one organization (the API key's). Tools read workflows and their runs, alerts, cases, CVEs and stack items; import_sbom loads an SBOM into a stack (a key with the stacks-write scope); a project outside the key's reach does not exist (« Projet introuvable »).";

/**
 * The tool error for a failure: a domain error's own (French) message — « Projet introuvable »,
 * « Workflow introuvable », a rule's issues — else a generic message, the error being logged
 * (no SQL or stack trace leaks, as on REST).
 */
export function toolError(err: unknown, log: Logger): CallToolResult {
  let text: string;
  if (err instanceof Invalid) text = err.issues.map((i) => `${i.loc.join(".")} : ${i.message}`).join("\n");
  else if (err instanceof DomainError) text = err.message;
  else {
    log.error({ err }, "MCP tool failed");
    text = MCP.internalError;
  }
  return { content: [{ type: "text", text }], isError: true };
}

async function call(def: ToolDef, args: unknown, caller: ApiKeyContext, services: ToolServices, log: Logger): Promise<CallToolResult> {
  try {
    const out = (await runTool(def, args as Record<string, unknown>, caller, services)) as Record<string, unknown>;
    return { structuredContent: out, content: [{ type: "text", text: JSON.stringify(out) }] };
  } catch (err) {
    return toolError(err, log);
  }
}

/**
 * An MCP server for one request's caller (stateless Streamable HTTP: a server and a transport per
 * request). The SDK lists each tool's Zod schemas as JSON Schema (z.toJSONSchema), validates the
 * arguments against the input schema and the structured result against the output schema.
 */
export function createMcpServer(caller: ApiKeyContext, services: ToolServices, log: Logger, version: string): McpServer {
  const server = new McpServer({ name: "vigie", version }, { instructions: INSTRUCTIONS });
  for (const def of TOOLS) {
    server.registerTool(
      def.name,
      {
        title: def.title,
        description: def.description,
        inputSchema: def.input,
        outputSchema: def.output,
        // A write tool (one that declares a scope) changes the project's data: replaying it with the same arguments changes nothing more.
        annotations: def.scope
          ? { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }
          : { readOnlyHint: true, openWorldHint: false },
      },
      (args: unknown) => call(def, args, caller, services, log),
    );
  }
  return server;
}
