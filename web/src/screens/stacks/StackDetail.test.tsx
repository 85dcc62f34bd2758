import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { json, ORG, PROJECT, renderAt } from "../cases/testing";
import { faultsOf, sbomMediaType } from "./sbom";
import { ApiError } from "../../api/client";

const STACK = "6d6bc7bc-c1f3-41a3-83de-f32684a08f9a";
const SBOM = "ef084036-5cfb-424f-942d-256736e10596";
const STACKS = `/api/v1/organizations/${ORG}/projects/${PROJECT}/stacks`;

/**
 * The server's answer (sbom-api, this repository) to POST …/stacks/{id}/sbom with
 * test/fixtures/sbom/known-answer-v2.cdx.json, after known-answer-v1.cdx.json: as it was written.
 */
const DIFFERENCE = {
  "sbom": {
    "id": "ef084036-5cfb-424f-942d-256736e10596",
    "stack_id": "6d6bc7bc-c1f3-41a3-83de-f32684a08f9a",
    "format": "cyclonedx",
    "spec_version": "1.6",
    "encoding": "json",
    "document_key": "urn:uuid:7d0c5c1e-4d2b-4a8e-9b1e-5a0f3c9e2b61",
    "document_version": 2,
    "name": "inventaire@2.1.0",
    "component_count": 10,
    "item_count": 8,
    "created_at": "2026-11-26T11:13:10.354Z",
    "updated_at": "2026-11-26T11:13:33.370Z",
  },
  "ajoutes": {
    "count": 1,
    "items": [
      {
        "id": "bfc418d7-238b-455b-95fa-c0f016dc37dd",
        "item_type": "purl",
        "value": "pkg:pypi/aiohttp@3.8.5",
        "sbom_key": "pkg:pypi/aiohttp",
        "version": "3.8.5",
      },
    ],
  },
  "retires": {
    "count": 1,
    "items": [
      {
        "id": "f3069cdc-9459-43f5-b0d9-4d2912d2f231",
        "item_type": "purl",
        "value": "pkg:cargo/cap-primitives@3.4.0",
        "sbom_key": "pkg:cargo/cap-primitives",
        "version": "3.4.0",
      },
    ],
  },
  "versions_changees": {
    "count": 2,
    "items": [
      {
        "id": "bafa485b-29db-48da-ada2-6265dc44e43b",
        "item_type": "purl",
        "sbom_key": "pkg:pypi/django",
        "value": "pkg:pypi/django@4.2.3",
        "from": "4.2.1",
        "to": "4.2.3",
      },
      {
        "id": "728e22d9-1e02-47ec-94a2-06ea6ff6178b",
        "item_type": "cpe",
        "sbom_key": "cpe:2.3:a:djangoproject:django:*:*:*:*:*:*:*:*",
        "value": "cpe:2.3:a:djangoproject:django:4.2.3:*:*:*:*:*:*:*",
        "from": "4.2.1",
        "to": "4.2.3",
      },
    ],
  },
  "inchanges": 5,
  "ignores": {
    "count": 3,
    "items": [
      {
        "ref": "config",
        "name": "config.yaml",
        "version": null,
        "raison": "ni purl ni CPE",
      },
      {
        "ref": "pkg:generic/openssl@3.0.13",
        "name": "openssl",
        "version": "3.0.13",
        "raison":
          "purl « pkg:generic/openssl@3.0.13 » : type de purl non pris en charge : generic (types : pypi, npm, maven, golang, cargo, gem, nuget, composer, hex, pub, hackage, cran, swift, cocoapods, deb, apk, rpm)",
      },
      {
        "ref": "reporting",
        "name": "reporting",
        "version": "1.0.0",
        "raison": "ni purl ni CPE",
      },
    ],
  },
  "alertes_creees": 0,
  "alertes_plus_correspondantes": 0,
  "alertes_correspondantes_a_nouveau": 0,
};

const sbomRow = { ...DIFFERENCE.sbom };

const item = (id: string, value: string, sbom_id: string | null) => ({
  id,
  item_type: value.startsWith("cpe:") ? "cpe" : "purl",
  value,
  min_severity: null,
  tags: [],
  created_at: "2026-11-26T11:13:10.354Z",
  eol: null,
  sbom_id,
});

