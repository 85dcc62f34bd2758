/**
 * How vendor and product names compare — one rule for matching (src/matching/decide.ts) and for the
 * CVE list's `vendor` / `product` filters (src/modules/cves), so that a filter finds what an item
 * alerts on.
 */
import { normalizeName } from "./cpe.js";

const SEPARATORS = /[\s_.,-]+/g;

/**
 * A vendor's comparison key: its CPE-style name without separators. CNAs write display names, NVD
 * and the CISA ADP CPE names: "Palo Alto Networks", "palo_alto_networks" and "paloaltonetworks"
 * are one vendor. In SQL: `vigie_vendor_key(vendor_norm)` (migration 0013), over an already
 * normalised name.
 */
export function vendorKey(name: string | null): string {
  return normalizeName(name ?? "").replace(SEPARATORS, "");
}

/** A product's comparison key: its CPE-style name ("PAN-OS" → "pan-os"), as `product_norm` stores it. */
export function productKey(name: string): string {
  return normalizeName(name);
}

/** A name's words, as the separators of CPE-style and display names cut it ("palo_alto_networks" → palo, alto, networks). */
export function nameWords(name: string | null): string[] {
  return normalizeName(name ?? "")
    .split(SEPARATORS)
    .filter(Boolean);
}

/**
 * Whether an item's vendor is named within a row's vendor: all its words are among the row's
 * ("apache" in "Apache Software Foundation", "vmware" in "VMware, Inc."). CNAs write their legal
 * names; items, KEV and CPEs the short one. In SQL: `vigie_name_words(i) <@ vigie_name_words(row)`.
 */
export function vendorWithin(itemVendor: string | null, rowVendor: string | null): boolean {
  const mine = nameWords(itemVendor);
  if (!mine.length) return false;
  const theirs = new Set(nameWords(rowVendor));
  return mine.every((w) => theirs.has(w));
}

/**
 * A product's name as a CNA display name gives it, without its vendor's words and folded: the
 * leading words that are the vendor's are dropped, then case, spaces and punctuation
 * ("Apache Airflow" of "Apache Software Foundation" → "airflow", "VMware ESXi" → "esxi",
 * "FortiClientEMS" → "forticlientems"; only leading words: "Pulse Connect Secure" of "Pulse Secure"
 * → "connectsecure"). Null when nothing is left ("Jenkins" of "Jenkins Project"). Compared with an
 * item's product folded (vendorKey). In SQL: `vigie_product_core(vendor_norm, product_norm)`.
 */
export function productCore(vendor: string | null, product: string): string | null {
  const vendorWords = new Set(nameWords(vendor));
  const words = nameWords(product);
  let start = 0;
  while (start < words.length && vendorWords.has(words[start]!)) start++;
  return start < words.length ? words.slice(start).join("") : null;
}

/** Words a CNA writes after a product's CPE name for an edition of it ("NGINX Open Source" is f5:nginx). */
const EDITION_TAILS = [["open", "source", "edition"], ["open", "source"], ["community", "edition"], ["community"], ["server"]];

/**
 * A CNA display name without its trailing edition words, then folded as productCore does: "NGINX
 * Open Source" of F5 → "nginx", "Bamboo Server" of Atlassian → "bamboo", "UvDesk Community" of
 * Webkul Software → "uvdesk". Null when no edition word trails, or nothing is left. Never "Enterprise"
 * (Vault Enterprise is not hashicorp:vault's open-source line). In SQL:
 * `vigie_product_base(vendor_norm, product_norm)` (migration 0033).
 */
export function productBase(vendor: string | null, product: string): string | null {
  const words = nameWords(product);
  const tail = EDITION_TAILS.find((t) => t.length < words.length && t.every((w, i) => words[words.length - t.length + i] === w));
  return tail ? productCore(vendor, words.slice(0, words.length - tail.length).join("_")) : null;
}

/** The folded names an item's product may have once its vendor's words lead: the name without 1, 2… of its first words. */
export function nameTails(product: string): string[] {
  const words = nameWords(product);
  return words.slice(1).map((_, i) => words.slice(i + 1).join(""));
}
