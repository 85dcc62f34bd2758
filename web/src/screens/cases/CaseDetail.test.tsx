import { cleanup, fireEvent, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { addDays, parisToday } from "./paris";
import { CASES_PATH, json, kase, PROJECT, renderAt } from "./testing";

const detail = (over: Record<string, unknown> = {}) => ({
  ...kase("CVE-2024-3400", "en_analyse"),
  transitions: ["en_remediation", "corrige", "non_concerne"],
  history: [
    {
      from_status: null,
      to_status: "nouveau",
      comment: null,
      created_at: "2026-11-01T10:00:00Z",
      event: "created",
      actor: { type: "workflow", id: "w1", label: "Défaut" },
      details: null,
    },
    {
      from_status: "nouveau",
      to_status: "en_analyse",
      comment: "prise en charge",
      created_at: "2026-11-02T10:00:00Z",
      event: "status",
      actor: { type: "api_key", id: "k1", label: "ci" },
      details: null,
    },
  ],
  ...over,
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("a case's screen", () => {
  it("shows who changed it, offers the server's transitions, and shows a refused one's 409 message", async () => {
    const { calls } = await renderAt(`/p/${PROJECT}/cases/CVE-2024-3400`, "member", (req, u) => {
      if (u.pathname !== `${CASES_PATH}/CVE-2024-3400`) return null;
      if (req.method === "PUT")
        return json(409, {
          detail: { code: "transition_invalide", message: "Transition refusée : en_analyse → corrige", from: "en_analyse", to: "corrige" },
        });
      return json(200, detail());
    });
    const history = await screen.findByRole("table", { name: "Historique du dossier, du plus ancien au plus récent" });
    expect(history.textContent).toContain("workflow « Défaut »");
    expect(history.textContent).toContain("clé d'API « ci »");
    expect(history.textContent).toContain("Nouveau → En analyse");
    const buttons = screen.getAllByRole("button", { name: /^Passer à/ }).map((b) => b.textContent);
    expect(buttons).toEqual(["Passer à « En remédiation »", "Passer à « Corrigé »", "Passer à « Non concerné »"]);
    fireEvent.click(screen.getByRole("button", { name: "Passer à « Corrigé »" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Transition refusée : en_analyse → corrige");
    const put = calls.find((c) => c.method === "PUT")!;
    expect(await put.json()).toEqual({ status: "corrige", comment: null });
  });

  it("sets an exception expiring in 30 Paris days by default; flags the empty required fields; a 422 in its own words on its field", async () => {
    // The server's own 422 items (FastAPI/Pydantic shape): an expiry in the past (a rule, value_error)
    // and a blank justification (the schema's string_too_short).
    const { calls } = await renderAt(`/p/${PROJECT}/cases/CVE-2024-3400`, "member", (req, u) => {
      if (u.pathname === `${CASES_PATH}/CVE-2024-3400/exception` && req.method === "PUT")
        return json(422, {
          detail: [
            {
              type: "string_too_short",
              loc: ["body", "justification"],
              msg: "String should have at least 1 character",
              input: "",
              ctx: { min_length: 1 },
            },
            {
              type: "value_error",
              loc: ["body", "expires_on"],
              msg: "Value error, la date d'expiration ne peut pas être passée (aujourd'hui à Paris : 2026-11-28)",
              input: "2020-01-01",
              ctx: { error: {} },
            },
          ],
        });
      if (u.pathname === `${CASES_PATH}/CVE-2024-3400`) return json(200, detail());
      return null;
    });
    fireEvent.click(await screen.findByRole("button", { name: "Poser l'exception" }));
    const expires = screen.getByLabelText("Dernier jour de validité (heure de Paris)") as HTMLInputElement;
    expect(expires.value).toBe(addDays(parisToday(), 30));
    expect(screen.getByText("expire dans 30 jours")).toBeTruthy();
    // Empty: both required fields flagged, nothing sent.
    fireEvent.click(screen.getByRole("button", { name: "Enregistrer" }));
    expect(await screen.findAllByText("Ce champ est obligatoire.")).toHaveLength(2);
    expect(calls.filter((c) => c.method === "PUT")).toEqual([]);
    fireEvent.change(screen.getByLabelText("Mesure en place"), { target: { value: "Télémétrie désactivée" } });
    fireEvent.change(screen.getByLabelText("Justification"), { target: { value: "Pas exposé" } });
    fireEvent.click(screen.getByRole("button", { name: "Enregistrer" }));
    expect(await screen.findByText("Ce champ est obligatoire.")).toBeTruthy();
    expect(screen.getByText("la date d'expiration ne peut pas être passée (aujourd'hui à Paris : 2026-11-28)")).toBeTruthy();
    expect(screen.queryByText(/Value error|String should/)).toBeNull();
    const put = calls.find((c) => c.method === "PUT")!;
    expect(await put.json()).toEqual({
      nature: "MITIGATED",
      measure: "Télémétrie désactivée",
      justification: "Pas exposé",
      expires_on: addDays(parisToday(), 30),
    });
  });

  it("gives a viewer no write: the transitions disabled, no exception button", async () => {
    await renderAt(`/p/${PROJECT}/cases/CVE-2024-3400`, "viewer", (_req, u) =>
      u.pathname === `${CASES_PATH}/CVE-2024-3400` ? json(200, detail()) : null,
    );
    expect((await screen.findAllByRole("button", { name: /^Passer à/ })).every((b) => (b as HTMLButtonElement).disabled)).toBe(true);
    expect(screen.queryByRole("button", { name: "Poser l'exception" })).toBeNull();
  });
});