const ITEMS = [
  item("bafa485b-29db-48da-ada2-6265dc44e43b", "pkg:pypi/django@4.2.3", SBOM),
  item("fdb1e373-f831-418d-842a-45ac5f1bdd20", "pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1", SBOM),
  item("aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "pkg:npm/express@4.18.2", null),
];

/** The stack's routes as the server answers them; `upload` answers the SBOM POST. */
function server(upload: (req: Request) => Response = () => json(200, DIFFERENCE)) {
  return (req: Request, u: URL): Response | null => {
    if (u.pathname === `${STACKS}/${STACK}` && req.method === "GET")
      return json(200, { id: STACK, name: "Inventaire", project_id: PROJECT, items: ITEMS });
    if (u.pathname === `${STACKS}/${STACK}/sboms`) return json(200, [sbomRow]);
    if (u.pathname === `${STACKS}/${STACK}/sboms/${SBOM}` && req.method === "DELETE")
      return json(200, { items_retires: 8, alertes_plus_correspondantes: 1 });
    if (u.pathname === `${STACKS}/${STACK}/items`) {
      const q = u.searchParams.get("q") ?? "";
      const found = ITEMS.filter((i) => i.value.includes(q));
      return json(200, { items: found, total: q ? found.length : 1203, page: Number(u.searchParams.get("page")), page_size: 50 });
    }
    if (u.pathname === `${STACKS}/${STACK}/sbom` && req.method === "POST") return upload(req);
    if (u.pathname.endsWith("/monitored-urls")) return json(200, { items: [], total: 0, page: 1, page_size: 20 });
    return null;
  };
}

const fileInput = () => screen.getByLabelText("Choisir un fichier SBOM", { selector: "input" }) as HTMLInputElement;

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("a stack's SBOM import", () => {
  it("sends the chosen file as it is, with its media type, and shows the difference the server answers", async () => {
    const { calls } = await renderAt(`/p/${PROJECT}/stacks/${STACK}`, "admin", server());
    const text = '{"bomFormat": "CycloneDX", "specVersion": "1.6", "serialNumber": "urn:uuid:7d0c5c1e-4d2b-4a8e-9b1e-5a0f3c9e2b61"}';
    await screen.findByRole("heading", { name: "Inventaire", level: 1 });
    fireEvent.change(fileInput(), { target: { files: [new File([text], "inventaire.cdx.json")] } });
    const result = await screen.findByTestId("sbom-result");
    const post = calls.find((c) => c.method === "POST")!;
    expect(new URL(post.url).pathname).toBe(`${STACKS}/${STACK}/sbom`);
    expect(post.headers.get("content-type")).toBe("application/vnd.cyclonedx+json");
    expect(await post.text()).toBe(text);

    expect(within(result).getByRole("heading").textContent).toBe("SBOM « inventaire@2.1.0 » rechargé : voici ce qui a changé.");
    const counts = Object.fromEntries(
      within(result)
        .getAllByRole("term")
        .map((dt) => [dt.textContent, dt.nextElementSibling?.textContent]),
    );
    expect(counts).toEqual({ Ajoutés: "1", Retirés: "1", "Versions changées": "2", Inchangés: "5", Ignorés: "3" });
    // Each list closed, its entries inside.
    const changed = within(result).getByText("Versions changées (2)").closest("details")!;
    expect(changed.open).toBe(false);
    expect(changed.textContent).toContain("pkg:pypi/django : 4.2.1 → 4.2.3");
    expect(within(result).getByText("Éléments retirés (1)").closest("details")!.textContent).toContain("pkg:cargo/cap-primitives@3.4.0");
    expect(within(result).getByText("Composants ignorés (3)").closest("details")!.textContent).toContain(
      "config.yaml (ignoré : ni purl ni CPE)",
    );
    expect(result.textContent).toContain("Aucune alerte levée.");
  });

  it("lists each fault of a refused document with its place, and says a file over 50 MB is not sent", async () => {
    const { calls } = await renderAt(
      `/p/${PROJECT}/stacks/${STACK}`,
      "admin",
      server(() =>
        // The server's 422 to test/fixtures/sbom/invalid-components.cdx.json, then to syntax-error.cdx.json (one list here).
        json(422, {
          detail: [
            { type: "value_error", loc: ["body", "components", 3], msg: "Value error, must have required property 'name'", input: null },
            {
              type: "value_error",
              loc: ["body", "components", 15, "components", 0, "type"],
              msg: 'Value error, must be equal to one of the allowed values: "application", "framework", "library"',
              input: null,
            },
            {
              type: "value_error",
              loc: ["body", "line 1013"],
              msg: "Value error, JSON invalide à la ligne 1013 : expected ','.",
              input: null,
            },
          ],
        }),
      ),
    );
    await screen.findByRole("heading", { name: "Inventaire", level: 1 });
    fireEvent.change(fileInput(), { target: { files: [new File(["<bom/>"], "x.xml")] } });
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("x.xml refusé : 3 défauts. Rien n'a été enregistré.");
    const rows = within(alert)
      .getAllByRole("row")
      .slice(1)
      .map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent));
    expect(rows).toEqual([
      ["/components/3", "must have required property 'name'"],
      ["/components/15/components/0/type", 'must be equal to one of the allowed values: "application", "framework", "library"'],
      ["ligne 1013", "JSON invalide à la ligne 1013 : expected ','."],
    ]);
    expect(calls.find((c) => c.method === "POST")!.headers.get("content-type")).toBe("application/vnd.cyclonedx+xml");

    // Over the limit: refused here, nothing sent.
    const big = new File(["{}"], "huge.cdx.json");
    Object.defineProperty(big, "size", { value: 60 * 1024 * 1024 });
    const before = calls.filter((c) => c.method === "POST").length;
    fireEvent.change(fileInput(), { target: { files: [big] } });
    await waitFor(() =>
      expect(screen.getByRole("alert").textContent).toBe("Fichier trop volumineux (60 Mo) : 50 Mo au plus. Rien n'a été envoyé."),
    );
    expect(calls.filter((c) => c.method === "POST").length).toBe(before);
  });

  it("pages the items with their origin, searches them, and removes an SBOM after a confirmation about the alerts", async () => {
    const { calls } = await renderAt(`/p/${PROJECT}/stacks/${STACK}`, "admin", server());
    const table = await screen.findByRole("table", { name: "Éléments surveillés (1203)" });
    expect(screen.getByText("Page 1 sur 25 · 1203 éléments")).toBeTruthy();
    const origins = within(table)
      .getAllByRole("row")
      .slice(1)
      .map((r) => r.querySelectorAll("td")[1]?.textContent);
    expect(origins).toEqual(["inventaire@2.1.0", "inventaire@2.1.0", "saisi à la main"]);
    fireEvent.click(screen.getByRole("button", { name: "Suivante" }));
    await waitFor(() => expect(calls.some((c) => new URL(c.url).searchParams.get("page") === "2")).toBe(true));
    fireEvent.change(screen.getByLabelText("Rechercher un élément (valeur)"), { target: { value: "log4j" } });
    await screen.findByRole("table", { name: "Éléments surveillés (1)" });
    const search = calls.filter((c) => new URL(c.url).pathname.endsWith("/items")).at(-1)!;
    // A new search starts at page 1.
    expect(Object.fromEntries(new URL(search.url).searchParams)).toEqual({ q: "log4j", page: "1", page_size: "50" });

    const sboms = screen.getByRole("table", { name: "SBOM chargés dans la pile, du plus ancien au plus récent" });
    expect(within(sboms).getAllByRole("row")[1]!.textContent).toContain("CycloneDX 1.6 (JSON)");
    fireEvent.click(within(sboms).getByRole("button", { name: "Retirer le SBOM inventaire@2.1.0" }));
    expect(sboms.textContent).toContain("Les alertes qu'ils ont levées sont conservées");
    expect(calls.some((c) => c.method === "DELETE")).toBe(false);
    fireEvent.click(screen.getByRole("button", { name: "Confirmer le retrait" }));
    await waitFor(() =>
      expect(screen.getByText("SBOM retiré : 8 éléments retirés, 1 alerte marquée « ne correspond plus ».")).toBeTruthy(),
    );
    expect(new URL(calls.find((c) => c.method === "DELETE")!.url).pathname).toBe(`${STACKS}/${STACK}/sboms/${SBOM}`);
  });

  it("puts the add-item form before the SBOM panels, and starts each new item's severity from none", async () => {
    const added: unknown[] = [];
    const { calls } = await renderAt(`/p/${PROJECT}/stacks/${STACK}`, "admin", (req, u) => {
      if (u.pathname === `${STACKS}/${STACK}/items` && req.method === "POST") {
        added.push(null);
        return json(201, { ...item("bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb", "pkg:pypi/flask@2.0.0", null), alertes_creees: 0 });
      }
      return server()(req, u);
    });
    const form = (await screen.findByRole("button", { name: "Ajouter l'élément" })).closest("form")!;
    const sbomPanel = screen.getByLabelText("Choisir un fichier SBOM", { selector: "input" });
    // The form comes first in the document.
    expect(form.compareDocumentPosition(sbomPanel) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    const severity = within(form).getByLabelText("Sévérité minimale") as HTMLSelectElement;
    fireEvent.change(within(form).getByLabelText("Valeur"), { target: { value: "pkg:pypi/flask@2.0.0" } });
    fireEvent.change(severity, { target: { value: "high" } });
    fireEvent.click(within(form).getByRole("button", { name: "Ajouter l'élément" }));
    await waitFor(() => expect(added.length).toBe(1));
    const post = calls.find((c) => c.method === "POST" && new URL(c.url).pathname.endsWith("/items"))!;
    expect(await post.json()).toMatchObject({ min_severity: "high" });
    await waitFor(() => expect(severity.value).toBe(""));
  });

  it("shows a member the import and the removal disabled, with the role they need", async () => {
    await renderAt(`/p/${PROJECT}/stacks/${STACK}`, "member", server());
    await screen.findByRole("table", { name: "SBOM chargés dans la pile, du plus ancien au plus récent" });
    expect(fileInput().disabled).toBe(true);
    expect(screen.getByText("Importer un SBOM : réservé au rôle « administrateur » ou supérieur.")).toBeTruthy();
    expect((screen.getByRole("button", { name: "Retirer le SBOM inventaire@2.1.0" }) as HTMLButtonElement).disabled).toBe(true);
    // Downloading is for every role.
    expect((screen.getByRole("button", { name: "Télécharger en CycloneDX" }) as HTMLButtonElement).disabled).toBe(false);
  });
});

