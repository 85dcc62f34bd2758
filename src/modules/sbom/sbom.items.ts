/**
 * An SBOM's components → stack items, and the difference between the items an SBOM holds and
 * those a new upload of it names. Pure: the service reads and writes around it.
 */
import { BadItem, itemKeys, type ItemKeys } from "../../matching/items.js";
import { canonicalPurl, parsePurl } from "../../matching/purl.js";
import type { StackItemType } from "../../platform/db/schema/alerting.js";
import type { SbomComponent } from "../../sbom/types.js";

export const NO_IDENTIFIER = "ni purl ni CPE";

/** An item an SBOM names: its type, value, identity in the SBOM (`key`) and version. */
export interface WantedItem {
  itemType: "purl" | "cpe";
  value: string;
  /** The purl without version, qualifiers nor subpath (canonical), or the CPE with * for version and update. */
  key: string;
  version: string | null;
  keys: ItemKeys;
}

/** A component that made no item, and why. */
export interface IgnoredComponent {
  ref: string | null;
  name: string;
  version: string | null;
  purl: string | null;
  cpe: string | null;
  raison: string;
}

/** An item an SBOM holds in the stack. */
export interface HeldItem {
  id: string;
  itemType: StackItemType;
  value: string;
  key: string;
  version: string | null;
}

