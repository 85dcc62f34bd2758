import { describe, expect, it } from "vitest";
import { ActionError, type ActionContext, type ActionHandler, type ActionHandlers } from "./actions.js";
import { execute, statusOf, type Step } from "./execute.js";
import type { StoredGraph } from "./graph.js";
import { ACTIONS } from "./vocabulary.js";

/** Handlers that record their calls; `fail` lists the node ids whose action throws. */
function fakeHandlers(fail: string[] = []) {
  const calls: { node: string; action: string; delivery: string }[] = [];
  const make =
    (action: string): ActionHandler =>
    async (ctx: ActionContext) => {
      calls.push({ node: ctx.nodeId, action, delivery: ctx.deliveryId });
      if (fail.includes(ctx.nodeId)) throw new ActionError("HTTP 500", { url: "https://example.test/***" });
      return { detail: `${action} fait`, sent: { node: ctx.nodeId } };
    };
  const handlers = Object.fromEntries(ACTIONS.map((a) => [a, make(a)])) as ActionHandlers;
  return { handlers, calls };
}

const context = {
  event: { id: 42, name: "cve.new_match" as const, cveId: "CVE-2024-3400", alertId: null, payload: {} },
  project: { id: "p", orgId: "o", name: "Production" },
  workflow: { id: "w", name: "Test" },
  runId: "r",
  message: {} as ActionContext["message"],
  signal: new AbortController().signal,
};

const branching: StoredGraph = {
  nodes: [
    { id: "t", type: "trigger", event: "cve.new_match", params: {} },
    { id: "c", type: "condition", match: "all", rules: [{ field: "cve.is_kev", op: "eq", value: true }] },
    { id: "yes", type: "action", action: "notify_webhook", params: { url: "https://example.test/hook" }, on_error: "continue" },
    { id: "no", type: "action", action: "add_tag", params: { tag: "later" }, on_error: "continue" },
    { id: "after", type: "action", action: "create_case", params: {}, on_error: "continue" },
  ],
  edges: [
    { from: "t", to: "c" },
    { from: "c", to: "yes", when: "true" },
    { from: "c", to: "no", when: "false" },
    { from: "yes", to: "after" },
    { from: "no", to: "after" },
  ],
};

const chain = (onError: "continue" | "stop"): StoredGraph => ({
  nodes: [
    { id: "t", type: "trigger", event: "cve.new_match", params: {} },
    { id: "a1", type: "action", action: "notify_webhook", params: { url: "https://example.test/1" }, on_error: onError },
    { id: "a2", type: "action", action: "notify_email", params: { to: ["a@example.test"] }, on_error: "continue" },
  ],
  edges: [
    { from: "t", to: "a1" },
    { from: "a1", to: "a2" },
  ],
});

