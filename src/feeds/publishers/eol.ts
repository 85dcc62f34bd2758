import { readFileSync } from "node:fs";
import { eolApiAnswer, eolApiNames, productOfApi } from "../eol.js";
import { DAY, HOUR, publisher, type SyncContext } from "../sync/publisher.js";
import { RecordError } from "../types.js";

/** endoflife.date's API v1: `/products` lists the products, `/products/<name>` is one product's document. */
export const EOL_API = "https://endoflife.date/api/v1";
/** Product documents per unit: fetched, imported in one import, then checkpointed. */
const BATCH = 50;
/** Documents requested at once (small documents of a static site: a few at a time, not hundreds). */
const PARALLEL = 4;
/**
 * The products no stack or subscription names are asked again once their last check is this old:
 * a day, less an hour, so that a daily sync starting a little early still covers them.
 */
export const REST_EVERY_MS = (DAY - HOUR) * 1000;

export interface EolValidators {
  etag?: string;
  lastModified?: string;
}

/** What was applied of one product: its document's validators, its `last_modified`, and when it was last asked. */
export interface EolProductState extends EolValidators {
  /** The document's `last_modified` (the product page's last change upstream). */
  modified?: string;
  /** When the publisher was last asked for it (ISO). */
  checked: string;
}

/** The checkpoint of one address: the list's validators and names, and each product's state. */
export interface EolCheckpoint {
  list?: EolValidators & { names: string[] };
  products: Record<string, EolProductState>;
}

/** A stored checkpoint, or an empty one (a checkpoint of another shape is started again). */
export function eolCheckpoint(raw: unknown): EolCheckpoint {
  const c = raw as Partial<EolCheckpoint> | null;
  if (!c || typeof c !== "object" || !c.products || typeof c.products !== "object") return { products: {} };
  const list = c.list && Array.isArray(c.list.names) ? c.list : undefined;
  return { ...(list ? { list } : {}), products: { ...c.products } };
}

/**
 * This sync's requests, in order: the products the stacks and subscriptions name (every sync),
 * then the rest whose last check is older than REST_EVERY_MS (never asked first, then the oldest
 * check, then by name) — so the rest is asked about once a day whatever the source's rhythm.
 */
export function eolPlan(names: readonly string[], focus: Iterable<string>, products: Record<string, EolProductState>, now: number) {
  const wanted = new Set(focus);
  const first = names.filter((n) => wanted.has(n)).sort();
  const age = (n: string) => {
    const at = products[n] ? Date.parse(products[n].checked) : Number.NaN;
    return Number.isNaN(at) ? Number.POSITIVE_INFINITY : now - at;
  };
  const rest = names
    .filter((n) => !wanted.has(n) && age(n) >= REST_EVERY_MS)
    .sort((a, b) => age(b) - age(a) || (a < b ? -1 : a > b ? 1 : 0));
  return { first, rest };
}

/** The publisher's time of the newest data applied: the latest `last_modified` of the products applied. */
export function eolAppliedUntil(products: Record<string, EolProductState>): Date | null {
  let max = Number.NaN;
  for (const p of Object.values(products)) {
    const t = p.modified ? Date.parse(p.modified) : Number.NaN;
    if (!Number.isNaN(t) && !(t <= max)) max = t;
  }
  return Number.isNaN(max) ? null : new Date(max);
}

const validators = (h: Headers): EolValidators => {
  const etag = h.get("etag");
  const lastModified = h.get("last-modified");
  return { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) };
};

type Answer =
  | { name: string; kind: "same" }
  | { name: string; kind: "new"; file: string; v: EolValidators; modified: string | null }
  | { name: string; kind: "bad"; message: string }
  | { name: string; kind: "gone"; status: number };

