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
