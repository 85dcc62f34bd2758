import { describe, expect, it } from "vitest";
import { sourceProtocol, workflowName } from "./server-words";

describe("the application's words for the server's codes", () => {
  // The server's own words (src/feeds/publishers/file.ts, workflows.service.ts createDefault).
  const fileProtocol = "un fichier, requête conditionnelle (ETag, Last-Modified)";
  it("says how a source follows its publisher in the user's language; an unknown source keeps the server's words", () => {
    expect(sourceProtocol("kev", fileProtocol, "en")).toBe("one file, conditional request (ETag, Last-Modified)");
    expect(sourceProtocol("kev", fileProtocol, "fr")).toBe(fileProtocol);
    expect(sourceProtocol("ghsa", "une source future", "en")).toBe("une source future");
  });
  it("names the default workflow in the user's language until someone renames it", () => {
    const wf = { name: "Nouvelle correspondance → dossier", is_default: true };
    expect(workflowName(wf, "en")).toBe("New match → case");
    expect(workflowName(wf, "fr")).toBe("Nouvelle correspondance → dossier");
    expect(workflowName({ ...wf, name: "Tri SOC" }, "en")).toBe("Tri SOC");
    expect(workflowName({ ...wf, is_default: false }, "en")).toBe("Nouvelle correspondance → dossier");
    // Today's default name (verified P1/P2 matches open a case), from the server's createDefault.
    expect(workflowName({ name: "Correspondance vérifiée P1/P2 → dossier", is_default: true }, "en")).toBe("Verified P1/P2 match → case");
  });
});
