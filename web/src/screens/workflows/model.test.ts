import { describe, expect, it } from "vitest";
import type { ApiGraph } from "./catalog";
import { connect, issuesByNode, layout, removeNode, targetOf } from "./model";

const sent: ApiGraph = {
  nodes: [
    { id: "t", type: "trigger", event: "cve.new_match", params: {} },
    { id: "c", type: "condition", match: "all", rules: [{ field: "cve.is_kev", op: "eq", value: true }] },
    { id: "hook", type: "action", action: "notify_webhook", params: { url: "ftp://x" }, on_error: "continue" },
    { id: "slack", type: "action", action: "notify_slack", params: {}, on_error: "continue" },
  ],
  edges: [
    { from: "t", to: "c" },
    { from: "c", to: "hook", when: "true" },
  ],
};

describe("a 422 location → what it points at", () => {
  it("names the node by the index of the graph that was sent, with or without the node type Pydantic inserts", () => {
    expect(targetOf(["body", "graph", "nodes", 2, "action", "params", "url"], sent)).toEqual({
      kind: "node",
      nodeId: "hook",
      field: "params.url",
    });
    expect(targetOf(["body", "graph", "nodes", 3, "params", "webhook_url"], sent)).toEqual({
      kind: "node",
      nodeId: "slack",
      field: "params.webhook_url",
    });
    expect(targetOf(["body", "graph", "nodes", 1, "condition", "rules", 0, "value"], sent)).toEqual({
      kind: "node",
      nodeId: "c",
      field: "rules.0.value",
    });
    // The node as a whole (not reachable from the trigger).
    expect(targetOf(["body", "graph", "nodes", 3], sent)).toEqual({ kind: "node", nodeId: "slack", field: null });
  });

  it("tells edges, the form's fields and the graph as a whole apart; an index the sent graph lacks is the graph's", () => {
    expect(targetOf(["body", "graph", "edges", 1], sent)).toEqual({ kind: "edge", index: 1 });
    expect(targetOf(["body", "name"], sent)).toEqual({ kind: "form", field: "name" });
    expect(targetOf(["body", "graph", "nodes"], sent)).toEqual({ kind: "graph" });
    expect(targetOf(["body", "graph", "nodes", 9, "params"], sent)).toEqual({ kind: "graph" });
  });

  it("groups a 422's issues by node id, the others apart", () => {
    const { nodes, others } = issuesByNode(
      [
        { loc: ["body", "graph", "nodes", 2, "action", "params", "url"], msg: "Value error, une URL http:// ou https:// est attendue" },
        { loc: ["body", "graph", "nodes", 3, "action", "params", "webhook_url"], msg: "Field required" },
        { loc: ["body", "graph", "edges", 0], msg: "arête en double" },
      ],
      sent,
    );
    expect([...nodes.keys()]).toEqual(["hook", "slack"]);
    expect(nodes.get("hook")).toEqual([{ field: "params.url", msg: "Value error, une URL http:// ou https:// est attendue" }]);
    expect(others).toEqual([{ target: { kind: "edge", index: 0 }, msg: "arête en double" }]);
  });
});

describe("graph edits", () => {
  it("puts `when` only on edges leaving a condition, and never twice the same edge", () => {
    const g = connect(connect(sent, "t", "slack"), "c", "slack", "false");
    expect(g.edges.slice(-2)).toEqual([
      { from: "t", to: "slack" },
      { from: "c", to: "slack", when: "false" },
    ]);
    expect(connect(g, "c", "slack", "false")).toBe(g);
    expect(connect(g, "t", "t")).toBe(g);
  });

  it("removes a node with its edges", () => {
    expect(removeNode(sent, "c").edges).toEqual([]);
  });

  it("lays nodes out in columns by their depth from the trigger", () => {
    const at = layout(sent);
    expect(at.t!.x).toBeLessThan(at.c!.x);
    expect(at.c!.x).toBeLessThan(at.hook!.x);
    // Not reached: the last column.
    expect(at.slack!.x).toBeGreaterThan(at.c!.x);
  });
});
