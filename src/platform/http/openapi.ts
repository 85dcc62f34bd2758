import { isDeepStrictEqual } from "node:util";

type Json = unknown;
type Doc = { paths?: Record<string, unknown>; components?: { schemas?: Record<string, Json> } };

const REF = "#/components/schemas/";
const INPUT = "Input";

function refsIn(value: Json, out: Set<string>): void {
  if (Array.isArray(value)) for (const v of value) refsIn(v, out);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string" && v.startsWith(REF)) out.add(v.slice(REF.length));
      else refsIn(v, out);
    }
  }
}

function renameRefs(value: Json, names: Map<string, string>): Json {
  if (Array.isArray(value)) return value.map((v) => renameRefs(v, names));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => {
        if (k === "$ref" && typeof v === "string" && v.startsWith(REF))
          return [k, REF + (names.get(v.slice(REF.length)) ?? v.slice(REF.length))];
        return [k, renameRefs(v, names)];
      }),
    );
  }
  return value;
}

/**
 * Names the components as a reader expects them. fastify-type-provider-zod emits every named Zod
 * schema twice, as read (`X`) and as written (`XInput`), used or not. Here only the components the
 * operations reach are kept, and a request schema goes by its own name (`WorkflowEcritureIn`, as
 * the specification calls it) unless a response schema of the same name reads differently (its
 * defaults make fields required there): only then does it keep the `Input` suffix.
 */
export function tidyComponents<D extends Doc>(doc: D): D {
  const all = doc.components?.schemas ?? {};
  const reached = new Set<string>();
  const queue = new Set<string>();
  refsIn(doc.paths, queue);
  for (const name of queue) {
    if (reached.has(name)) continue;
    reached.add(name);
    refsIn(all[name], queue);
  }
  // An input component takes its plain name when that name is free or holds the same schema
  // (compared with the input references renamed alike); decided to a fixpoint, as schemas nest.
  const names = new Map<string, string>();
  let changed = true;
  while (changed) {
    changed = false;
    for (const name of reached) {
      if (!name.endsWith(INPUT) || names.has(name)) continue;
      const plain = name.slice(0, -INPUT.length);
      const free = !reached.has(plain);
      if (free || isDeepStrictEqual(renameRefs(all[name], new Map([...names, [name, plain]])), all[plain])) {
        names.set(name, plain);
        changed = true;
      }
    }
  }
  const schemas: Record<string, Json> = {};
  for (const name of [...reached].sort()) {
    const target = names.get(name) ?? name;
    schemas[target] = renameRefs(all[name], names);
  }
  return { ...doc, paths: renameRefs(doc.paths, names), components: { ...doc.components, schemas } } as D;
}
