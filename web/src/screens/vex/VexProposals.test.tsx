import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { json, ORG, PROJECT, renderAt } from "../cases/testing";
// The CISA use case 1 document, as CycloneDX/bom-examples publishes it (test/fixtures/vex/SOURCES.md).
import CISA from "../../../../test/fixtures/vex/cdx-cisa-case1-not_affected.json?raw";

const VEX_PATH = `/api/v1/organizations/${ORG}/projects/${PROJECT}/vex`;

/**
 * The server's proposals (vex branch, this repository) after importing test/fixtures/vex/
 * csaf-oasis-2022-evd-uc-01-na-001.json and cdx-cisa-case1-not_affected.json into a project alerted
 * on CVE-2021-44228: as GET …/vex/proposals answered them.
 */
const PROPOSALS: Record<string, unknown>[] = [
  {
    "id": "d312cd7b-0fdb-4311-a309-64f01e9cdd3b",
    "cve_id": "CVE-2021-44228",
    "status": "proposee",
    "vex_status": "known_not_affected",
    "justification": null,
    "impact_statement": "Class with vulnerable code was removed before shipping.",
    "products": ["Example Company ABC 4.2"],
    "source": {
      "format": "csaf",
      "document": "2022-EVD-UC-01-NA-001",
      "author": "Example Company ProductCERT",
      "timestamp": "2022-03-03T11:00:00.000Z",
    },
    "created_at": "2026-11-26T11:13:45.804Z",
    "decided_at": null,
    "decided_by": null,
    "decision_comment": null,
    "case_status": null,
  },
  {
    "id": "7b06cf00-a9ba-4402-9715-4dfd9c6a2b3a",
    "cve_id": "CVE-2021-44228",
    "status": "proposee",
    "vex_status": "not_affected",
    "justification": "vulnerable_code_not_present",
    "impact_statement":
      "This version of Product ABC is not affected by the vulnerability. Class with vulnerable code was removed before shipping.",
    "products": ["ABC 4.2"],
    "source": {
      "format": "cyclonedx",
      "document": "sha256:9699338925cb2f1671db6f5ba99642e5b94bec4f54e248fb6c5d5ab8c2ccde59",
      "author": null,
      "timestamp": "2022-03-03T00:00:00.000Z",
    },
    "created_at": "2026-11-26T11:13:45.150Z",
    "decided_at": null,
    "decided_by": null,
    "decision_comment": null,
    "case_status": null,
  },
];

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function server(decide: (how: string, req: Request) => Response) {
  let proposals = PROPOSALS;
  return (req: Request, u: URL): Response | null => {
    if (u.pathname === VEX_PATH && req.method === "POST")
      return json(200, {
        format: "cyclonedx",
        document: "sha256:9699338925cb2f1671db6f5ba99642e5b94bec4f54e248fb6c5d5ab8c2ccde59",
        proposees: 1,
        deja_connues: 0,
        ignorees: { count: 1, items: [{ cve_id: "CVE-2014-123456", raison: "statut fixed : seul not_affected est proposé" }] },
      });
    if (u.pathname === `${VEX_PATH}/proposals`) {
      const status = u.searchParams.get("status");
      const items = proposals.filter((p) => !status || p.status === status);
      return json(200, { items, total: items.length, page: 1, page_size: 20 });
    }
    const m = /\/vex\/proposals\/([^/]+)\/(accept|reject)$/.exec(u.pathname);
    if (m && req.method === "POST") {
      const r = decide(m[2]!, req);
      if (r.ok) proposals = proposals.map((p) => (p.id === m[1] ? { ...p, status: m[2] === "accept" ? "acceptee" : "rejetee" } : p));
      return r;
    }
    return null;
  };
}

