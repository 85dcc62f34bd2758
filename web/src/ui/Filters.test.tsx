import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { I18nProvider } from "../i18n/i18n";
import { CheckFilter, chipsOf, FilterPanel, InputFilter, YesNoFilter } from "./Filters";
import { Pager } from "./Pager";

afterEach(cleanup);

interface S {
  q?: string;
  severity?: string[];
  is_kev?: boolean;
  sort?: string;
  page?: number;
}

describe("chipsOf", () => {
  const describe_ = { q: (v: string) => `« ${v} »`, severity: (v: string) => `sev ${v}`, is_kev: (v: string) => `kev ${v}` };
  it("gives one chip per value of a list and per other described value; the sort and the page are none", () => {
    const chips = chipsOf<S>({ q: "pan", severity: ["critical", "high"], is_kev: false, sort: "-cvss", page: 3 }, describe_, () => {});
    expect(chips.map((c) => c.label)).toEqual(["« pan »", "sev critical", "sev high", "kev false"]);
  });
  it("removing a chip drops that value (and the page), keeps the others", () => {
    const apply = vi.fn();
    const chips = chipsOf<S>({ q: "pan", severity: ["critical", "high"], page: 3 }, describe_, apply);
    chips[1]?.remove();
    expect(apply).toHaveBeenLastCalledWith({ q: "pan", severity: ["high"], page: undefined });
    chipsOf<S>({ severity: ["high"] }, describe_, apply)[0]?.remove();
    expect(apply).toHaveBeenLastCalledWith({ severity: undefined, page: undefined });
  });
});

describe("FilterPanel", () => {
  function panel(search: S, onApply = vi.fn(), lang: "fr" | "en" = "fr") {
    render(
      <I18nProvider initial={lang}>
        <FilterPanel
          label="Filtres des alertes"
          chips={chipsOf(search, { q: (v) => `« ${v} »`, severity: (v) => `Sévérité : ${v}` }, onApply)}
          onApply={onApply}
          onReset={() => onApply({})}
          lead={<InputFilter label="Recherche" name="q" type="search" defaultValue={search.q} />}
        >
          <CheckFilter
            legend="Sévérité"
            name="severity"
            values={search.severity}
            choices={[
              ["critical", "critique"],
              ["high", "élevée"],
            ]}
          />
          <YesNoFilter label="KEV" name="is_kev" value={search.is_kev} />
        </FilterPanel>
      </I18nProvider>,
    );
    return onApply;
  }
  it("folds the fields (closed), counts the active filters and shows them as removable chips", () => {
    const onApply = panel({ q: "pan", severity: ["critical"] });
    const fold = document.querySelector("details");
    expect(fold?.open).toBe(false);
    expect(fold?.querySelector("summary")?.textContent).toBe("Filtres (2 actifs)");
    const chips = screen.getByRole("list", { name: "Filtres actifs" });
    expect(chips.textContent).toContain("« pan »");
    fireEvent.click(screen.getByRole("button", { name: "Retirer le filtre Sévérité : critical" }));
    expect(onApply).toHaveBeenLastCalledWith({ q: "pan", severity: undefined, page: undefined });
  });
  it("submits the form's values: a checkbox group as a list, a blank as nothing", () => {
    const onApply = panel({});
    fireEvent.change(screen.getByRole("searchbox", { name: "Recherche" }), { target: { value: " log4j " } });
    fireEvent.click(screen.getByRole("checkbox", { name: "élevée" }));
    fireEvent.click(screen.getByRole("button", { name: "Filtrer" }));
    expect(onApply).toHaveBeenLastCalledWith({ q: "log4j", severity: ["high"] });
    // No active filter: no chip list, no « clear » button.
    expect(screen.queryByRole("list", { name: "Filtres actifs" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Effacer les filtres" })).toBeNull();
  });
  it("speaks English", () => {
    panel({ q: "pan" }, vi.fn(), "en");
    expect(screen.getByRole("button", { name: "Filter" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Remove the filter « pan »" })).toBeTruthy();
    expect(screen.getByRole("combobox", { name: "KEV" }).textContent).toBe("AnyYesNo");
  });
});

describe("Pager", () => {
  it("moves a page back and forth and disables the ends", () => {
    const onPage = vi.fn();
    render(
      <I18nProvider initial="fr">
        <Pager page={1} pages={3} onPage={onPage} label="Pages des alertes" status="page 1 sur 3" />
      </I18nProvider>,
    );
    const nav = screen.getByRole("navigation", { name: "Pages des alertes" });
    expect(nav.textContent).toContain("page 1 sur 3");
    expect((screen.getByRole("button", { name: "Précédente" }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole("button", { name: "Suivante" }));
    expect(onPage).toHaveBeenCalledWith(2);
  });
});
