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
