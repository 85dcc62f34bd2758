import { basename } from "node:path";
import { sql } from "drizzle-orm";
import type { Db, Executor } from "../../platform/db/client.js";
import { pgArray, rowsOf } from "../../platform/db/sql.js";
import { type EolProduct, eolApiAnswer, isoDay, pageId, parseEolPage, productOf, productOfApi } from "../eol.js";
import { head, readWhole } from "../reader.js";
import { hashOf, parseJson, type Tally } from "../records.js";
import { RecordError } from "../types.js";
import { eolPublisher } from "../publishers/eol.js";
import { feedSource } from "./feed-source.js";

/** Bump when the parser changes what it extracts: every product is written again on re-import. */
const EOL_PARSER_VERSION = "1";
/** Products per transaction. */
const EOL_BATCH = 100;

const isPage = (f: string) => /\.md(\.gz)?$/.test(f);
/** The JSON files of an endoflife.date directory: the front-matter export, api-like cycles, release-data. */
const EXPORT = /^\uFEFF?\s*\{\s*"[^"]+"\s*:\s*\{\s*"title"\s*:/;
const API_LIKE = /^\uFEFF?\s*\[\s*\{\s*"cycle"\s*:/;
const RELEASE_DATA = /^\uFEFF?\s*\{\s*"releases"\s*:\s*\{[\s\S]*"versions"\s*:/;
/** An answer of endoflife.date's API v1 (a product, the full list, or the summary list). */
const API_V1 = /^\uFEFF?\s*\{\s*"schema_version"\s*:/;

/**
 * endoflife.date: the product pages (`products/*.md`, YAML front matter) — the whole data
 * directory can be given as it is (`../shared/data/eol`): its pages are read, and a JSON export of
 * the front matters (`products-frontmatter.json`, `{"<id>": {title, releases…}}`, what a mirror can
 * serve as one file for `feeds sync`) adds the products no page of the import gave. The other JSON
 * files of the directory (`api-like/`, `release-data/`) are recognised and left: the pages hold
 * every field Vigie keeps (release-data's versions would only fill a missing `latest`, and none of
 * the 2,128 cycles without one has versions there). The answers of endoflife.date's API v1 are read too
 * (`/api/v1/products/<name>`, what `feeds sync` fetches, and `/api/v1/products/full`, every product
 * in one file; the summary list names no cycle and is left). Products are written 100 per
 * transaction, an unchanged one (same digest of what was extracted) not at all: a re-import of the
 * same data changes nothing. A source without descriptions (the JSON export, the API) keeps the
 * one a page gave.
 */
export const eol = feedSource({
  id: "eol",
  endings: [".md", ".json"],
  defaultEnding: ".json",
  sniff: {
    test: (h, f) => (isPage(f) ? /^\uFEFF?---\r?\n/.test(h) : EXPORT.test(h) || API_LIKE.test(h) || RELEASE_DATA.test(h) || API_V1.test(h)),
    expected: "pages produit endoflife.date (Markdown à front matter YAML), leur export JSON ou réponses de l'API v1",
  },
  tables: ["eol_products", "eol_cycles", "eol_identifiers"],
  publisher: eolPublisher,
  async importFiles(db, files, tally) {
    const writer = new EolWriter(db, tally);
    const seen = new Set<string>();
    const add = async (file: string, index: number, parse: () => EolProduct) => {
      tally.result.read++;
      try {
        const p = parse();
        seen.add(p.id);
        await writer.add(p, file);
      } catch (err) {
        if (err instanceof RecordError) tally.fail({ file, loc: { index } }, err.message);
        else throw err;
      }
    };
    for (const file of files.filter(isPage)) {
      const text = await readWhole(file);
      await add(basename(file), 0, () => parseEolPage(pageId(file), text));
    }
    for (const file of files.filter((f) => !isPage(f))) {
      const h = await head(file, 4096);
      if (API_V1.test(h)) {
        // A product (`result` an object), or a list whose entries with `releases` are products
        // (`/products/full`); the summary list's entries name no cycle and are left.
        let result: unknown;
        try {
          result = eolApiAnswer(parseJson(await readWhole(file))).result;
        } catch (err) {
          if (!(err instanceof RecordError)) throw err;
          tally.result.read++;
          tally.fail({ file: basename(file), loc: { index: 0 } }, err.message);
          continue;
        }
        const list = Array.isArray(result);
        for (const [index, entry] of (list ? (result as unknown[]) : [result]).entries())
          if (!list || (entry && typeof entry === "object" && "releases" in entry))
            await add(basename(file), index, () => productOfApi(entry));
        continue;
      }
      // Besides, only the front-matter export names products; api-like and release-data files are left.
      if (!EXPORT.test(h)) continue;
      const bundle = parseJson(await readWhole(file));
      if (!bundle || typeof bundle !== "object" || Array.isArray(bundle)) continue;
      let index = 0;
      for (const [id, fm] of Object.entries(bundle)) {
        if (!seen.has(id)) await add(basename(file), index, () => productOf(id, fm, null));
        index++;
      }
    }
    await writer.flush();
  },
});

/** Writes products by batches, each one transaction; counts inserted, updated and unchanged. */
class EolWriter {
  private pending = new Map<string, { p: EolProduct; file: string; hash: string }>();
  constructor(
    private readonly db: Db,
    private readonly tally: Tally,
  ) {}

  async add(p: EolProduct, file: string): Promise<void> {
    if (this.pending.has(p.id)) this.tally.result.unchanged++;
    this.pending.set(p.id, { p, file, hash: hashOf([EOL_PARSER_VERSION, p]) });
    if (this.pending.size >= EOL_BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.pending.size) return;
    const rows = [...this.pending.values()];
    this.pending = new Map();
    const r = await this.db.transaction((tx) => writeProducts(tx, rows));
    this.tally.result.inserted += r.inserted;
    this.tally.result.updated += r.updated;
    this.tally.result.unchanged += rows.length - r.inserted - r.updated;
    this.tally.tick();
  }
}

/**
 * One batch, set-based: the stored digests are read in one query; the new and changed products are
 * upserted in one statement, their cycles and identifier keys replaced in two more.
 */
async function writeProducts(tx: Executor, rows: { p: EolProduct; file: string; hash: string }[]) {
  // Locked in id order: two imports at once wait on each other rather than deadlock.
  const stored = await rowsOf<{ id: string; hash: string }>(
    tx,
    sql`select id, hash from eol_products where id = any(${pgArray(rows.map((r) => r.p.id))}::text[])
      order by id for update`,
  );
  const known = new Map(stored.map((s) => [s.id, s.hash]));
  const changed = rows.filter((r) => known.get(r.p.id) !== r.hash);
  if (!changed.length) return { inserted: 0, updated: 0 };
  const products = changed.map(({ p, file, hash }) => ({
    id: p.id,
    name: p.name,
    description: p.description,
    category: p.category,
    identifiers: p.identifiers,
    file,
    hash,
  }));
  await tx.execute(sql`
    insert into eol_products (id, name, description, category, identifiers, file, hash, updated_at)
    select x.id, x.name, x.description, x.category, coalesce(x.identifiers, '[]'::jsonb), x.file, x.hash, now()
    from jsonb_to_recordset(${JSON.stringify(products)}::jsonb)
      as x(id text, name text, description text, category text, identifiers jsonb, file text, hash text)
    on conflict (id) do update set name = excluded.name, description = coalesce(excluded.description, eol_products.description), category = excluded.category,
      identifiers = excluded.identifiers, file = excluded.file, hash = excluded.hash, updated_at = now()`);
  const ids = JSON.stringify(changed.map((r) => r.p.id));
  await tx.execute(sql`delete from eol_cycles where product_id in (select jsonb_array_elements_text(${ids}::jsonb))`);
  await tx.execute(sql`delete from eol_identifiers where product_id in (select jsonb_array_elements_text(${ids}::jsonb))`);
  const cycles = changed.flatMap(({ p }) =>
    p.cycles.map((c) => ({
      product_id: p.id,
      ...c,
      eol: c.eol,
      eol_date: isoDay(c.eol),
      support_date: isoDay(c.support),
    })),
  );
  if (cycles.length)
    await tx.execute(sql`
      insert into eol_cycles (product_id, cycle, position, release_date, eol, eol_date, lts, support, support_date, extended_support,
        latest, latest_release_date, link)
      select x.product_id, x.cycle, x.position, x.release_date, x.eol, x.eol_date, x.lts, x.support, x.support_date, x.extended_support,
        x.latest, x.latest_release_date, x.link
      from jsonb_to_recordset(${JSON.stringify(cycles)}::jsonb) as x(product_id text, cycle text, position int, release_date date,
        eol jsonb, eol_date date, lts jsonb, support jsonb, support_date date, extended_support jsonb, latest text,
        latest_release_date date, link text)`);
  const keys = changed.flatMap(({ p }) => p.keys.map((key) => ({ key, product_id: p.id })));
  if (keys.length)
    await tx.execute(sql`
      insert into eol_identifiers (key, product_id)
      select x.key, x.product_id from jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) as x(key text, product_id text)
      on conflict do nothing`);
  const inserted = changed.filter((r) => !known.has(r.p.id)).length;
  return { inserted, updated: changed.length - inserted };
}
