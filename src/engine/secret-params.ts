import type { Issue } from "../platform/errors.js";
import { SecretBox, SecretError } from "../platform/secrets.js";
import type { ActionContext, ActionHandler } from "./actions.js";
import type { Graph, ShortAction, StoredGraph } from "./graph.js";
import type { ActionName } from "./vocabulary.js";

/**
 * The action parameters that are secrets: stored encrypted, shown masked, given in clear only to
 * the action's handler. A masked value is "••••" followed by the secret's last 4 characters
 * (only "••••" for a secret shorter than 12 characters); a write that sends back the masked
 * value it read keeps the stored secret.
 */
export const SECRET_PARAMS: Partial<Record<ActionName, readonly string[]>> = {
  notify_webhook: ["secret"],
  notify_slack: ["webhook_url"],
  notify_teams: ["webhook_url"],
};

export const MASK = "••••";

/** The masked form of a secret. */
export function maskSecret(clear: string): string {
  return clear.length >= 12 ? `${MASK}${clear.slice(-4)}` : MASK;
}

function isMasked(value: unknown): value is string {
  return typeof value === "string" && value.startsWith(MASK);
}

type Params = Record<string, unknown>;
type StoredAction = Extract<StoredGraph["nodes"][number], { type: "action" }>;
/** The parts of a write body that carry action parameters (graph form, short form). */
export interface SecretBearingBody {
  graph?: Graph | null;
  actions?: ShortAction[] | null;
}

/** Secret parameters of workflows: sealing, masking, unmasking, decrypting. */
export class GraphSecrets {
  constructor(private readonly box: SecretBox) {}

  private mapParams(graph: StoredGraph, f: (name: string, value: string, node: StoredAction) => unknown): StoredGraph {
    return {
      ...graph,
      nodes: graph.nodes.map((n) => {
        const names = n.type === "action" ? SECRET_PARAMS[n.action] : undefined;
        if (n.type !== "action" || !names) return n;
        const params: Params = { ...n.params };
        for (const name of names) if (typeof params[name] === "string") params[name] = f(name, params[name] as string, n);
        return { ...n, params };
      }),
    };
  }

  /**
   * The graph a write stores: every secret parameter encrypted, except that a secret `unmask`
   * restored gets back the very ciphertext it came from (`reuse`, clear → stored). A value the
   * client sent that merely looks encrypted is encrypted like any other: Vigie never adopts a
   * ciphertext it did not issue for this workflow.
   */
  seal(graph: StoredGraph, reuse: ReadonlyMap<string, string> = new Map()): StoredGraph {
    return this.mapParams(graph, (_n, v) => reuse.get(v) ?? this.box.encrypt(v));
  }

  /** A stored graph with its clear secret parameters encrypted, the encrypted ones kept (maintenance). */
  sealClear(graph: StoredGraph): StoredGraph {
    return this.mapParams(graph, (_n, v) => (SecretBox.isEncrypted(v) ? v : this.box.encrypt(v)));
  }

  /** The clear text of a stored value (a clear legacy value as it is); null when it cannot be read. */
  private reveal(value: string): string | null {
    if (!SecretBox.isEncrypted(value)) return value;
    try {
      return this.box.decrypt(value);
    } catch (err) {
      if (err instanceof SecretError) return null;
      throw err;
    }
  }

  /** The graph any answer shows: every secret parameter masked (an unreadable one as "••••"). */
  mask(graph: StoredGraph): StoredGraph {
    return this.mapParams(graph, (_n, v) => maskSecret(this.reveal(v) ?? ""));
  }

