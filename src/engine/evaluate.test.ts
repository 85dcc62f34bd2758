import { describe, expect, it } from "vitest";
import { evaluateRule, simulate } from "./evaluate.js";
import type { StoredGraph } from "./graph.js";

describe("evaluateRule", () => {
  const facts = {
    "cve.severity": "high",
    "cve.cvss_score": 8.1,
    "cve.vendor": "Palo Alto Networks",
    "cve.cwe_ids": ["CWE-77", "CWE-20"],
    "cve.is_kev": true,
  };
  it.each([
    [{ field: "cve.severity", op: "gte", value: "high" }, true],
    [{ field: "cve.severity", op: "gt", value: "high" }, false],
    [{ field: "cve.cvss_score", op: "lt", value: 9 }, true],
    [{ field: "cve.vendor", op: "contains", value: "alto" }, true],
    [{ field: "cve.vendor", op: "eq", value: "palo alto networks" }, true],
    [{ field: "cve.vendor", op: "matches", value: "^palo" }, true],
    [{ field: "cve.cwe_ids", op: "contains", value: "cwe-77" }, true],
    [{ field: "cve.cwe_ids", op: "not_contains", value: "CWE-79" }, true],
    [{ field: "cve.is_kev", op: "eq", value: true }, true],
    [{ field: "cve.severity", op: "in", value: ["critical"] }, false],
    [{ field: "cve.epss_score", op: "gte", value: 0 }, false], // unknown value: never true...
    [{ field: "cve.epss_score", op: "not_exists" }, true], // ...except for not_exists
    [{ field: "cve.epss_score", op: "exists" }, false],
  ] as const)("%j → %s", (rule, expected) => {
    expect(evaluateRule(rule as never, facts)).toBe(expected);
  });
});

describe("simulate", () => {
  const graph: StoredGraph = {
    nodes: [
      { id: "t", type: "trigger", event: "cve.new_match", params: {} },
      { id: "c", type: "condition", match: "all", rules: [{ field: "cve.is_kev", op: "eq", value: true }] },
      { id: "yes", type: "action", action: "notify_slack", params: { webhook_url: "https://hooks.slack.com/x" }, on_error: "continue" },
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

  it("follows the true branch and reaches a join node from either branch", () => {
    const r = simulate(graph, "cve.new_match", { "cve.is_kev": true });
    expect(r.map((n) => n.resultat)).toEqual(["declenche", "vrai", "serait_executee", "non_atteint", "serait_executee"]);
  });

  it("follows the false branch when facts are unknown", () => {
    const r = simulate(graph, "cve.new_match", {});
    expect(r.map((n) => n.resultat)).toEqual(["declenche", "faux", "non_atteint", "serait_executee", "serait_executee"]);
    expect(r[1]!.regles).toEqual([{ field: "cve.is_kev", op: "eq", value: true, valeur_observee: null, resultat: false }]);
  });

  it("does not fire for another event", () => {
    const r = simulate(graph, "eol.approaching", { "cve.is_kev": true });
    expect(r.map((n) => n.resultat)).toEqual(["non_declenche", "non_atteint", "non_atteint", "non_atteint", "non_atteint"]);
  });
});
