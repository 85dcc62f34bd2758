import type { z } from "zod";
import { BodyParseError, RequestInvalid } from "./error-body.js";
import { missing, validate, valueError, type Loc, type PydanticError } from "../pydantic/validate.js";
import { parsePythonJson } from "./pyjson.js";

/** The parts of a request a route declares, each validated as FastAPI does. */
export interface RequestSchemas {
  params?: z.ZodObject;
  query?: z.ZodObject;
  headers?: z.ZodObject;
  body?: z.ZodType;
}

export interface RawRequest {
  params: Record<string, string | undefined>;
  query: Record<string, string | string[] | undefined>;
  headers: Record<string, string | string[] | undefined>;
  /** The body as received (the JSON content parser keeps it as text), or undefined when empty. */
  rawBody: string | undefined;
  contentType: string | undefined;
}

interface Field {
  name: string;
  schema: z.ZodType;
  isList: boolean;
  /** Value used when the parameter is absent (default or undefined), or NO_DEFAULT when it is required. */
  absent: unknown;
}

const NO_DEFAULT = Symbol("required");
const compiled = new WeakMap<z.ZodObject, Field[]>();

function fieldsOf(schema: z.ZodObject): Field[] {
  let fields = compiled.get(schema);
  if (!fields) {
    fields = Object.entries(schema.shape).map(([name, s]) => {
      const field = s as z.ZodType;
      const absent = field.safeParse(undefined);
      return {
        name,
        schema: field,
        isList: unwrapType(field) === "array",
        absent: absent.success ? absent.data : NO_DEFAULT,
      };
    });
    compiled.set(schema, fields);
  }
  return fields;
}

function unwrapType(s: z.ZodType): string {
  let def = (s as unknown as { _zod: { def: { type: string; innerType?: z.ZodType } } })._zod.def;
  while (def.innerType && (def.type === "optional" || def.type === "nullable" || def.type === "default")) {
    def = (def.innerType as unknown as { _zod: { def: { type: string; innerType?: z.ZodType } } })._zod.def;
  }
  return def.type;
}

/**
 * The text of a 422 for a NUL character. PostgreSQL cannot store U+0000 in text, so every request
 * string (path, query, header, and every JSON string of a body, keys included) is refused before
 * anything else reads it, as a FastAPI `BeforeValidator` raising ValueError would answer
 * (`value_error`, "Value error, …", ctx `{"error": {}}`), at the string's own loc.
 */
export const NUL_MESSAGE = "le texte ne doit pas contenir le caractère NUL (U+0000)";

/** Pushes a NUL error for every string under `value` (a dict key at `[...loc, key, "[key]"]`, as Pydantic places key errors). */
export function findNul(value: unknown, loc: Loc, errors: PydanticError[]): void {
  if (typeof value === "string") {
    if (value.includes("\0")) errors.push(valueError(loc, NUL_MESSAGE, value));
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) findNul(value[i], [...loc, i], errors);
  } else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes("\0")) errors.push(valueError([...loc, k, "[key]"], NUL_MESSAGE, k));
      findNul(v, [...loc, k], errors);
    }
  }
}

function validateParams(
  schema: z.ZodObject | undefined,
  source: Record<string, string | string[] | undefined>,
  where: "path" | "query" | "header",
  errors: PydanticError[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!schema) return out;
  for (const f of fieldsOf(schema)) {
    const raw = source[f.name];
    // Starlette keeps the last value of a repeated single-valued parameter.
    const value = f.isList ? (raw === undefined ? undefined : ([] as string[]).concat(raw)) : Array.isArray(raw) ? raw.at(-1) : raw;
    if (value === undefined) {
      if (f.absent === NO_DEFAULT) errors.push(missing([where, f.name], null));
      else out[f.name] = f.absent;
      continue;
    }
    const before = errors.length;
    findNul(value, [where, f.name], errors);
    if (errors.length > before) continue; // the before-validator failed: the type is not checked
    out[f.name] = validate(f.schema, value, [where, f.name], errors);
  }
  return out;
}

function isJsonContentType(ct: string | undefined): boolean {
  if (!ct) return true; // FastAPI reads a body without Content-Type as JSON
  const mime = ct.split(";")[0]!.trim().toLowerCase();
  return mime === "application/json" || (mime.startsWith("application/") && mime.endsWith("+json"));
}

/**
 * Decodes the JSON body first (FastAPI rejects undecodable JSON before anything else).
 * Returns undefined for an empty body.
 */
export function decodeBody(req: RawRequest): unknown {
  if (req.rawBody === undefined || req.rawBody === "") return undefined;
  if (!isJsonContentType(req.contentType)) return req.rawBody;
  // FastAPI decodes the body bytes with a BOM-tolerant decoder before json.loads.
  const parsed = parsePythonJson(req.rawBody.charCodeAt(0) === 0xfeff ? req.rawBody.slice(1) : req.rawBody);
  if (!parsed.ok && "tooDeep" in parsed) throw new BodyParseError();
  if (!parsed.ok) {
    throw new RequestInvalid([
      { type: "json_invalid", loc: ["body", parsed.pos], msg: "JSON decode error", input: {}, ctx: { error: parsed.msg } },
    ]);
  }
  return parsed.value;
}

/**
 * Validates path, query, header and body in FastAPI's order and returns the coerced values;
 * every failure of every part comes in one RequestInvalid.
 */
export function validateRequest(schemas: RequestSchemas, req: RawRequest, body: unknown) {
  const errors: PydanticError[] = [];
  const params = validateParams(schemas.params, req.params, "path", errors);
  const query = validateParams(schemas.query, req.query, "query", errors);
  const headers = validateParams(schemas.headers, req.headers, "header", errors);
  let value: unknown;
  if (schemas.body) {
    if (body === undefined) {
      const absent = schemas.body.safeParse(undefined);
      if (absent.success) value = absent.data;
      else errors.push(missing(["body"], null));
    } else {
      const before = errors.length;
      findNul(body, ["body"], errors);
      if (errors.length === before) value = validate(schemas.body, body, ["body"], errors);
    }
  }
  if (errors.length) throw new RequestInvalid(errors);
  return { params, query, headers, body: value };
}
