import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

const ORG = "0b9d6c2e-6f1a-4c7e-9d51-2f3a8b7c6d10";
const PROJECT = "5f0c1d2e-3b4a-4c5d-8e9f-a0b1c2d3e4f5";
const TAG = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
const TAGS = `/api/v1/organizations/${ORG}/projects/${PROJECT}/tags`;

/** The manager over a stubbed server that answers each write as the tags API does; returns the calls. */
async function renderManager(tags: { id: string; name: string; color: string }[]) {
  const calls: { method: string; path: string; body: unknown }[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: Request) => {
      const body = input.method === "GET" || input.method === "DELETE" ? null : await input.clone().json();
      calls.push({ method: input.method, path: new URL(input.url).pathname, body });
      if (input.method === "POST") return new Response(JSON.stringify({ id: TAG, ...(body as object) }), { status: 201 });
      if (input.method === "PATCH")
        return new Response(JSON.stringify({ id: TAG, name: "urgent", color: "#1d4ed8", ...(body as object) }), { status: 200 });
      if (input.method === "DELETE") return new Response(null, { status: 204 });
      return new Response("[]", { status: 200 });
    }),
  );
  vi.resetModules();
  const { TagManager } = await import("./TagManager");
  const { I18nProvider } = await import("../../i18n/i18n");
  render(
    <I18nProvider initial="fr">
      <QueryClientProvider client={new QueryClient()}>
        <TagManager orgId={ORG} projectId={PROJECT} tags={tags} />
      </QueryClientProvider>
    </I18nProvider>,
  );
  return calls;
}

describe("the tags' manager", () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("creates a tag with a colour chosen by name", async () => {
    const calls = await renderManager([]);
    expect(screen.getByText("Aucune étiquette dans le projet : créez-en une ci-dessous.")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Nom"), { target: { value: " à corriger " } });
    fireEvent.change(screen.getByLabelText("Couleur"), { target: { value: "#b91c1c" } });
    expect((screen.getByLabelText("Couleur") as HTMLSelectElement).selectedOptions[0]!.textContent).toBe("Rouge");
    fireEvent.click(screen.getByRole("button", { name: "Créer" }));
    expect((await screen.findByRole("status")).textContent).toBe("Étiquette « à corriger » créée.");
    expect(calls.find((c) => c.method === "POST")).toEqual({ method: "POST", path: TAGS, body: { name: "à corriger", color: "#b91c1c" } });
  });

  it("renames and recolours a tag, shows a colour set elsewhere as custom, deletes after a confirmation", async () => {
    const calls = await renderManager([{ id: TAG, name: "urgent", color: "#123456" }]);
    const colour = screen.getByLabelText("Couleur de l'étiquette urgent") as HTMLSelectElement;
    expect(colour.selectedOptions[0]!.textContent).toBe("Personnalisée (#123456)");
    const save = screen.getByRole("button", { name: "Enregistrer" }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    fireEvent.change(screen.getByLabelText("Nom de l'étiquette urgent"), { target: { value: "très urgent" } });
    fireEvent.change(colour, { target: { value: "#1d4ed8" } });
    fireEvent.click(save);
    await waitFor(() => expect(calls.some((c) => c.method === "PATCH")).toBe(true));
    expect(calls.find((c) => c.method === "PATCH")).toEqual({
      method: "PATCH",
      path: `${TAGS}/${TAG}`,
      body: { name: "très urgent", color: "#1d4ed8" },
    });
    fireEvent.click(screen.getByRole("button", { name: "Supprimer l'étiquette urgent" }));
    expect(calls.some((c) => c.method === "DELETE")).toBe(false);
    fireEvent.click(screen.getByRole("button", { name: "Confirmer : supprimer « urgent » partout où elle est posée" }));
    await waitFor(() => expect(calls.find((c) => c.method === "DELETE")?.path).toBe(`${TAGS}/${TAG}`));
  });
});
