/**
 * Validates values against Zod 4 schemas with the semantics — and the exact error objects — of a
 * FastAPI endpoint backed by Pydantic v2 in lax ("python") mode.
 *
 * FastAPI runs `TypeAdapter(...).validate_python(json.loads(body), from_attributes=True)`
 * (fastapi/_compat.py) and answers 422 with `exc.errors(include_url=False)`, each loc prefixed by
 * "body"/"query"/...; so the rules below are pydantic-core's *Python-input* rules
 * (src/input/input_python.rs, src/input/shared.rs), not its JSON-input rules, and a non-dict where a
 * model is expected is `model_attributes_type` (from_attributes=True), not `model_type`.
 * Message templates: pydantic-core src/errors/types.rs (`message_template_python`).
 *
 * Mapping Zod → Pydantic:
 *   z.object → BaseModel (extra="ignore"; z.strictObject → "forbid"; z.looseObject → "allow")
 *   z.string (+min/max/length/regex) → str / constr;  z.uuid / .uuid() / z.guid → uuid.UUID
 *   z.int / .int() → int;  z.number → float;  z.boolean → bool
 *   z.enum / z.literal → Literal[...];  z.array → list;  z.record → dict;  z.null → None
 *   z.any / z.unknown → Any;  .optional / .default / .nullable / .nullish → field default / Optional
 *   z.discriminatedUnion → Field(discriminator=...) tagged union;  z.union → smart Union
 * Refinements and transforms are ignored (custom checks are reported by the caller via `valueError`).
 *
 * Known, deliberate approximations (see the report in the tests' header too):
 *  - JS has one number type: an integral number is treated as a Python int, so `input`/`ctx` values
 *    serialise as `1` where Python would print `1.0` (e.g. float bounds: ctx `{"ge": 1.0}`), and
 *    ints beyond 2^53 lose precision.
 *  - Smart unions (plain z.union) use a strict pass then a lax pass instead of pydantic-core's
 *    exactness scores; ties between models go to the one with the most fields set (pydantic ≥ 2.8).
 *    Member labels in `loc` follow pydantic-core's validator names (`str`, `int`, `list[int]`,
 *    `literal['a','b']`, …); a model's label is its Zod `.meta({ id })` (or title), else "Model".
 *  - z.iso.date() is `datetime.date` (see pydate.ts); other string formats than uuid/guid/date
 *    (email, url, datetime…) are validated as plain `str`.
 *
 * Files: compile.ts turns a schema into a tree of validators (models, containers, unions);
 * scalars.ts and numbers.ts coerce leaf values as pydantic-core's lax mode does; repr.ts renders
 * Python reprs for messages; pydate.ts parses `datetime.date`.
 */
import type { z } from "zod";
import type { Issue, Loc } from "../errors.js";
import { compile } from "./compile.js";
import { absentValue, INVALID, type PydanticError } from "./state.js";

export type { Loc, PydanticError };

/** Pydantic's "missing" error: {type:"missing", loc, msg:"Field required", input}. */
export function missing(loc: Loc, input: unknown): PydanticError {
  return { type: "missing", loc, msg: "Field required", input };
}

/**
 * A model-level / custom validator failure the way Pydantic reports a ValueError raised in a validator:
 * {type:"value_error", loc, msg:"Value error, " + message, input, ctx:{error:{}}}
 * (FastAPI's jsonable_encoder turns the ValueError instance kept in ctx into {}).
 */
export function valueError(loc: Loc, message: string, input: unknown): PydanticError {
  return { type: "value_error", loc, msg: `Value error, ${message}`, input, ctx: { error: {} } };
}

/**
 * An error of this validator as a domain issue (the inverse of http/error-body's issueItem), for the
 * checks a service runs with it (a workflow graph): a value_error is a rule, any other a schema check.
 */
export function issueOf(e: PydanticError): Issue {
  if (e.type === "value_error") return { loc: e.loc, message: e.msg.replace(/^Value error, /, ""), input: e.input };
  return { loc: e.loc, message: e.msg, input: e.input, check: { type: e.type, ...(e.ctx ? { ctx: e.ctx } : {}) } };
}

/**
 * Validates `input` against `schema` with Pydantic v2 lax semantics; pushes errors (in Pydantic's
 * order) and returns the coerced value (undefined when invalid). `input === undefined` means "absent":
 * a required schema then reports `missing` at `loc` with input null, as FastAPI does for a missing body.
 */
export function validate(schema: z.ZodType, input: unknown, loc: Loc, errors: PydanticError[]): unknown {
  const node = compile(schema);
  if (input === undefined) {
    if (node.absent.kind === "required") errors.push(missing(loc.slice(), null));
    const value = absentValue(node, { path: loc.slice(), errors, strict: false });
    return value === INVALID ? undefined : value;
  }
  const out = node.run(input, { path: loc.slice(), errors, strict: false });
  return out === INVALID ? undefined : out;
}
