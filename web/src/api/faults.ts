import { activeLang } from "../i18n/i18n";
import { ApiError } from "./client";
import { itemWords, type PydanticItem } from "./pydantic";

/** A fault of a refused document: where (a JSON pointer, `line N`, a parameter, or null: the whole document) and why. */
export interface Fault {
  where: string | null;
  message: string;
}

/**
 * A 422's issues as faults: `loc` ["body", "components", 12, "purl"] → /components/12/purl,
 * ["body", "line 34"] → line 34, ["body"] → the document, ["query", "name"] → name.
 */
export function faultsOf(err: unknown): Fault[] {
  if (!(err instanceof ApiError) || err.status !== 422 || !Array.isArray(err.detail)) return [];
  return (err.detail as PydanticItem[]).map((d) => {
    const [root, ...loc] = d.loc ?? [];
    const message = itemWords(d, activeLang());
    // A query parameter (?name=): its name.
    if (root !== "body") return { where: loc.length ? loc.join(".") : null, message };
    if (loc.length === 0) return { where: null, message };
    if (loc.length === 1 && typeof loc[0] === "string" && /^line \d+/.test(loc[0])) return { where: loc[0], message };
    return { where: `/${loc.map((s) => String(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`, message };
  });
}
