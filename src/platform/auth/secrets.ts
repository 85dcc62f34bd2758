import { hash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

/**
 * SHA-256 hex of a high-entropy token (API key, session token): enough, and fast on every request
 * (crypto.hash, one call: half the time of createHash().update().digest()).
 */
export function hashToken(token: string): string {
  return hash("sha256", token, "hex");
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

function randomString(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i]! % 62]; // 256 % 62 bias is negligible at this length
  return out;
}

export const API_KEY_PREFIX = "vk_";
export const SESSION_TOKEN_PREFIX = "vs_";

/** A new API key "vk_<8 visible>_<40 secret>" and its visible prefix "vk_<8 visible>". */
export function newApiKey(): { key: string; prefix: string } {
  const prefix = API_KEY_PREFIX + randomString(8);
  return { key: `${prefix}_${randomString(40)}`, prefix };
}

/** A new account (session) token. */
export function newSessionToken(): string {
  return SESSION_TOKEN_PREFIX + randomString(48);
}

// scrypt N=2^15, r=8, p=1 (OWASP minimum for scrypt), 32 MiB of memory per hash.
const SCRYPT: ScryptOptions = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEYLEN = 32;

function scryptAsync(password: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, KEYLEN, opts, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** "scrypt$N$r$p$salt$hash" (base64). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

/** Constant-time check of a password against a stored hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [algo, n, r, p, salt, hash] = stored.split("$");
  if (algo !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const key = await scryptAsync(password, Buffer.from(salt, "base64"), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash of a random password: verified against when the account does not exist, so timing reveals nothing. */
export const DUMMY_PASSWORD_HASH = await hashPassword(randomString(24));
