import { createMemoryHistory, createRootRoute, createRouter, RouterProvider } from "@tanstack/react-router";
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { I18nProvider } from "../i18n/i18n";
import { DOC_PAGES, HelpMenu, pageFor } from "./help";

/** The help menu alone, at `url`, in `lang`. */
async function renderAt(url: string, lang: "fr" | "en", base?: string) {
  const router = createRouter({
    routeTree: createRootRoute({ component: () => <HelpMenu base={base} /> }),
    history: createMemoryHistory({ initialEntries: [url] }),
  });
  render(
    <I18nProvider initial={lang}>
      <RouterProvider router={router} />
    </I18nProvider>,
  );
  return screen.findByText(lang === "fr" ? "Aide" : "Help");
}

afterEach(cleanup);

describe("the help menu", () => {
  it("links every guide of docs/ under the configured address, the current screen's first, and the API reference", async () => {
    const summary = await renderAt("/p/42/cases/CVE-2024-3400", "fr", "https://docs.example/vigie/docs/");
    const menu = within(summary.closest("details")!);
    const links = menu.getAllByRole("link", { hidden: true }).map((a) => [a.textContent, a.getAttribute("href")]);
    expect(links[0]).toEqual(["Sur cet écran : Dossiers, exceptions, risques et VEX", "https://docs.example/vigie/docs/cases.md"]);
    expect(links.slice(1, -1).map(([, href]) => href)).toEqual(DOC_PAGES.map((p) => `https://docs.example/vigie/docs/${p}.md`));
    expect(links.at(-1)).toEqual(["Référence de l'API (OpenAPI)", "/docs"]);
  });

  it("in English; without an address, names the docs/ folder instead of linking nowhere", async () => {
    const summary = await renderAt("/stats", "en", "");
    const menu = within(summary.closest("details")!);
    expect(menu.getByText("The guides are the pages of the docs/ folder of Vigie's repository.")).toBeTruthy();
    expect(menu.getAllByRole("link", { hidden: true }).map((a) => a.getAttribute("href"))).toEqual(["/docs"]);
  });

  it("knows which page tells about each screen", () => {
    expect(pageFor("/p/1/alerts")).toBe("stacks");
    expect(pageFor("/p/1/eol")).toBe("eol-and-urls");
    expect(pageFor("/stats")).toBe("statistics");
    expect(pageFor("/p/1")).toBeNull();
  });
});
