import { createHash } from "node:crypto";
import type * as OpenPgp from "openpgp";

/**
 * The trust a CSAF document is held to before anything of it is kept (CSAF 2.0 §7.1.18–7.1.19,
 * docs/csaf-providers.md): its SHA-512 (else SHA-256) hash file equals the digest of the bytes
 * served, and its detached OpenPGP signature (`.asc`) verifies with one of the public keys the
 * provider-metadata names (each key fetched from its URL and checked against the fingerprint the
 * metadata gives). openpgp.js does the OpenPGP.
 */

/** A public key of the provider, as read and checked against the metadata's fingerprint. */
export interface ProviderKey {
  fingerprint: string;
  url: string;
  armored: string;
}

/** The digest the hash file must give, in lower-case hex. */
export function digestOf(bytes: Uint8Array, algorithm: "sha256" | "sha512"): string {
  return createHash(algorithm).update(bytes).digest("hex");
}

/**
 * A hash file's digest: its first token (the `sha512sum` layout, `<hex>  <file name>`), lower case;
 * null when it is not hex of the algorithm's length.
 */
export function hashFileDigest(text: string, algorithm: "sha256" | "sha512"): string | null {
  const token = text.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  return new RegExp(`^[0-9a-f]{${algorithm === "sha256" ? 64 : 128}}$`).test(token) ? token : null;
}

const hex = (s: string) => s.replace(/\s+/g, "").toUpperCase();

/** openpgp.js (1.2 MB of JavaScript), loaded at the first key or signature: not at every process start. */
const pgp = () => import("openpgp");

/** Reads an armored public key and checks it is the one whose fingerprint the metadata gives; the reason when not. */
export async function checkKey(armored: string, fingerprint: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  const openpgp = await pgp();
  let key: OpenPgp.Key;
  try {
    key = await openpgp.readKey({ armoredKey: armored });
  } catch (err) {
    return { ok: false, reason: `clé OpenPGP illisible (${(err as Error).message})` };
  }
  const actual = key.getFingerprint().toUpperCase();
  if (actual !== hex(fingerprint)) return { ok: false, reason: `empreinte ${actual} au lieu de ${hex(fingerprint)} annoncée` };
  return { ok: true };
}

/** The provider's stored keys read once for a sync (openpgp.js parses a key in ~1 ms: not once per document). */
export async function readKeys(keys: ProviderKey[]): Promise<OpenPgp.Key[]> {
  const openpgp = await pgp();
  return Promise.all(keys.map((k) => openpgp.readKey({ armoredKey: k.armored })));
}

/** The two faults a fresher copy of the provider's keys may cure (a key rotated since they were read). */
export const KEY_FAULTS = ["signature d'une clé inconnue du fournisseur", "signature invalide"];

/**
 * Verifies a detached signature of `bytes` against the provider's keys (readKeys): null when one
 * verifies, else why not — the signature's key is none of the provider's (clé inconnue), or it
 * does not verify (signature invalide), or it cannot be read.
 */
export async function signatureFault(bytes: Uint8Array, armoredSignature: string, publicKeys: OpenPgp.Key[]): Promise<string | null> {
  const openpgp = await pgp();
  let signature: OpenPgp.Signature;
  try {
    signature = await openpgp.readSignature({ armoredSignature });
  } catch (err) {
    return `signature OpenPGP illisible (${(err as Error).message})`;
  }
  const signers = signature.getSigningKeyIDs().map((id) => id.toHex().toUpperCase());
  const known = publicKeys.filter((k) => k.getKeys().some((sub) => signers.includes(sub.getKeyID().toHex().toUpperCase())));
  if (!known.length) return `${KEY_FAULTS[0]} (${signers.join(", ") || "sans identifiant"})`;
  try {
    const message = await openpgp.createMessage({ binary: bytes });
    const result = await openpgp.verify({ message, signature, verificationKeys: known, expectSigned: true, format: "binary" });
    await result.signatures[0]!.verified;
    return null;
  } catch (err) {
    return `${KEY_FAULTS[1]} (${(err as Error).message})`;
  }
}
