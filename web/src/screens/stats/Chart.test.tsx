import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { I18nProvider } from "../../i18n/i18n";
import { DistributionChart } from "./Stats";
import { words } from "./words";

// happy-dom has no canvas: ECharts' instance is replaced by one that records what it is given.
const drawn: unknown[] = [];
vi.mock("./echarts", () => ({
  init: () => {
    const handlers: Record<string, () => void> = {};
    return {
      on: (name: string, fn: () => void) => {
        handlers[name] = fn;
      },
      setOption: (option: unknown) => {
        drawn.push(option);
        handlers.finished?.();
      },
      resize: () => {},
      dispose: () => {},
    };
  },
}));

afterEach(() => {
  cleanup();
  drawn.length = 0;
});

const CVSS = {
  from: "2024-01-01",
  to: "2024-12-31",
  metric: "cvss",
  label: "Score CVSS",
  grand_total: 20,
  buckets: [
    { bucket: "7.0-7.9", total: 5, with_poc: 1, kev: 2, share_pct: 25, poc_pct: 20 },
    { bucket: "9.0-10.0", total: 12, with_poc: 4, kev: 6, share_pct: 60, poc_pct: 33.33 },
    { bucket: "sans_score", total: 3, with_poc: 0, kev: 0, share_pct: 15, poc_pct: 0 },
  ],
};

describe("a chart of the statistics wall", () => {
  it("is drawn with the data and shows the same figures as a table on demand (its text alternative)", async () => {
    render(
      <I18nProvider initial="fr">
        <DistributionChart d={CVSS} w={words.fr} pie={false} metric="Score CVSS" />
      </I18nProvider>,
    );
    const caption = "Répartition par score cvss de 20 CVE";
    const img = screen.getByRole("img", { name: caption });
    expect(img.getAttribute("data-drawn")).toBe("true");
    expect(drawn).toHaveLength(1);
    expect(drawn[0]).toMatchObject({ series: [{ type: "bar", data: [5, 12, 3] }], xAxis: { data: ["7.0-7.9", "9.0-10.0", "sans score"] } });

    expect(screen.queryByRole("table")).toBeNull();
    const toggle = screen.getByRole("button", { name: "Afficher le tableau" });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    fireEvent.click(toggle);
    const table = screen.getByRole("table", { name: caption });
    const rows = within(table)
      .getAllByRole("row")
      .map((r) => Array.from(r.children, (c) => c.textContent));
    expect(rows).toEqual([
      ["Tranche", "Total", "Part (%)"],
      ["7.0-7.9", "5", "25"],
      ["9.0-10.0", "12", "60"],
      ["sans score", "3", "15"],
    ]);
    expect(screen.getByRole("button", { name: "Masquer le tableau" }).getAttribute("aria-expanded")).toBe("true");
  });
});
