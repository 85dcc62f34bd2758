/**
 * What every validator of this folder shares: the error object, the walk state, the compiled node
 * shape and the Zod definition accessors.
 */
import type { Loc } from "../errors.js";

/** One item of a 422 `detail`, as pydantic-core reports it. */
export interface PydanticError {
  type: string;
  loc: Loc;
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/** Returned by a validator that failed (after pushing at least one error). */
export const INVALID: unique symbol = Symbol("invalid");

export interface State {
  /** Current location; validators push/pop around children and errors copy it. */
  path: Loc;
  errors: PydanticError[];
  /** Strict pass of a smart union: no coercions. */
  strict: boolean;
}

/** What an absent object key means for a schema: an error, nothing, or a default. */
export type Absent = { kind: "required" } | { kind: "optional" } | { kind: "default"; value: () => unknown; validated: boolean };

/** A compiled validator. */
export interface Node {
  run(input: unknown, st: State): unknown;
  /** pydantic-core's validator name: the loc label of a smart-union member. */
  name(): string;
  /** What an absent object key means for this schema. */
  absent: Absent;
  /** Field names of a model (z.object), used by smart unions to prefer the best-filled model. */
  modelKeys?: string[];
}

/** The part of a Zod 4 definition (`schema._zod.def`) the validators read. */
export interface Def {
  type: string;
  checks?: { _zod: { def: CheckDef } }[];
  [key: string]: unknown;
}
export interface CheckDef {
  check: string;
  [key: string]: unknown;
}

export const REQUIRED: Absent = { kind: "required" };
export const OPTIONAL: Absent = { kind: "optional" };

/** The Zod 4 definition of a schema. */
export const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/** Records an error at the current location; returns INVALID for the caller to return. */
export function fail(st: State, type: string, msg: string, input: unknown, ctx?: Record<string, unknown>): typeof INVALID {
  const error: PydanticError = { type, loc: st.path.slice(), msg, input };
  if (ctx) error.ctx = ctx;
  st.errors.push(error);
  return INVALID;
}

/** The value an absent key takes: its default (validated for `.prefault()`), else undefined. */
export function absentValue(node: Node, st: State): unknown {
  const absent = node.absent;
  if (absent.kind !== "default") return undefined;
  // .prefault(): the default goes through validation; .default(): it does not (validate_default=False).
  return absent.validated ? node.run(absent.value(), st) : absent.value();
}

/** The checks (min/max, formats, bounds) attached to a schema. */
export const checksOf = (def: Def): CheckDef[] => (def.checks ?? []).map((c) => c._zod.def);

/**
 * A lone surrogate (possible in a Python str via a "\ud800" JSON escape) cannot become a Rust &str:
 * wherever pydantic-core reads the text (`py_string_str`: constrained str, uuid, str→int/float/bool,
 * str literals) it fails with string_unicode instead. In `u` mode only unpaired surrogates match.
 */
export const LONE_SURROGATE = /\p{Cs}/u;
/** The string_unicode error of a text holding a lone surrogate. */
export const failUnicode = (st: State, input: unknown): typeof INVALID =>
  fail(st, "string_unicode", "Input should be a valid string, unable to parse raw data as a unicode string", input);
/** The English plural suffix of pydantic-core's counted messages. */
export const plural = (n: number) => (n === 1 ? "" : "s");
