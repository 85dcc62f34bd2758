import { createHash } from "node:crypto";

/**
 * The canonical JSON of a report's content, the bytes its fingerprint (`empreinte`) is the SHA-256
 * of (ADR 0015). The rule, so that anyone can recompute it from the JSON download:
 * - objects: keys sorted by UTF-16 code units (JavaScript's default sort, as RFC 8785/JCS), no
 *   whitespace; arrays keep their order (the content builder sorts every list it makes);
 * - strings: Unicode NFC, escaped as JSON.stringify does;
 * - numbers: finite only; integers as integers, other figures rounded to 2 decimals by the content
 *   builder (`round2`) and written in ECMAScript's shortest form (4.5, not 4.50);
 * - instants: ISO 8601 UTC to the second, `YYYY-MM-DDTHH:MM:SSZ` (`instant`); calendar days
 *   `YYYY-MM-DD` (Paris days where the report says so); absent values are null, never omitted.
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value.normalize("NFC"));
    case "number":
      if (!Number.isFinite(value)) throw new Error(`canonical JSON: not a finite number (${value})`);
      return JSON.stringify(Object.is(value, -0) ? 0 : value);
    case "boolean":
      return value ? "true" : "false";
    case "object": {
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
      const keys = Object.keys(value as object)
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .sort();
      return `{${keys.map((k) => `${JSON.stringify(k.normalize("NFC"))}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
    }
    default:
      throw new Error(`canonical JSON: unsupported ${typeof value}`);
  }
}

/** SHA-256 of bytes (a string is taken as UTF-8), lowercase hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** A figure rounded to 2 decimals (the canonical number rule), null stays null. */
export function round2(x: number | null | undefined): number | null {
  if (x === null || x === undefined || !Number.isFinite(x)) return null;
  return Math.round(x * 100) / 100;
}

/** An instant in the canonical form: ISO 8601 UTC to the second. */
export function instant(d: Date | string | null | undefined): string | null {
  if (d === null || d === undefined) return null;
  const t = typeof d === "string" ? new Date(d) : d;
  return `${t.toISOString().slice(0, 19)}Z`;
}
