import { describe, expect, it } from "vitest";
import { fieldMessages, fieldOf, forbiddenWords, itemWords, requiredBlank } from "./pydantic";

// The 422 items are the server's own shapes (src/platform/pydantic: string_too_short with ctx
// min_length, missing, greater_than_equal with ctx ge, value_error with its « Value error, » prefix).
const tooShort = {
  type: "string_too_short",
  loc: ["body", "justification"],
  msg: "String should have at least 1 character",
  ctx: { min_length: 1 },
};
const missing = { type: "missing", loc: ["body", "name"], msg: "Field required" };
const ge = { type: "greater_than_equal", loc: ["query", "page"], msg: "Input should be greater than or equal to 1", ctx: { ge: 1 } };
const rule = {
  type: "value_error",
  loc: ["body", "measure"],
  msg: "Value error, measure est requise pour une exception MITIGATED",
  ctx: { error: {} },
};

describe("a 422's items in the application's words", () => {
  it("maps loc to the field: the body's path, a query parameter's name, the whole document", () => {
    expect(fieldOf(["body", "items", 0, "value"])).toBe("items.0.value");
    expect(fieldOf(["query", "page"])).toBe("page");
    expect(fieldOf(["body"])).toBe("");
  });
  it("says each Pydantic type in French and in English, never Pydantic's English", () => {
    expect(itemWords(tooShort, "fr")).toBe("Ce champ est obligatoire.");
    expect(itemWords(tooShort, "en")).toBe("This field is required.");
    expect(itemWords({ ...tooShort, ctx: { min_length: 8 } }, "fr")).toBe("Au moins 8 caractères.");
    expect(itemWords(missing, "fr")).toBe("Ce champ est obligatoire.");
    expect(itemWords(ge, "en")).toBe("At least 1.");
    expect(itemWords({ type: "string_too_long", loc: ["body", "name"], ctx: { max_length: 200 } }, "fr")).toBe("Au plus 200 caractères.");
  });
  it("keeps a rule's words without « Value error, », unless the form says the rule itself", () => {
    expect(itemWords(rule, "fr")).toBe("measure est requise pour une exception MITIGATED");
    expect(fieldMessages([tooShort, rule], "en", { measure: "Say which measure is in place." })).toEqual({
      justification: "This field is required.",
      measure: "Say which measure is in place.",
    });
  });
  it("keeps the first item of a field, and the whole document's under « _ »", () => {
    expect(fieldMessages([tooShort, { ...tooShort, type: "string_type" }, { type: "json_invalid", loc: ["body", 3] }], "fr")).toEqual({
      justification: "Ce champ est obligatoire.",
      "3": "Le document n'est pas un JSON valide.",
    });
    expect(fieldMessages([{ type: "missing", loc: ["body"] }], "fr")).toEqual({ _: "Ce champ est obligatoire." });
    expect(fieldMessages("not a list", "fr")).toEqual({});
  });
  it("flags every blank required field at once", () => {
    expect(requiredBlank({ measure: " ", justification: "", expires_on: "2026-12-01", other: null }, "!")).toEqual({
      measure: "!",
      justification: "!",
      other: "!",
    });
  });
});

describe("a 403 in the user's language", () => {
  // src/platform/messages.ts AUTH.missingRole("admin"), as the server sends it.
  const detail = "Rôle insuffisant : cette opération exige le rôle « admin » (ou supérieur) dans l'organisation";
  it("names the role in the user's words", () => {
    expect(forbiddenWords(detail, "fr")).toBe("Votre rôle ne le permet pas : il faut être administrateur (ou plus) dans l'organisation.");
    expect(forbiddenWords(detail, "en")).toBe("Your role does not allow this: it takes administrator (or above) in the organization.");
  });
  it("keeps any other 403's sentence", () => {
    expect(forbiddenWords("Accès refusé", "en")).toBe("Accès refusé");
    expect(forbiddenWords(undefined, "en")).toBeUndefined();
  });
});