  /**
   * A write body with each masked value replaced by the clear secret it stands for in `current`
   * (the stored graph): the secret of the same node and parameter when its mask matches (graph
   * form), else the one secret of that action and parameter with that mask. A masked value that
   * stands for nothing (or on creation, where nothing is stored) is an issue: send the secret.
   */
  unmask<B extends SecretBearingBody>(
    body: B,
    current: StoredGraph | null,
  ): { body: B; issues: Issue[]; restored: Map<string, string>; reuse: Map<string, string> } {
    const issues: Issue[] = [];
    const restored = new Map<string, string>(); // clear → the mask the client sent
    const reuse = new Map<string, string>(); // clear → its stored ciphertext
    const stored = (current?.nodes ?? []).filter((n): n is StoredAction => n.type === "action");
    const restore = (action: ActionName, params: Params | null | undefined, nodeId: string | null, loc: (string | number)[]) => {
      const names = SECRET_PARAMS[action];
      if (!params || !names) return params;
      const out: Params = { ...params };
      for (const name of names) {
        const sent = out[name];
        if (!isMasked(sent)) continue;
        const candidates = stored
          .filter((n) => n.action === action && typeof n.params[name] === "string")
          .map((n) => ({ id: n.id, stored: n.params[name] as string, clear: this.reveal(n.params[name] as string) }))
          .filter((c): c is { id: string; stored: string; clear: string } => c.clear !== null && maskSecret(c.clear) === sent);
        const same = candidates.find((c) => c.id === nodeId);
        const distinct = new Set(candidates.map((c) => c.clear));
        const chosen = same ?? (distinct.size === 1 ? candidates[0] : undefined);
        const clear = chosen?.clear;
        if (clear === undefined) {
          issues.push({
            loc: [...loc, name],
            message:
              distinct.size > 1
                ? "valeur masquée ambiguë : plusieurs secrets enregistrés lui correspondent ; envoyez le secret en clair"
                : "valeur masquée qui ne correspond à aucun secret enregistré ; envoyez le secret en clair",
            input: sent,
          });
        } else {
          out[name] = clear;
          restored.set(clear, sent);
          if (SecretBox.isEncrypted(chosen!.stored)) reuse.set(clear, chosen!.stored);
        }
      }
      return out;
    };
    let result: B = body;
    if (body.graph) {
      const nodes = body.graph.nodes.map((n, i) =>
        n.type === "action" ? { ...n, params: restore(n.action, n.params, n.id, ["body", "graph", "nodes", i, "action", "params"]) } : n,
      );
      result = { ...result, graph: { ...body.graph, nodes } };
    }
    if (body.actions) {
      const actions = body.actions.map((a, i) => ({ ...a, params: restore(a.type, a.params, null, ["body", "actions", i, "params"]) }));
      result = { ...result, actions };
    }
    return { body: result, issues, restored, reuse };
  }

  /** A body for request fingerprints: each secret replaced by its keyed digest (no clear secret in a stored hash). */
  fingerprintForm<B extends SecretBearingBody>(body: B): B {
    const digest = (action: ActionName, params: Params | null | undefined) => {
      const names = SECRET_PARAMS[action];
      if (!params || !names) return params;
      const out: Params = { ...params };
      for (const name of names) if (typeof out[name] === "string") out[name] = `hmac:${this.box.digest(out[name] as string)}`;
      return out;
    };
    let result: B = body;
    if (body.graph)
      result = {
        ...result,
        graph: {
          ...body.graph,
          nodes: body.graph.nodes.map((n) => (n.type === "action" ? { ...n, params: digest(n.action, n.params) } : n)),
        },
      };
    if (body.actions) result = { ...result, actions: body.actions.map((a) => ({ ...a, params: digest(a.type, a.params) })) };
    return result;
  }

  /**
   * An action node's parameters with its secrets in clear, for its handler (the engine calls this
   * right before invoking it). SecretError when a secret cannot be read (another key, altered).
   */
  decryptParams(action: ActionName, params: Params): Params {
    const names = SECRET_PARAMS[action];
    if (!names) return params;
    const out: Params = { ...params };
    for (const name of names) {
      if (isMasked(out[name])) throw new SecretError(`${action}.${name} est masqué : lisez le graphe stocké, pas une réponse de l'API`);
      if (SecretBox.isEncrypted(out[name])) out[name] = this.box.decrypt(out[name] as string);
    }
    return out;
  }

  /** These handlers, each called with its node's secrets decrypted (decryptParams). */
  decrypting<H extends Partial<Record<ActionName, ActionHandler>>>(handlers: H): H {
    return Object.fromEntries(
      Object.entries(handlers).map(([action, handler]) => [
        action,
        (ctx: ActionContext, params: Params) => handler!(ctx, this.decryptParams(action as ActionName, params)),
      ]),
    ) as H;
  }
}

/**
 * Issues with every secret that `unmask` restored put back to its masked form: a 422 echoes the
 * inputs it refuses, and must not reveal a stored secret the client only sent masked.
 */
export function scrubIssues(issues: Issue[], restored: Map<string, string>): Issue[] {
  if (restored.size === 0) return issues;
  const scrub = (v: unknown): unknown => {
    if (typeof v === "string") return restored.get(v) ?? v;
    if (Array.isArray(v)) return v.map(scrub);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x)]));
    return v;
  };
  return issues.map((i) => ({ ...i, input: scrub(i.input) }));
}
