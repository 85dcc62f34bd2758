/** Test helpers shared by the validator's test files (excluded from the build). */
import { expect } from "vitest";
import type { z } from "zod";
import { validate, type PydanticError } from "./validate.js";

/** Validates `input` against `schema` at `loc`, collecting the errors as the routes do. */
export function run(schema: z.ZodType, input: unknown, loc: (string | number)[] = ["body"]) {
  const errors: PydanticError[] = [];
  const value = validate(schema, input, loc, errors);
  return { value, errors };
}
/** The errors only. */
export const errorsOf = (schema: z.ZodType, input: unknown, loc?: (string | number)[]) => run(schema, input, loc).errors;
/** The validated value, asserting there was no error. */
export const validatedOf = (schema: z.ZodType, input: unknown) => {
  const r = run(schema, input);
  expect(r.errors).toEqual([]);
  return r.value;
};
