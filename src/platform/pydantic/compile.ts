/**
 * A Zod 4 schema compiled once (cached per schema object) into a tree of validators: models,
 * containers, wrappers (optional/default/nullable) and unions here; leaves in scalars.ts and numbers.ts.
 */
import { z } from "zod";
import { buildNumber } from "./numbers.js";
import { pyRepr } from "./repr.js";
import { buildDate, buildLiteral, buildString, buildUuid, isDateString, isUuidString, literalMatch, runBool } from "./scalars.js";
import { absentValue, checksOf, type Def, defOf, fail, INVALID, type Node, OPTIONAL, plural, REQUIRED, type State } from "./state.js";

const cache = new WeakMap<object, Node>();

/** The validator of a schema, built once per schema object (recursive schemas included). */
export function compile(schema: z.ZodType): Node {
  const hit = cache.get(schema);
  if (hit) return hit;
  // Cache the (still empty) node before building children so recursive schemas terminate.
  const node: Node = { run: () => INVALID, name: () => "...", absent: REQUIRED };
  cache.set(schema, node);
  build(schema, defOf(schema), node);
  return node;
}

const hasOwn = (o: object, k: string) => Object.hasOwn(o, k);
const isDict = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
/** Assignment that keeps a "__proto__" key an own data property. */
function put(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

function build(schema: z.ZodType, def: Def, node: Node): void {
  switch (def.type) {
    case "string":
      if (isUuidString(def)) return buildUuid(def, node);
      return isDateString(def) ? buildDate(node) : buildString(def, node);
    case "number":
      return buildNumber(def, node);
    case "boolean":
      node.name = () => "bool";
      node.run = runBool;
      return;
    case "literal":
      return buildLiteral([...(def.values as Iterable<unknown>)], node);
    case "enum":
      return buildLiteral((schema as unknown as { options: unknown[] }).options, node);
    case "null":
      node.name = () => "none";
      node.run = (input, st) => (input === null ? null : fail(st, "none_required", "Input should be None", input));
      return;
    case "any":
    case "unknown":
      node.name = () => "any";
      node.run = (input) => input;
      return;
    case "array":
      return buildList(def, node);
    case "record":
      return buildDict(def, node);
    case "object":
      return buildModel(schema, def, node);
    case "union":
      return def.discriminator === undefined ? buildUnion(def, node) : buildTaggedUnion(def, node);
    case "optional":
    case "default":
    case "prefault":
    case "nonoptional":
    case "nullable":
    case "readonly":
    case "catch":
      return buildWrapper(def, node);
    case "pipe": {
      // Transforms are not run: validate the input side (or, for z.preprocess, the target schema).
      const side = defOf(def.in).type === "transform" ? def.out : def.in;
      const inner = compile(side as z.ZodType);
      // Delegate at call time: `inner` may still be under construction (recursive schemas).
      node.run = (input, st) => inner.run(input, st);
      node.name = () => inner.name();
      node.absent = inner.absent;
      return;
    }
    case "lazy": {
      let inner: Node | undefined;
      const resolve = () => (inner ??= compile((def.getter as () => z.ZodType)()));
      node.run = (input, st) => resolve().run(input, st);
      node.name = () => resolve().name();
      return;
    }
    default:
      throw new Error(`pydantic/compile.ts: unsupported Zod type "${def.type}"`);
  }
}

function buildWrapper(def: Def, node: Node): void {
  const inner = compile(def.innerType as z.ZodType);
  node.name = () => (def.type === "nullable" ? `nullable[${inner.name()}]` : inner.name());
  switch (def.type) {
    case "nullable":
      node.absent = inner.absent;
      node.run = (input, st) => (input === null ? null : inner.run(input, st));
      return;
    case "optional":
      // `.default(x).optional()` still fills in the default when absent.
      node.absent = inner.absent.kind === "default" ? inner.absent : OPTIONAL;
      node.run = (input, st) => (input === undefined ? undefined : inner.run(input, st));
      return;
    case "default":
    case "prefault":
      node.absent = { kind: "default", value: () => def.defaultValue, validated: def.type === "prefault" };
      node.run = (input, st) => (input === undefined ? absentValue(node, st) : inner.run(input, st));
      return;
    case "nonoptional":
      node.absent = REQUIRED;
      node.run = (input, st) => inner.run(input, st);
      return;
    default: // readonly, catch: no Pydantic counterpart, validate the inner schema
      node.absent = inner.absent;
      node.run = (input, st) => inner.run(input, st);
  }
}

// ---------------------------------------------------------------------------------------------
// Containers

function buildList(def: Def, node: Node): void {
  const item = compile(def.element as z.ZodType);
  let min: number | undefined;
  let max: number | undefined;
  for (const c of checksOf(def)) {
    if (c.check === "min_length") min = c.minimum as number;
    else if (c.check === "max_length") max = c.maximum as number;
    else if (c.check === "length_equals") min = max = c.length as number;
  }
  node.name = () => `list[${item.name()}]`;
  node.run = (input, st) => {
    if (!Array.isArray(input)) return fail(st, "list_type", "Input should be a valid list", input);
    const n = input.length;
    // The max-length check fires while iterating, discarding the item errors collected so far.
    if (max !== undefined && n > max) {
      return fail(st, "too_long", `List should have at most ${max} item${plural(max)} after validation, not ${n}`, input, {
        field_type: "List",
        max_length: max,
        actual_length: n,
      });
    }
    const out: unknown[] = new Array(n);
    let ok = true;
    for (let i = 0; i < n; i++) {
      st.path.push(i);
      const v = item.run(input[i], st);
      st.path.pop();
      if (v === INVALID) ok = false;
      else out[i] = v;
    }
    if (!ok) return INVALID;
    // min_length is checked after validation, and only when every item was valid.
    if (min !== undefined && n < min) {
      return fail(st, "too_short", `List should have at least ${min} item${plural(min)} after validation, not ${n}`, input, {
        field_type: "List",
        min_length: min,
        actual_length: n,
      });
    }
    return out;
  };
}

function buildDict(def: Def, node: Node): void {
  const key = compile(def.keyType as z.ZodType);
  const value = compile(def.valueType as z.ZodType);
  node.name = () => `dict[${key.name()},${value.name()}]`;
  node.run = (input, st) => {
    if (!isDict(input)) return fail(st, "dict_type", "Input should be a valid dictionary", input);
    const out: Record<string, unknown> = {};
    let ok = true;
    for (const k of Object.keys(input)) {
      // Key errors are located at [key, "[key]"], value errors at [key] (src/validators/dict.rs).
      st.path.push(k, "[key]");
      const kv = key.run(k, st);
      st.path.pop();
      const vv = value.run(input[k], st);
      st.path.pop();
      if (kv === INVALID || vv === INVALID) ok = false;
      else put(out, String(kv), vv);
    }
    return ok ? out : INVALID;
  };
}

function buildModel(schema: z.ZodType, def: Def, node: Node): void {
  const shape = def.shape as Record<string, z.ZodType>;
  const fields = Object.keys(shape).map((k) => ({ key: k, node: compile(shape[k]!) }));
  const catchall = def.catchall === undefined ? undefined : defOf(def.catchall).type;
  const extra = catchall === undefined ? "ignore" : catchall === "never" ? "forbid" : "allow";
  const extraNode = catchall === undefined || catchall === "never" ? undefined : compile(def.catchall as z.ZodType);
  const meta = z.globalRegistry.get(schema) as { id?: string; title?: string } | undefined;
  const modelName = meta?.id ?? meta?.title ?? "Model";
  node.name = () => modelName;
  node.modelKeys = fields.map((f) => f.key);
  node.run = (input, st) => {
    if (!isDict(input)) {
      return fail(st, "model_attributes_type", "Input should be a valid dictionary or object to extract fields from", input);
    }
    const out: Record<string, unknown> = {};
    let ok = true;
    for (const f of fields) {
      const v = hasOwn(input, f.key) ? input[f.key] : undefined;
      if (v === undefined) {
        if (f.node.absent.kind === "required") {
          st.path.push(f.key);
          fail(st, "missing", "Field required", input); // input: the whole dict, as Pydantic reports it
          st.path.pop();
          ok = false;
        } else if (f.node.absent.kind === "default") {
          st.path.push(f.key);
          const d = absentValue(f.node, st);
          st.path.pop();
          if (d === INVALID) ok = false;
          else put(out, f.key, d);
        }
        continue;
      }
      st.path.push(f.key);
      const r = f.node.run(v, st);
      st.path.pop();
      if (r === INVALID) ok = false;
      else put(out, f.key, r);
    }
    if (extra !== "ignore") {
      // Extra keys come after the field errors, in input order (model_fields.rs).
      for (const k of Object.keys(input)) {
        if (hasOwn(shape, k)) continue;
        st.path.push(k);
        const r = extraNode ? extraNode.run(input[k], st) : fail(st, "extra_forbidden", "Extra inputs are not permitted", input[k]);
        st.path.pop();
        if (r === INVALID) ok = false;
        else put(out, k, r);
      }
    }
    return ok ? out : INVALID;
  };
}

// ---------------------------------------------------------------------------------------------
// Unions

/**
 * Smart union (src/validators/union.rs). `X | None` becomes nullable[X], as Pydantic builds it.
 * Approximation of the exactness ranking: the first member that validates without coercion wins;
 * else the first that validates with coercion; among models, the one with the most fields set.
 * On failure every member's errors are reported, in member order, under the member's label.
 */
function buildUnion(def: Def, node: Node): void {
  const options = def.options as z.ZodType[];
  const nonNull = options.filter((o) => defOf(o).type !== "null");
  const choices = nonNull.map(compile);
  const nullable = nonNull.length !== options.length;
  const inner = choices.length === 1 ? choices[0]! : undefined;
  const unionName = () => (inner ? inner.name() : `union[${choices.map((c) => c.name()).join(",")}]`);
  node.name = () => (nullable ? `nullable[${unionName()}]` : unionName());
  const runUnion = inner
    ? (input: unknown, st: State) => inner.run(input, st)
    : (input: unknown, st: State) => smartUnion(choices, input, st);
  node.run = nullable ? (input, st) => (input === null ? null : runUnion(input, st)) : runUnion;
}

function smartUnion(choices: Node[], input: unknown, st: State): unknown {
  const fieldsSet = (c: Node) => (c.modelKeys && isDict(input) ? c.modelKeys.filter((k) => hasOwn(input, k)).length : 0);
  const pass = (strict: boolean, labelled: boolean): { value: unknown } | undefined => {
    let best: { value: unknown; fields: number } | undefined;
    for (const c of choices) {
      const sub: State = { path: st.path, errors: labelled ? st.errors : [], strict };
      if (labelled) st.path.push(c.name());
      const v = c.run(input, sub);
      if (labelled) st.path.pop();
      if (v === INVALID) continue;
      if (!c.modelKeys) return { value: v };
      const fields = fieldsSet(c);
      if (!best || fields > best.fields) best = { value: v, fields };
    }
    return best;
  };
  const mark = st.errors.length;
  // Inside an enclosing strict pass there is no lax pass: report the strict errors right away.
  const hit = pass(true, st.strict) ?? (st.strict ? undefined : pass(false, true));
  if (!hit) return INVALID;
  st.errors.length = mark; // errors of the members tried before the winner do not count
  return hit.value;
}

/**
 * Tagged union (`Field(discriminator=...)`, src/validators/union.rs TaggedUnionValidator): the tag is
 * looked up in the dict; errors of the chosen member get the tag inserted in their loc.
 */
function buildTaggedUnion(def: Def, node: Node): void {
  const key = def.discriminator as string;
  const tags: unknown[] = [];
  const members: Node[] = [];
  for (const option of def.options as z.ZodType[]) {
    const values = (option as unknown as { _zod: { propValues?: Record<string, Set<unknown>> } })._zod.propValues?.[key];
    const member = compile(option);
    for (const t of values ?? []) {
      tags.push(t);
      members.push(member);
    }
  }
  const discriminator = pyRepr(key); // LookupKey Display: 'type'
  const expectedTags = tags.map(pyRepr).join(", ");
  node.name = () => `tagged-union[${[...new Set(members)].map((m) => m.name()).join(",")}]`;
  node.run = (input, st) => {
    // from_attributes=True (FastAPI) → validate_model_fields: a non-dict is model_attributes_type.
    if (!isDict(input)) {
      return fail(st, "model_attributes_type", "Input should be a valid dictionary or object to extract fields from", input);
    }
    if (!hasOwn(input, key) || input[key] === undefined) {
      return fail(st, "union_tag_not_found", `Unable to extract tag using discriminator ${discriminator}`, input, {
        discriminator,
      });
    }
    const tag = input[key];
    const hit = literalMatch(tags, tag);
    if (!hit) {
      const shown = typeof tag === "string" ? tag : pyRepr(tag); // str(tag)
      return fail(
        st,
        "union_tag_invalid",
        `Input tag '${shown}' found using ${discriminator} does not match any of the expected tags: ${expectedTags}`,
        input,
        { discriminator, tag: shown, expected_tags: expectedTags },
      );
    }
    st.path.push(typeof tag === "boolean" ? +tag : (tag as string | number));
    const out = members[tags.indexOf(hit.value)]!.run(input, st);
    st.path.pop();
    return out;
  };
}
