import { describe, expect, it } from "vitest";
import { Conflict, Forbidden, Invalid, NotFound, TooManyRequests, Unauthorized } from "../errors.js";
import { BodyParseError, errorAnswer, issueItem, RequestInvalid } from "./error-body.js";
import { issueOf, missing, valueError } from "../pydantic/validate.js";

describe("errorAnswer: domain errors to FastAPI answers", () => {
  it("maps each domain error to its status, headers and body", () => {
    expect(errorAnswer(new NotFound("Projet introuvable"))).toEqual({ status: 404, headers: {}, body: { detail: "Projet introuvable" } });
    expect(errorAnswer(new Conflict("version_perimee", "périmée", { current_version: 3 }))).toEqual({
      status: 409,
      headers: {},
      body: { detail: { code: "version_perimee", message: "périmée", current_version: 3 } },
    });
    expect(errorAnswer(new Forbidden("Scope manquant"))).toEqual({ status: 403, headers: {}, body: { detail: "Scope manquant" } });
    expect(errorAnswer(new Unauthorized())).toEqual({
      status: 401,
      headers: { "www-authenticate": "Bearer" },
      body: { detail: "Not authenticated" },
    });
    expect(errorAnswer(new TooManyRequests("Trop", 0.2))).toEqual({
      status: 429,
      headers: { "retry-after": "1" },
      body: { detail: "Trop" },
    });
    expect(errorAnswer(new TooManyRequests("Limite", 41.5, { limit: 10, remaining: 0, resetAt: 1700000000 }))!.headers).toEqual({
      "retry-after": "42",
      "x-ratelimit-limit": "10",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": "1700000000",
    });
  });

  it("answers a rule of the domain as Pydantic's value_error, input null when unset", () => {
    const err = new Invalid([
      { loc: ["body", "tag_ids"], message: "tag inconnu", input: ["x"] },
      { loc: ["body"], message: "y", input: undefined },
    ]);
    expect(errorAnswer(err)).toEqual({
      status: 422,
      headers: {},
      body: {
        detail: [
          { type: "value_error", loc: ["body", "tag_ids"], msg: "Value error, tag inconnu", input: ["x"], ctx: { error: {} } },
          { type: "value_error", loc: ["body"], msg: "Value error, y", input: null, ctx: { error: {} } },
        ],
      },
    });
    expect(err.message).toBe("body.tag_ids: tag inconnu; body: y");
  });

  it("keeps the kind of a schema check through issueOf and issueItem", () => {
    for (const item of [
      missing(["body", "graph", "nodes"], null),
      valueError(["body"], "x", 1),
      {
        type: "string_too_long",
        loc: ["body", "name"],
        msg: "String should have at most 100 characters",
        input: "x",
        ctx: { max_length: 100 },
      },
    ]) {
      expect(issueItem(issueOf(item))).toEqual(item);
    }
  });

  it("answers the HTTP layer's own errors as they say, and nothing for another error", () => {
    expect(errorAnswer(new BodyParseError())).toEqual({
      status: 400,
      headers: {},
      body: { detail: "There was an error parsing the body" },
    });
    expect(errorAnswer(new RequestInvalid([missing(["body"], undefined)]))!.body).toEqual({
      detail: [{ type: "missing", loc: ["body"], msg: "Field required", input: null }],
    });
    expect(errorAnswer(new Error("boom"))).toBeNull();
  });
});