/** The purl with the component's version when it names none (`pkg:npm/x` + 1.2.0 → `pkg:npm/x@1.2.0`). */
export function purlWithVersion(purl: string, version: string | null): string {
  const value = purl.trim();
  if (!version?.trim()) return value;
  const end = value.search(/[?#]/);
  const head = end < 0 ? value : value.slice(0, end);
  if (head.slice(head.lastIndexOf("/") + 1).includes("@")) return value;
  return `${head}@${encodeURIComponent(version.trim())}${end < 0 ? "" : value.slice(end)}`;
}

/** A purl without its version, qualifiers and subpath, as written. */
function purlHead(purl: string): string {
  const head = purl.replace(/[?#].*$/, "");
  const at = head.indexOf("@", head.lastIndexOf("/") + 1);
  return at < 0 ? head : head.slice(0, at);
}

/** A purl's identity within its SBOM: type, namespace and name, canonical (src/matching/purl.ts), without version, qualifiers nor subpath. */
export function purlKey(purl: string): string {
  return canonicalPurl(parsePurl(purlHead(purl)), { withVersion: false });
}

/** Splits a CPE 2.3 formatted string on its unescaped colons. */
function cpeParts(cpe: string): string[] {
  const parts: string[] = [];
  let cur = "";
  for (let i = 0; i < cpe.length; i++) {
    const c = cpe[i]!;
    if (c === "\\" && i + 1 < cpe.length) {
      cur += c + cpe[i + 1];
      i++;
    } else if (c === ":") {
      parts.push(cur);
      cur = "";
    } else cur += c;
  }
  parts.push(cur);
  return parts;
}

/**
 * A CPE's identity within its SBOM: the CPE, lower case, with `*` for its version and update
 * (items.ts reads both as the version: 10.2.9 update h1 is 10.2.9-h1), so that an upgrade is a
 * version change of the same item. A CPE 2.2 URI keeps its form.
 */
export function cpeKey(cpe: string): string {
  const value = cpe.trim().toLowerCase();
  if (value.startsWith("cpe:2.3:")) {
    const parts = cpeParts(value);
    for (const i of [5, 6]) if (parts.length > i) parts[i] = "*";
    return parts.join(":");
  }
  const parts = value.split(":");
  // cpe:/a:vendor:product:version:update:… → the version and update parts dropped.
  return parts.slice(0, 4).join(":");
}

/**
 * The items of an SBOM's components: a purl item per package URL, a cpe item per CPE (both when
 * a component has both), merged by (type, key, version) in document order; a component that gives
 * none is ignored with its reason (no identifier, or why its purl or CPE cannot be matched); one
 * that gives one of its two is kept, and listed apart with why the other could not be.
 */
export function itemsOfComponents(components: Iterable<SbomComponent>): {
  items: WantedItem[];
  ignored: IgnoredComponent[];
  /** Components that made an item of one identifier while the other could not be matched (`raison` says which, and why). */
  partial: IgnoredComponent[];
} {
  const items = new Map<string, WantedItem>();
  const ignored: IgnoredComponent[] = [];
  const partial: IgnoredComponent[] = [];
  // A package listed at several versions is parsed once for its key (a 50,000-component SBOM often repeats names).
  const keys = new Map<string, string>();
  const keyOfPurl = (purl: string) => {
    const head = purlHead(purl);
    let key = keys.get(head);
    if (key === undefined) {
      key = purlKey(head);
      keys.set(head, key);
    }
    return key;
  };
  for (const c of components) {
    const reasons: string[] = [];
    let made = 0;
    const add = (itemType: "purl" | "cpe", value: string, key: (v: string) => string) => {
      try {
        const keys = itemKeys(itemType, value);
        const item: WantedItem = { itemType, value, key: key(value), version: keys.matchVersion, keys };
        const id = `${itemType}\n${item.key}\n${item.version ?? ""}`;
        if (!items.has(id)) items.set(id, item);
        made++;
      } catch (err) {
        if (!(err instanceof BadItem)) throw err;
        reasons.push(`${itemType} « ${value} » : ${err.message}`);
      }
    };
    if (c.purl?.trim()) add("purl", purlWithVersion(c.purl, c.version), keyOfPurl);
    if (c.cpe?.trim()) add("cpe", c.cpe.trim(), cpeKey);
    if (!c.purl?.trim() && !c.cpe?.trim()) reasons.push(NO_IDENTIFIER);
    const what = { ref: c.ref, name: c.name, version: c.version, purl: c.purl, cpe: c.cpe, raison: reasons.join(" ; ") };
    if (!made) ignored.push(what);
    // An old purl type (pkg:alpine, pkg:dotnet) beside a CPE: the CPE is watched, the purl said not to be.
    else if (reasons.length) partial.push(what);
  }
  return { items: [...items.values()], ignored, partial };
}

/** What an upload changes in the items its SBOM holds. */
export interface SbomDiff {
  added: WantedItem[];
  removed: HeldItem[];
  changed: { held: HeldItem; wanted: WantedItem }[];
  unchanged: number;
}

/**
 * The difference between the items an SBOM holds and those its new upload names, by identity
 * (type and key): the same version is unchanged; a held version no longer named pairs with a named
 * version not held (a version change, in order); what is left is added or removed. A key may hold
 * several versions (npm nests them).
 */
export function diffItems(held: HeldItem[], wanted: WantedItem[]): SbomDiff {
  const heldBy = new Map<string, HeldItem[]>();
  for (const h of held) {
    const id = `${h.itemType}\n${h.key}`;
    const list = heldBy.get(id);
    if (list) list.push(h);
    else heldBy.set(id, [h]);
  }
  const fresh: WantedItem[] = [];
  let unchanged = 0;
  for (const w of wanted) {
    const list = heldBy.get(`${w.itemType}\n${w.key}`);
    const same = list?.findIndex((h) => h.version === w.version) ?? -1;
    if (same >= 0) {
      list!.splice(same, 1);
      unchanged++;
    } else fresh.push(w);
  }
  const added: WantedItem[] = [];
  const changed: SbomDiff["changed"] = [];
  for (const w of fresh) {
    const list = heldBy.get(`${w.itemType}\n${w.key}`);
    const h = list?.shift();
    if (h) changed.push({ held: h, wanted: w });
    else added.push(w);
  }
  const removed = held.filter((h) => heldBy.get(`${h.itemType}\n${h.key}`)!.includes(h));
  return { added, removed, changed, unchanged };
}
