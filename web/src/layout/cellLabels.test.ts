import { describe, expect, it } from "vitest";
import { labelTable } from "./cellLabels";

describe("labelTable", () => {
  it("labels each body cell with its column's header words, a colspan counting for its columns", () => {
    document.body.innerHTML = `<table>
      <thead><tr><th colspan="2">CVE</th><th>Scores</th></tr></thead>
      <tbody><tr><td>☐</td><th scope="row">CVE-2024-3400</th><td>CVSS 10</td></tr>
             <tr><td colspan="2">CVE-2024-0012</td><td>CVSS 9.3</td></tr></tbody>
    </table>`;
    const table = document.querySelector("table") as HTMLTableElement;
    labelTable(table);
    const labels = [...table.querySelectorAll("tbody tr")].map((r) => [...r.children].map((c) => c.getAttribute("data-label")));
    expect(labels).toEqual([
      ["CVE", "CVE", "Scores"],
      ["CVE", "Scores"],
    ]);
  });
  it("leaves a table without a header alone", () => {
    document.body.innerHTML = "<table><tbody><tr><td>x</td></tr></tbody></table>";
    labelTable(document.querySelector("table") as HTMLTableElement);
    expect(document.querySelector("td")?.hasAttribute("data-label")).toBe(false);
  });
});
