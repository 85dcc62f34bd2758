import { describe, expect, it } from "vitest";
import type { PydanticError } from "../platform/pydantic/validate.js";
import { checkGraph, defaultGraph, shortFormToGraph, type Graph } from "./graph.js";

function check(graph: Graph) {
  const errors: PydanticError[] = [];
  const stored = checkGraph(graph, ["graph"], errors);
  return { stored, errors };
}

const t = { id: "t", type: "trigger" as const, event: "cve.new_match" as const };
const act = (id: string, action: "create_case" | "add_tag" = "create_case", params?: Record<string, unknown>) => ({
  id,
  type: "action" as const,
  action,
  params,
  on_error: "continue" as const,
});
const cond = (id: string, rules: { field: string; op: string; value?: unknown }[]) => ({
  id,
  type: "condition" as const,
  match: "all" as const,
  rules: rules as never,
});

describe("checkGraph", () => {
  it("accepts a well-formed graph and normalises it (params objects, when on condition edges only)", () => {
    const { stored, errors } = check({
      nodes: [t, cond("c", [{ field: "cve.cvss_score", op: "gte", value: 7 }]), act("a")],
      edges: [
        { from: "t", to: "c" },
        { from: "c", to: "a" },
      ],
    });
    expect(errors).toEqual([]);
    expect(stored.edges).toEqual([
      { from: "t", to: "c" },
      { from: "c", to: "a", when: "true" },
    ]);
    expect(stored.nodes[0]).toEqual({ id: "t", type: "trigger", event: "cve.new_match", params: {} });
  });

  it("finds a cycle and names the closing edge", () => {
    const { errors } = check({
      nodes: [t, act("a"), act("b")],
      edges: [
        { from: "t", to: "a" },
        { from: "a", to: "b" },
        { from: "b", to: "a" },
      ],
    });
    expect(errors).toEqual([
      expect.objectContaining({ type: "value_error", loc: ["graph", "edges", 2], msg: expect.stringContaining("cycle") }),
    ]);
  });

  it("requires exactly one trigger, at least one action, unique ids, and every node reachable", () => {
    expect(check({ nodes: [act("a")], edges: [] }).errors.map((e) => e.loc)).toContainEqual(["graph", "nodes"]);
    expect(check({ nodes: [t], edges: [] }).errors[0]!.msg).toContain("au moins un nœud action");
    expect(check({ nodes: [t, act("t")], edges: [] }).errors.map((e) => e.loc)).toContainEqual(["graph", "nodes", 1, "action", "id"]);
    expect(check({ nodes: [t, act("a"), act("b")], edges: [{ from: "t", to: "a" }] }).errors.map((e) => e.loc)).toEqual([
      ["graph", "nodes", 2],
    ]);
  });

  it("checks each rule against its field's type, its operator and the trigger's event", () => {
    const bad = (rules: { field: string; op: string; value?: unknown }[]) =>
      check({
        nodes: [t, cond("c", rules), act("a")],
        edges: [
          { from: "t", to: "c" },
          { from: "c", to: "a" },
        ],
      }).errors.map((e) => e.loc.slice(-1)[0]);
    expect(bad([{ field: "cve.is_kev", op: "gt", value: true }])).toEqual(["op"]);
    expect(bad([{ field: "cve.severity", op: "gte", value: "severe" }])).toEqual(["value"]);
    expect(bad([{ field: "cve.vendor", op: "in", value: [] }])).toEqual(["value"]);
    expect(bad([{ field: "cve.vendor", op: "matches", value: "(" }])).toEqual(["value"]);
    expect(bad([{ field: "cve.epss_score", op: "exists", value: 1 }])).toEqual(["value"]);
    expect(bad([{ field: "url.days_left", op: "lt", value: 10 }])).toEqual(["field"]);
    expect(
      bad([
        { field: "cve.cwe_ids", op: "contains", value: "CWE-79" },
        { field: "cve.severity", op: "in", value: ["high", "critical"] },
      ]),
    ).toEqual([]);
  });

  it("validates action parameters with Pydantic-shaped errors", () => {
    const { errors } = check({ nodes: [t, act("a", "add_tag", { tag: "" })], edges: [{ from: "t", to: "a" }] });
    expect(errors).toEqual([expect.objectContaining({ type: "string_too_short", loc: ["graph", "nodes", 1, "action", "params", "tag"] })]);
  });
});

describe("shortFormToGraph", () => {
  it("chains trigger → condition → actions, with create_case first unless already listed", () => {
    const errors: PydanticError[] = [];
    const g = shortFormToGraph(
      { event: "cve.new_match", match: "any", conditions: [{ field: "cve.is_kev", op: "eq", value: true }] },
      [{ type: "create_case", on_error: "stop" }],
      true,
      ["body"],
      errors,
    );
    expect(errors).toEqual([]);
    expect(g.nodes.filter((n) => n.type === "action")).toHaveLength(1);
    expect(g.edges).toEqual([
      { from: "trigger", to: "condition" },
      { from: "condition", to: "action-1", when: "true" },
    ]);
  });

  it("writes the default graph: a verified P1/P2 new match opens a case", () => {
    const errors: PydanticError[] = [];
    const conditions = [
      { field: "alert.palier" as const, op: "in" as const, value: ["P1", "P2"] },
      { field: "alert.rule" as const, op: "ne" as const, value: "unversioned" },
    ];
    expect(shortFormToGraph({ event: "cve.new_match", match: "all", conditions }, [], true, ["body"], errors)).toEqual(defaultGraph());
    expect(errors).toEqual([]);
    const checked: PydanticError[] = [];
    expect(checkGraph(defaultGraph() as Graph, ["body"], checked)).toEqual(defaultGraph());
    expect(checked).toEqual([]);
  });

  it("refuses a workflow that would do nothing", () => {
    const errors: PydanticError[] = [];
    shortFormToGraph({ event: "cve.new_match", match: "all" }, [], false, ["body"], errors);
    expect(errors).toEqual([expect.objectContaining({ loc: ["body", "actions"] })]);
  });
});