describe("the SBOM media type", () => {
  it("is told from the first bytes: CycloneDX or SPDX JSON, XML, else generic JSON for the server to decide", () => {
    expect(sbomMediaType("bom.json", '\uFEFF {\n  "bomFormat": "CycloneDX",')).toBe("application/vnd.cyclonedx+json");
    expect(sbomMediaType("npm.json", '{ "spdxVersion": "SPDX-2.3", "dataLicense": "CC0-1.0"')).toBe("application/spdx+json");
    expect(sbomMediaType("bom.xml", '<?xml version="1.0"?><bom xmlns="http://cyclonedx.org/schema/bom/1.5">')).toBe(
      "application/vnd.cyclonedx+xml",
    );
    expect(sbomMediaType("doc", "<html>")).toBe("application/xml");
    expect(sbomMediaType("x.json", '{ "name": "x" }')).toBe("application/json");
  });

  it("turns a 422's locations into JSON pointers and lines", () => {
    const err = new ApiError(422, [
      { loc: ["body"], msg: "Value error, Le document est vide." },
      { loc: ["body", "a/b", 0], msg: "x" },
      { loc: ["query", "name"], msg: "trop long" },
    ]);
    expect(faultsOf(err)).toEqual([
      { where: null, message: "Le document est vide." },
      { where: "/a~1b/0", message: "x" },
      { where: "name", message: "trop long" },
    ]);
  });
});
