import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

const FOUND = {
  id: "4b0c1f2e-3f59-4a3e-9d55-0c6f1e0b6a11",
  titre: "Rapport de vulnérabilités — Site public — du 28 octobre au 26 novembre 2026",
  report_type: "rapport_projet",
  empreinte: "a".repeat(64),
  genere_le: "2026-11-26T06:00:00Z",
  derniere_synchro_le: "2026-11-26T06:00:00Z",
  synchro_figee: false,
  synchro_etat: "a_jour",
  project_id: "5c9e8b7a-1d2f-4e3a-8b9c-0d1e2f3a4b5c",
  version: 1,
  version_courante: false,
  current_version: 2,
  current_empreinte: "b".repeat(64),
  format: "pdf",
};

/** The zone rendered with the server answered by `answer`; the requests it made. */
async function renderZone(answer: () => Response) {
  const calls: Request[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: Request) => {
      calls.push(input);
      return answer();
    }),
  );
  // Fresh modules: the API client takes the stubbed fetch.
  vi.resetModules();
  const { FindZone } = await import("./FindZone");
  const { I18nProvider } = await import("../../i18n/i18n");
  render(
    <I18nProvider initial="fr">
      <QueryClientProvider client={new QueryClient({ defaultOptions: { mutations: { retry: false } } })}>
        <FindZone orgId="0f1e2d3c-4b5a-4968-8776-655443322110" />
      </QueryClientProvider>
    </I18nProvider>,
  );
  return calls;
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("finding a report again by dropping its file", () => {
  it("posts the dropped file as multipart (field file) and says which report and version it is", async () => {
    const calls = await renderZone(() => json(200, FOUND));
    const file = new File(["%PDF-1.7 the report's bytes"], "rapport.pdf", { type: "application/pdf" });
    fireEvent.drop(screen.getByTestId("dropzone"), { dataTransfer: { files: [file] } });

    expect(await screen.findByRole("heading", { name: "rapport.pdf : rapport retrouvé" })).toBeTruthy();
    expect(screen.getByText(FOUND.titre)).toBeTruthy();
    expect(screen.getByText(/Version 1 sur 2/).textContent).toContain("une version plus récente existe (version 2)");

    expect(calls).toHaveLength(1);
    const req = calls[0]!;
    expect(req.method).toBe("POST");
    expect(new URL(req.url).pathname).toBe("/api/v1/organizations/0f1e2d3c-4b5a-4968-8776-655443322110/evidence/find");
    expect(req.headers.get("content-type")).toMatch(/^multipart\/form-data; boundary=/);
    const sent = (await req.formData()).get("file") as File;
    expect(sent.name).toBe("rapport.pdf");
    expect(await sent.text()).toBe("%PDF-1.7 the report's bytes");
  });

  it("says the file is unknown or altered on a 404, and takes a file from the input too", async () => {
    await renderZone(() => json(404, { detail: "Preuve introuvable" }));
    const file = new File(["{}"], "rapport.json", { type: "application/json" });
    fireEvent.change(screen.getByLabelText("Choisir un fichier"), { target: { files: [file] } });
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("rapport.json : fichier inconnu ou altéré");
  });
});