describe("the VEX proposals screen", () => {
  it("imports a supplier's VEX as it is and says what became of each statement", async () => {
    const { calls } = await renderAt(
      `/p/${PROJECT}/cases/vex`,
      "member",
      server(() => json(500, {})),
    );
    await screen.findByRole("heading", { name: "Propositions VEX", level: 1 });
    const input = screen.getByLabelText("Choisir un fichier VEX", { selector: "input" });
    fireEvent.change(input, { target: { files: [new File([CISA], "vex-not_affected.json")] } });
    const result = await screen.findByTestId("vex-result");
    const post = calls.find((c) => c.method === "POST")!;
    expect(new URL(post.url).pathname).toBe(VEX_PATH);
    expect(post.headers.get("content-type")).toBe("application/json");
    // The bytes the supplier published, not a re-serialization.
    expect(await post.text()).toBe(CISA);
    expect(result.textContent).toContain(
      "Document CycloneDX « sha256:9699338925cb2f1671db6f5ba99642e5b94bec4f54e248fb6c5d5ab8c2ccde59 » lu.",
    );
    const counts = Object.fromEntries(
      within(result)
        .getAllByRole("term")
        .map((dt) => [dt.textContent, dt.nextElementSibling?.textContent]),
    );
    expect(counts).toEqual({ "Propositions créées": "1", "Déjà connues": "0", Ignorées: "1" });
    expect(result.textContent).toContain("CVE-2014-123456 — statut fixed : seul not_affected est proposé");

    // A file that is no JSON is not sent.
    const before = calls.filter((c) => c.method === "POST").length;
    fireEvent.change(input, { target: { files: [new File(["SPDXVersion: SPDX-2.3"], "notes.spdx")] } });
    expect((await screen.findByRole("alert")).textContent).toBe(
      "notes.spdx n'est pas un document JSON : un VEX CycloneDX, CSAF ou OpenVEX est du JSON.",
    );
    expect(calls.filter((c) => c.method === "POST").length).toBe(before);
  });

  it("shows each proposal's CVE, justification, statement and source; accepts one with a comment", async () => {
    const { calls } = await renderAt(
      `/p/${PROJECT}/cases/vex`,
      "member",
      server(() => json(200, {})),
    );
    const cards = await screen.findAllByRole("article");
    expect(cards).toHaveLength(2);
    const cdx = cards.find((c) => c.textContent!.includes("ABC 4.2") && c.textContent!.includes("CycloneDX"))!;
    expect(within(cdx).getByRole("heading").textContent).toBe("CVE-2021-44228");
    expect(cdx.textContent).toContain("Code vulnérable absent");
    expect(cdx.textContent).toContain("Class with vulnerable code was removed before shipping.");
    expect(cdx.textContent).toContain("Auteur : non indiqué");
    // No case yet: the CVE links to the explorer.
    expect(within(cdx).getByRole("link", { name: "CVE-2021-44228" }).getAttribute("href")).toBe("/cves/CVE-2021-44228");
    const csaf = cards.find((c) => c !== cdx)!;
    expect(csaf.textContent).toContain("aucune : la déclaration ne donne qu'une explication");
    expect(csaf.textContent).toContain("CSAF 2.0 · 2022-EVD-UC-01-NA-001");
    expect(csaf.textContent).toContain("Example Company ProductCERT");

    fireEvent.change(within(cdx).getByLabelText("Commentaire (facultatif, conservé avec la décision)"), {
      target: { value: "confirmé par l'éditeur" },
    });
    fireEvent.click(within(cdx).getByRole("button", { name: "Accepter la proposition pour CVE-2021-44228" }));
    expect((await screen.findByText(/^Proposition acceptée/)).textContent).toBe(
      "Proposition acceptée : le dossier CVE-2021-44228 est « Non concerné ».",
    );
    const accept = calls.find((c) => c.method === "POST")!;
    expect(new URL(accept.url).pathname).toBe(`${VEX_PATH}/proposals/7b06cf00-a9ba-4402-9715-4dfd9c6a2b3a/accept`);
    expect(await accept.json()).toEqual({ comment: "confirmé par l'éditeur" });
    // Decided: it leaves the waiting list.
    await waitFor(() => expect(screen.getAllByRole("article")).toHaveLength(1));
  });

  it("says in words why a decision was refused (409)", async () => {
    await renderAt(
      `/p/${PROJECT}/cases/vex`,
      "member",
      server(() =>
        json(409, {
          detail: {
            code: "proposition_decidee",
            message: "Cette proposition VEX est déjà décidée (acceptee) : importer le document à nouveau ne la rouvre pas",
            status: "acceptee",
          },
        }),
      ),
    );
    const cards = await screen.findAllByRole("article");
    fireEvent.click(within(cards[0]!).getByRole("button", { name: "Rejeter la proposition pour CVE-2021-44228" }));
    expect((await screen.findByRole("alert")).textContent).toBe(
      "Décision refusée : Cette proposition VEX est déjà décidée (acceptee) : importer le document à nouveau ne la rouvre pas",
    );
  });

  it("shows a viewer the decisions disabled, with the role they need", async () => {
    await renderAt(
      `/p/${PROJECT}/cases/vex`,
      "viewer",
      server(() => json(200, {})),
    );
    const cards = await screen.findAllByRole("article");
    expect((within(cards[0]!).getByRole("button", { name: /^Accepter/ }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByLabelText("Choisir un fichier VEX", { selector: "input" }) as HTMLInputElement).disabled).toBe(true);
    expect(screen.getByText("Importer un VEX et décider des propositions : réservé au rôle « membre » ou supérieur.")).toBeTruthy();
  });
});
