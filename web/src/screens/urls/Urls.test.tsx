import { cleanup, fireEvent, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { json, ORG, PROJECT, renderAt } from "../cases/testing";

const URLS = `/api/v1/organizations/${ORG}/projects/${PROJECT}/monitored-urls`;

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** The URL screen as an admin; the list says whether the operator lets scans reach private addresses. */
function open(privateAllowed: boolean, onPost: () => Response) {
  return renderAt(`/p/${PROJECT}/urls`, "admin", (req, u) => {
    if (u.pathname === URLS && req.method === "GET")
      return json(200, { items: [], total: 0, page: 1, page_size: 20, private_targets_allowed: privateAllowed });
    if (u.pathname === URLS && req.method === "POST") return onPost();
    if (u.pathname.endsWith("/stacks")) return json(200, []);
    return null;
  });
}

describe("the monitored URL form", () => {
  it("refuses a loopback or private address when typed, in the user's words, without naming a setting", async () => {
    const { calls } = await open(false, () => json(201, {}));
    const field = await screen.findByLabelText("Adresse (http ou https)");
    fireEvent.change(field, { target: { value: "http://127.0.0.1:8080/" } });
    expect(await screen.findByText(/désigne la machine elle-même/)).toBeTruthy();
    expect(field.getAttribute("aria-invalid")).toBe("true");
    fireEvent.change(field, { target: { value: "http://192.168.1.10/" } });
    expect(screen.getByText(/réseau privé/)).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Surveiller" }));
    expect(calls.filter((c) => c.method === "POST")).toEqual([]);
    expect(document.body.textContent).not.toContain("VIGIE_");
  });

  it("lets the operator's choice through: private addresses allowed, the form sends them", async () => {
    const { calls } = await open(true, () => json(422, {}));
    // The list has said so.
    await screen.findByText("Aucune URL surveillée.");
    const field = await screen.findByLabelText("Adresse (http ou https)");
    fireEvent.change(field, { target: { value: "http://127.0.0.1:8080/" } });
    expect(screen.queryByText(/désigne la machine elle-même/)).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Surveiller" }));
    await vi.waitFor(() => expect(calls.filter((c) => c.method === "POST")).toHaveLength(1));
  });

  it("shows the server's 422 on the address field in the application's words", async () => {
    // The server's item for an address that is not http(s) (urls.schemas.ts UrlField: a pattern).
    await open(false, () =>
      json(422, {
        detail: [
          {
            type: "string_pattern_mismatch",
            loc: ["body", "url"],
            msg: "String should match pattern '^https?://'",
            input: "ftp://example.org/",
            ctx: { pattern: "^https?://" },
          },
        ],
      }),
    );
    fireEvent.change(await screen.findByLabelText("Adresse (http ou https)"), { target: { value: "ftp://example.org/" } });
    fireEvent.click(screen.getByRole("button", { name: "Surveiller" }));
    expect(await screen.findByText("Ce format n'est pas accepté.")).toBeTruthy();
    expect(screen.queryByText(/String should/)).toBeNull();
  });

  it("flags an empty address as required", async () => {
    await open(false, () => json(201, {}));
    await screen.findByLabelText("Adresse (http ou https)");
    fireEvent.click(screen.getByRole("button", { name: "Surveiller" }));
    expect(await screen.findByText("Ce champ est obligatoire.")).toBeTruthy();
  });
});