describe("execute", () => {
  it("conditions choose the edges; actions run in graph order with their delivery id", async () => {
    const { handlers, calls } = fakeHandlers();
    const r = await execute({ graph: branching, event: "cve.new_match", facts: { "cve.is_kev": true }, handlers, context });
    expect(r.steps.map((s) => [s.node, s.outcome])).toEqual([
      ["t", "declenche"],
      ["c", "vrai"],
      ["yes", "succes"],
      ["no", "non_atteint"],
      ["after", "succes"],
    ]);
    expect(calls).toEqual([
      { node: "yes", action: "notify_webhook", delivery: "42:w:yes" },
      { node: "after", action: "create_case", delivery: "42:w:after" },
    ]);
    expect(r.status).toBe("success");
    expect(r.steps[2]!.sent).toEqual({ node: "yes" });

    const other = fakeHandlers();
    const f = await execute({ graph: branching, event: "cve.new_match", facts: {}, handlers: other.handlers, context });
    expect(f.steps.map((s) => s.outcome)).toEqual(["declenche", "faux", "non_atteint", "succes", "succes"]);
    expect(other.calls.map((c) => c.node)).toEqual(["no", "after"]);
  });

  it("another event: the trigger does not fire, nothing runs, status success", async () => {
    const { handlers, calls } = fakeHandlers();
    const r = await execute({ graph: branching, event: "cve.kev_added", facts: {}, handlers, context });
    expect(r.steps.map((s) => s.outcome)).toEqual(["non_declenche", "non_atteint", "non_atteint", "non_atteint", "non_atteint"]);
    expect(calls).toEqual([]);
    expect(r.status).toBe("success");
  });

  it("on_error continue: the next action runs; one success and one failure make partial", async () => {
    const { handlers, calls } = fakeHandlers(["a1"]);
    const r = await execute({ graph: chain("continue"), event: "cve.new_match", facts: {}, handlers, context });
    expect(calls.map((c) => c.node)).toEqual(["a1", "a2"]);
    expect(r.steps.map((s) => s.outcome)).toEqual(["declenche", "echec", "succes"]);
    expect(r.steps[1]).toMatchObject({ error: "HTTP 500", sent: { url: "https://example.test/***" } });
    expect(r.status).toBe("partial");
  });

  it("on_error stop: nothing runs after the failure, which the later steps say; every attempted action failed: failed", async () => {
    const { handlers, calls } = fakeHandlers(["a1"]);
    const r = await execute({ graph: chain("stop"), event: "cve.new_match", facts: {}, handlers, context });
    expect(calls.map((c) => c.node)).toEqual(["a1"]);
    expect(r.steps.map((s) => s.outcome)).toEqual(["declenche", "echec", "non_atteint"]);
    expect(r.steps[2]!.detail).toContain("a1");
    expect(r.status).toBe("failed");
  });

  it("a resumed run keeps the recorded steps and performs only the others", async () => {
    const first = fakeHandlers();
    const recorded: Step[] = [];
    // The first attempt records the trigger and a1, then "dies" (a2 throws a non-action error in record).
    await execute({
      graph: chain("continue"),
      event: "cve.new_match",
      facts: {},
      handlers: first.handlers,
      context,
      record: async (s) => {
        if (s.node === "a2") throw new Error("process killed");
        recorded.push(s);
      },
    }).catch(() => undefined);
    expect(recorded.map((s) => s.node)).toEqual(["t", "a1"]);
    const again = fakeHandlers();
    const r = await execute({
      graph: chain("continue"),
      event: "cve.new_match",
      facts: {},
      handlers: again.handlers,
      context,
      done: new Map(recorded.map((s) => [s.node, s])),
      attempt: 2,
    });
    expect(again.calls.map((c) => c.node)).toEqual(["a2"]);
    expect(r.steps.map((s) => [s.node, s.outcome, s.attempt])).toEqual([
      ["t", "declenche", 1],
      ["a1", "succes", 1],
      ["a2", "succes", 2],
    ]);
    expect(r.status).toBe("success");
  });

  it("a recorded failure with on_error stop still stops the resumed run", async () => {
    const { handlers, calls } = fakeHandlers();
    const done = new Map<string, Step>([
      ["t", { node: "t", type: "trigger", outcome: "declenche", detail: "", started_at: "", duration_ms: 0 }],
      ["a1", { node: "a1", type: "action", outcome: "echec", detail: "", started_at: "", duration_ms: 0, error: "x" }],
    ]);
    const r = await execute({ graph: chain("stop"), event: "cve.new_match", facts: {}, handlers, context, done });
    expect(calls).toEqual([]);
    expect(r.status).toBe("failed");
  });

  it("cve.epss_spike: the trigger fires only from its min_delta on", async () => {
    const graph: StoredGraph = {
      nodes: [
        { id: "t", type: "trigger", event: "cve.epss_spike", params: { min_delta: 0.2 } },
        { id: "a", type: "action", action: "add_tag", params: { tag: "epss" }, on_error: "continue" },
      ],
      edges: [{ from: "t", to: "a" }],
    };
    const spike = (delta: number) => ({ ...context, event: { ...context.event, name: "cve.epss_spike" as const, payload: { delta } } });
    const low = fakeHandlers();
    const r = await execute({ graph, event: "cve.epss_spike", facts: {}, handlers: low.handlers, context: spike(0.15) });
    expect(r.steps[0]).toMatchObject({ outcome: "non_declenche" });
    expect(r.steps[0]!.detail).toContain("min_delta 0.2");
    expect(low.calls).toEqual([]);
    const high = fakeHandlers();
    const h = await execute({ graph, event: "cve.epss_spike", facts: {}, handlers: high.handlers, context: spike(0.25) });
    expect(h.steps.map((s) => s.outcome)).toEqual(["declenche", "succes"]);
  });

  it("eol.approaching and url.cert_expiring: the trigger fires only when days_left is within days_before", async () => {
    for (const [event, dflt] of [
      ["eol.approaching", 30],
      ["url.cert_expiring", 14],
    ] as const) {
      const graph = (params: Record<string, unknown>): StoredGraph => ({
        nodes: [
          { id: "t", type: "trigger", event, params },
          { id: "a", type: "action", action: "add_tag", params: { tag: "x" }, on_error: "continue" },
        ],
        edges: [{ from: "t", to: "a" }],
      });
      const at = (days_left: number) => ({ ...context, event: { ...context.event, name: event, payload: { days_left } } });
      const far = fakeHandlers();
      const r = await execute({ graph: graph({ days_before: 7 }), event, facts: {}, handlers: far.handlers, context: at(8) });
      expect(r.status).toBe("success");
      expect(r.steps.map((s) => s.outcome)).toEqual(["non_declenche", "non_atteint"]);
      expect(r.steps[0]!.detail).toBe("échéance dans 8 jour(s), au-delà du seuil days_before 7");
      expect(far.calls).toEqual([]);
      const near = fakeHandlers();
      const n = await execute({ graph: graph({ days_before: 7 }), event, facts: {}, handlers: near.handlers, context: at(7) });
      expect(n.steps.map((s) => s.outcome)).toEqual(["declenche", "succes"]);
      // A stored trigger without the parameter uses its default.
      const d = await execute({ graph: graph({}), event, facts: {}, handlers: fakeHandlers().handlers, context: at(dflt + 1) });
      expect(d.steps[0]!.detail).toContain(`days_before ${dflt}`);
    }
  });

  it("statusOf", () => {
    const s = (outcome: Step["outcome"]): Step => ({ node: "x", type: "action", outcome, detail: "", started_at: "", duration_ms: 0 });
    expect(statusOf([])).toBe("success");
    expect(statusOf([s("succes"), s("non_atteint")])).toBe("success");
    expect(statusOf([s("succes"), s("echec")])).toBe("partial");
    expect(statusOf([s("echec"), s("echec")])).toBe("failed");
  });
});
