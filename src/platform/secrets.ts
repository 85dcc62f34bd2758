import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { decodeSecretKey } from "../config.js";

/**
 * Secrets at rest (webhook secrets, Slack and Teams URLs): AES-256-GCM under one 32-byte key.
 * A stored secret reads `enc:v1:<key id>:<base64url(iv ‖ tag ‖ ciphertext)>`: a 12-byte random
 * IV, the 16-byte GCM tag, then the ciphertext. The key id (8 hex digits of the key's SHA-256)
 * tells a secret written under another key from a damaged one, so the error says which.
 */

const PREFIX = "enc:v1:";
const STORED = /^enc:v1:([0-9a-f]{8}):([A-Za-z0-9_-]+)$/;
export const KEY_FILE = "secret.key";

export class SecretError extends Error {
  override name = "SecretError";
}

/** Encrypts and decrypts secrets under one key, read on first use. */
export class SecretBox {
  private cached: { key: Buffer; id: string } | null = null;

  /** `key`: the key, or what reads it (the key file is read, or written, on first use only). */
  constructor(private readonly key: Buffer | (() => Buffer)) {}

  private get k(): { key: Buffer; id: string } {
    if (!this.cached) {
      const key = typeof this.key === "function" ? this.key() : this.key;
      if (key.length !== 32) throw new SecretError("la clé de chiffrement doit faire 32 octets");
      this.cached = { key, id: createHash("sha256").update(key).digest("hex").slice(0, 8) };
    }
    return this.cached;
  }

  /** 8 hex digits naming the key (not secret); reading it loads the key. */
  get keyId(): string {
    return this.k.id;
  }

  /** True for a value in the stored form (whatever its key). */
  static isEncrypted(value: unknown): value is string {
    return typeof value === "string" && value.startsWith(PREFIX);
  }

  encrypt(clear: string): string {
    const { key, id } = this.k;
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    const data = Buffer.concat([cipher.update(clear, "utf8"), cipher.final()]);
    return `${PREFIX}${id}:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString("base64url")}`;
  }

  /** The clear text of a stored secret; SecretError when it is not one, or not under this key. */
  decrypt(stored: string): string {
    const m = STORED.exec(stored);
    if (!m) throw new SecretError("secret stocké illisible (format enc:v1 attendu)");
    const { key, id } = this.k;
    if (m[1] !== id)
      throw new SecretError(
        `secret chiffré avec une autre clé (${m[1]}) que la clé en service (${id}) : vérifiez VIGIE_SECRET_KEY ou ${KEY_FILE}`,
      );
    const raw = Buffer.from(m[2]!, "base64url");
    if (raw.length < 28) throw new SecretError("secret stocké illisible (trop court)");
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
    } catch {
      throw new SecretError("secret stocké altéré : son authentification a échoué");
    }
  }

  /** A keyed digest (HMAC-SHA-256, hex) of a secret: compares or fingerprints it without storing it. */
  digest(clear: string): string {
    return createHmac("sha256", this.k.key).update(clear).digest("hex");
  }
}

/**
 * The key of this installation: VIGIE_SECRET_KEY when set, else `<dataDir>/secret.key`, created
 * (mode 0600, 32 random bytes in base64) on first start. Two processes starting at once agree:
 * the file is created exclusively and the loser reads the winner's. `warn` is told when the file
 * is used under PostgreSQL (processes on other machines would each make their own key) or is
 * readable by others.
 */
export function loadSecretKey(
  settings: { secretKey: Buffer | undefined; dataDir: string; driver: "pglite" | "postgres" },
  warn: (message: string) => void = () => undefined,
): Buffer {
  if (settings.secretKey) return settings.secretKey;
  const path = join(settings.dataDir, KEY_FILE);
  let created = false;
  try {
    mkdirSync(settings.dataDir, { recursive: true });
    const fd = openSync(path, "wx", 0o600);
    try {
      writeSync(fd, `${randomBytes(32).toString("base64")}\n`);
    } finally {
      closeSync(fd);
    }
    created = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new SecretError(`impossible de créer ${path} : ${(err as Error).message}`);
  }
  const key = decodeSecretKey(readFileSync(path, "utf8"));
  if (!key) throw new SecretError(`${path} ne contient pas une clé de 32 octets (base64 ou hexadécimal)`);
  if (statSync(path).mode & 0o077) warn(`${path} est lisible par d'autres utilisateurs : chmod 600 ${path}`);
  if (settings.driver === "postgres")
    warn(
      `VIGIE_SECRET_KEY n'est pas défini : la clé des secrets est ${created ? "générée dans" : "lue dans"} ${path}. ` +
        "Définissez VIGIE_SECRET_KEY (la même pour tous les processus qui partagent cette base PostgreSQL), " +
        `par exemple avec le contenu de ce fichier.`,
    );
  return key;
}
