import type { z } from "zod";
import { BadRequest, ValidationFailed } from "../errors.js";
import { missing, validate, type PydanticError } from "./pydantic.js";
import { nestsDeeperThan, parsePythonJson } from "./pyjson.js";

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
  // Python's decoder gives up on absurd nesting (RecursionError): FastAPI's answer, before any 422
  // whose `input` would carry the whole structure back.
  if (nestsDeeperThan(req.rawBody)) throw new BadRequest("There was an error parsing the body");
  const parsed = parsePythonJson(req.rawBody.charCodeAt(0) === 0xfeff ? req.rawBody.slice(1) : req.rawBody);
  if (!parsed.ok) {
    throw new ValidationFailed([
      { type: "json_invalid", loc: ["body", parsed.pos], msg: "JSON decode error", input: {}, ctx: { error: parsed.msg } },
    ]);
  }
  return parsed.value;
}

/**
 * Validates path, query, header and body in FastAPI's order and returns the coerced values;
 * every failure of every part comes in one ValidationFailed.
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
      value = validate(schemas.body, body, ["body"], errors);
    }
  }
  if (errors.length) throw new ValidationFailed(errors);
  return { params, query, headers, body: value };
}
