/**
 * Stack items ↔ endoflife.date cycles. An item names a product through its CPE (`cpe` items, and
 * `product` items written vendor:product), or its purl, when one of the product's identifiers has
 * the same lookup key (src/feeds/eol.ts: `cpe:<vendor>:<product>`, `pkg:<type>/<namespace>/<name>`);
 * its version then falls in the cycle it equals or starts with followed by a dot (cycleOfVersion).
 * An item without a version, or whose version is in no cycle, has no EOL facts.
 */
import { cycleOfVersion, eolKeyOfCpe, parsePurlKey } from "../../feeds/eol.js";
import { BadItem, itemKeys } from "../../matching/items.js";
import type { Executor } from "../../platform/db/client.js";
import type { StackItemType } from "../../platform/db/schema/index.js";
import { eolRepository as repo } from "./eol.repository.js";
import type { StackItemEol } from "./eol.schemas.js";

/** An item's lookup key and version (a leading `v` dropped), or null when it cannot name an endoflife.date cycle. */
function itemRef(itemType: string, value: string): { key: string; version: string } | null {
  const r = keyAndVersion(itemType, value);
  return r ? { key: r.key, version: r.version.trim().replace(/^v(?=\d)/i, "") } : null;
}

function keyAndVersion(itemType: string, value: string): { key: string; version: string } | null {
  const r = keyOfItem(itemType, value);
  return r?.version ? { key: r.key, version: r.version } : null;
}

/** The lookup key an item names a product by, with its version if it has one; null when it names none. */
function keyOfItem(itemType: string, value: string): { key: string; version: string | null } | null {
  try {
    if (itemType === "purl") {
      const p = parsePurlKey(value);
      return p ? { key: p.key, version: p.version } : null;
    }
    if (itemType !== "cpe" && itemType !== "product") return null;
    const k = itemKeys(itemType as StackItemType, value);
    const key = itemType === "cpe" ? eolKeyOfCpe(value) : k.matchVendor && k.matchProduct ? `cpe:${k.matchVendor}:${k.matchProduct}` : null;
    return key ? { key, version: k.matchVersion || null } : null;
  } catch (err) {
    if (err instanceof BadItem) return null;
    throw err;
  }
}

/** An item with its product and cycle. */
export type ItemCycle = StackItemEol & { item_id: string };

/**
 * The EOL facts of each item that falls in a cycle, by item id: one query for all the items (the
 * cycles of every product their keys name), the version test in the application. When two
 * products share a key, the first by id holding a matching cycle wins.
 */
export async function cyclesOfItems(
  ex: Executor,
  items: { id: string; itemType: string; value: string }[],
): Promise<Map<string, ItemCycle>> {
  const refs = new Map<string, { key: string; version: string }>();
  for (const i of items) {
    const r = itemRef(i.itemType, i.value);
    if (r) refs.set(i.id, r);
  }
  const out = new Map<string, ItemCycle>();
  if (!refs.size) return out;
  // Every cycle of the products named (a SQL prefix pre-filter per item was measured slower: 1,000
  // items, 27.6 → 63 ms, as it joins each item to its products' cycles).
  const rows = await repo.cyclesOfKeys(ex, [...new Set([...refs.values()].map((r) => r.key))]);
  const byKey = new Map<string, Map<string, typeof rows>>();
  for (const row of rows) {
    const products = byKey.get(row.key) ?? new Map<string, typeof rows>();
    byKey.set(row.key, products);
    const cycles = products.get(row.product_id);
    if (cycles) cycles.push(row);
    else products.set(row.product_id, [row]);
  }
  for (const [itemId, r] of refs) {
    for (const cycles of byKey.get(r.key)?.values() ?? []) {
      const c = cycleOfVersion(r.version, cycles);
      if (!c) continue;
      out.set(itemId, {
        item_id: itemId,
        product_id: c.product_id,
        product_name: c.product_name,
        cycle: c.cycle,
        release_date: c.release_date,
        eol: c.eol,
        lts: c.lts,
        support: c.support,
        extended_support: c.extended_support,
        latest: c.latest,
        link: c.link,
      });
      break;
    }
  }
  return out;
}

/**
 * The endoflife.date products Vigie's users care about, for the EOL sync to ask first: those a
 * subscription names, and those a stack item of any project names by its CPE, purl or
 * vendor:product (with or without a version). Three queries, whatever the number of items.
 */
export async function productsNamed(ex: Executor): Promise<string[]> {
  const keys = new Set<string>();
  for (const i of await repo.itemsNamingProducts(ex)) {
    const r = keyOfItem(i.itemType, i.value);
    if (r) keys.add(r.key);
  }
  const named = new Set([...(await repo.subscribedProducts(ex)), ...(await repo.productsOfKeys(ex, [...keys]))]);
  return [...named].sort();
}
