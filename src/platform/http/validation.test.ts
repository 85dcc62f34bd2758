/**
 * Request-level guards of validateRequest. Reference answers from FastAPI 0.142.2 + Pydantic 2.13.5:
 *  - `page: Annotated[int, Query(ge=1, le=100000)] = 1` with page=99999999999999999999 / 100001 / 0;
 *  - a NUL check written as `Annotated[str, BeforeValidator(f)]` where f raises ValueError(message):
 *    {"type": "value_error", "loc": [...], "msg": "Value error, <message>", "input": <the text>, "ctx": {"error": {}}}.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BodyParseError, RequestInvalid } from "./error-body.js";
import { MAX_PAGE, PAGING } from "./paging.js";
import { decodeBody, findNul, NUL_MESSAGE, validateRequest, type RawRequest } from "./validation.js";
import type { PydanticError } from "../pydantic/validate.js";

const request = (over: Partial<RawRequest>): RawRequest => ({
  params: {},
  query: {},
  headers: {},
  rawBody: undefined,
  contentType: "application/json",
  ...over,
});

function failures(fn: () => unknown): PydanticError[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof RequestInvalid) return e.errors;
    throw e;
  }
  throw new Error("expected a RequestInvalid");
}

const nul = (loc: (string | number)[], input: string) => ({
  type: "value_error",
  loc,
  msg: `Value error, ${NUL_MESSAGE}`,
  input,
  ctx: { error: {} },
});

describe("paging bounds (FastAPI Query(ge=1, le=100000))", () => {
  const query = z.object({ q: z.string().optional(), ...PAGING });

  it("past the bound: less_than_equal with the text as input, even past 2^64", () => {
    expect(MAX_PAGE).toBe(100_000);
    for (const page of ["99999999999999999999", "100001"]) {
      expect(failures(() => validateRequest({ query }, request({ query: { page } }), undefined))).toEqual([
        {
          type: "less_than_equal",
          loc: ["query", "page"],
          msg: "Input should be less than or equal to 100000",
          input: page,
          ctx: { le: 100000 },
        },
      ]);
    }
    expect(failures(() => validateRequest({ query }, request({ query: { page: "0", page_size: "101" } }), undefined))).toEqual([
      { type: "greater_than_equal", loc: ["query", "page"], msg: "Input should be greater than or equal to 1", input: "0", ctx: { ge: 1 } },
      {
        type: "less_than_equal",
        loc: ["query", "page_size"],
        msg: "Input should be less than or equal to 100",
        input: "101",
        ctx: { le: 100 },
      },
    ]);
  });

  it("the bound itself is accepted, and (page - 1) * page_size stays a safe integer", () => {
    const { query: q } = validateRequest({ query }, request({ query: { page: "100000", page_size: "100" } }), undefined);
    expect(q).toEqual({ page: 100000, page_size: 100 });
    expect(Number.isSafeInteger((q.page as number) * (q.page_size as number))).toBe(true);
  });
});

describe("NUL (U+0000) in any text: value_error at its loc", () => {
  it("query, path and header values, each at its own loc, and list items at their index", () => {
    const schemas = {
      params: z.object({ id: z.string() }),
      query: z.object({ q: z.string().optional(), severity: z.array(z.string()).optional() }),
      headers: z.object({ "idempotency-key": z.string() }),
    };
    const req = request({ params: { id: "a\0" }, query: { q: "\0", severity: ["high", "x\0y"] }, headers: { "idempotency-key": "k\0" } });
    expect(failures(() => validateRequest(schemas, req, undefined))).toEqual([
      nul(["path", "id"], "a\0"),
      nul(["query", "q"], "\0"),
      nul(["query", "severity", 1], "x\0y"),
      nul(["header", "idempotency-key"], "k\0"),
    ]);
  });

  it("a NUL is reported instead of the type error of the same value (a before-validator runs first)", () => {
    const schemas = { params: z.object({ id: z.uuid() }) };
    expect(failures(() => validateRequest(schemas, request({ params: { id: "\0" } }), undefined))).toEqual([nul(["path", "id"], "\0")]);
  });

  it("body: JSON strings at any depth and keys (Pydantic's dict-key loc [key, '[key]']), even where the schema accepts anything", () => {
    const body = z.object({ name: z.string(), data: z.record(z.string(), z.unknown()).optional() });
    const raw = '{"name": "a\\u0000", "data": {"k\\u0000": [1, {"deep": ["ok", "x\\u0000"]}]}, "ignored": "\\u0000"}';
    const decoded = decodeBody(request({ rawBody: raw }));
    expect(failures(() => validateRequest({ body }, request({ rawBody: raw }), decoded))).toEqual([
      nul(["body", "name"], "a\0"),
      nul(["body", "data", "k\0", "[key]"], "k\0"),
      nul(["body", "data", "k\0", 1, "deep", 1], "x\0"),
      nul(["body", "ignored"], "\0"),
    ]);
  });

  it("text without NUL passes untouched; findNul reports nothing for numbers, booleans, null", () => {
    const errors: PydanticError[] = [];
    findNul({ a: [1, true, null, "é\u0001"], b: 2 }, ["body"], errors);
    expect(errors).toEqual([]);
    const { query } = validateRequest({ query: z.object({ q: z.string() }) }, request({ query: { q: "a%00b" } }), undefined);
    expect(query).toEqual({ q: "a%00b" });
  });
});

describe("bodies nested too deep", () => {
  it("decodeBody raises a 400 'There was an error parsing the body' (FastAPI's answer to a RecursionError)", () => {
    const raw = "[".repeat(10_000) + "]".repeat(10_000);
    expect(() => decodeBody(request({ rawBody: raw }))).toThrow(BodyParseError);
    const err = new BodyParseError();
    expect([err.status, err.detail]).toEqual([400, "There was an error parsing the body"]);
  });
});