/** One product's document, asked with the validators of the copy applied last, and checked before it is imported. */
async function fetchProduct(ctx: SyncContext, base: string, name: string, last: EolProductState | undefined): Promise<Answer> {
  const got = await ctx.fetch(`${base}/products/${encodeURIComponent(name)}`, { conditional: last, name: `${name}.json` });
  if (got.status === 304) return { name, kind: "same" };
  if (got.status === 404 || got.status === 410) return { name, kind: "gone", status: got.status };
  // What remains after the retries (5xx, 429, 403…): the publisher is failing, the sync stops here.
  if (!got.file) throw new Error(`${base}/products/${name} : HTTP ${got.status}`);
  try {
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(got.file, "utf8"));
    } catch (err) {
      throw new RecordError(`JSON illisible (${(err as Error).message})`);
    }
    const answer = eolApiAnswer(doc);
    const p = productOfApi(answer.result);
    if (p.id !== name) throw new RecordError(`le document est celui de ${p.id}`);
    return { name, kind: "new", file: got.file, v: validators(got.headers), modified: answer.lastModified };
  } catch (err) {
    if (err instanceof RecordError) return { name, kind: "bad", message: err.message };
    throw err;
  }
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Runs `fn` on each item, `limit` at a time; on a failure, lets the running ones end, then throws the first failure. */
async function eachLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  let failure: { err: unknown } | null = null;
  const worker = async () => {
    while (!failure && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw (failure as { err: unknown }).err;
  return out;
}

/**
 * endoflife.date's API v1 (issue 22): the product list (`/products`) asked with its validators,
 * then each product's document (`/products/<name>`) with its own (If-None-Match / If-Modified-Since:
 * a 304 costs nothing) — first the products the stacks and subscriptions name, at every sync, then
 * the rest about once a day (eolPlan). Documents are applied by units — the named products, then
 * the rest 50 at a time — each checkpointed once imported, with
 * their validators and `last_modified`: a killed sync resumes with the products not yet asked.
 * A document that cannot be read, or of another product, is reported and keeps its previous
 * validators (asked again next time); a product the API no longer has (404) is reported; a
 * publisher still failing after the retries (5xx, 429) stops the sync, what was applied stays.
 */
export const eolPublisher = publisher({
  defaultAddresses: [EOL_API],
  every: DAY,
  protocol:
    "API v1 d'endoflife.date : liste des produits puis document de chaque produit, requêtes conditionnelles (ETag, Last-Modified) ; d'abord les produits des stacks et abonnements, le reste une fois par jour",
  async sync(ctx) {
    const cp = eolCheckpoint(ctx.checkpoint);
    const base = ctx.address.replace(/\/+$/, "");
    const got = await ctx.fetch(`${base}/products`, { conditional: cp.list ?? null, name: "products.json" });
    let list = cp.list;
    if (got.status !== 304 || !list) {
      if (!got.file) throw new Error(`${base}/products : HTTP ${got.status}`);
      let names: string[];
      try {
        names = eolApiNames(JSON.parse(readFileSync(got.file, "utf8")));
      } catch (err) {
        throw new Error(`${base}/products : liste des produits illisible (${(err as Error).message})`);
      }
      list = { ...validators(got.headers), names };
      // A product the list no longer names is not asked any more (its rows stay: subscriptions may name it).
      const keep = new Set(names);
      for (const n of Object.keys(cp.products)) if (!keep.has(n)) delete cp.products[n];
    }
    const focus = await ctx.named();
    const plan = eolPlan(list.names, focus, cp.products, Date.now());
    // The named products are a unit of their own: applied and checkpointed before the rest is asked.
    const units = [...chunks(plan.first, BATCH), ...chunks(plan.rest, BATCH)];
    ctx.log.debug({ first: plan.first.length, rest: plan.rest.length, listed: list.names.length }, "eol sync plan");
    let listSaved = cp.list === list;
    for (const unit of units) {
      ctx.signal.throwIfAborted();
      const answers = await eachLimited(unit, PARALLEL, (n) => fetchProduct(ctx, base, n, cp.products[n]));
      const checked = new Date().toISOString();
      const files: string[] = [];
      const next: Record<string, EolProductState> = {};
      for (const a of answers) {
        const last = cp.products[a.name];
        if (a.kind === "same") next[a.name] = { ...last!, checked };
        else if (a.kind === "new") {
          files.push(a.file);
          next[a.name] = { ...a.v, ...(a.modified ? { modified: a.modified } : {}), checked };
        } else if (a.kind === "gone") {
          ctx.problem(`${base}/products/${a.name}`, `HTTP ${a.status} : produit absent de l'API`);
          next[a.name] = { checked };
        } else ctx.problem(`${base}/products/${a.name}`, a.message);
      }
      if (files.length) await ctx.import(files);
      Object.assign(cp.products, next);
      cp.list = list;
      listSaved = true;
      await ctx.save(cp, eolAppliedUntil(cp.products));
    }
    // Nothing to ask (every product checked today): the list's new validators still count.
    if (!listSaved) {
      cp.list = list;
      await ctx.save(cp, eolAppliedUntil(cp.products));
    }
  },
});
