import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, decodeSecretKey, loadConfig } from "../config.js";
import { KEY_FILE, loadSecretKey, SecretBox, SecretError } from "./secrets.js";

const key = (byte: number) => Buffer.alloc(32, byte);

describe("SecretBox", () => {
  it("round-trips a secret in the enc:v1 form, a fresh IV each time", () => {
    const box = new SecretBox(key(1));
    const a = box.encrypt("https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXX");
    const b = box.encrypt("https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXX");
    expect(a).toMatch(/^enc:v1:[0-9a-f]{8}:[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain("slack");
    expect(box.decrypt(a)).toBe("https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXX");
    expect(SecretBox.isEncrypted(a)).toBe(true);
    expect(SecretBox.isEncrypted("https://x")).toBe(false);
  });

  it("says clearly when a secret was written under another key", () => {
    const stored = new SecretBox(key(1)).encrypt("s3cret");
    const other = new SecretBox(key(2));
    expect(() => other.decrypt(stored)).toThrow(SecretError);
    expect(() => other.decrypt(stored)).toThrow(/autre clé \([0-9a-f]{8}\) que la clé en service \([0-9a-f]{8}\)/);
  });

  it("refuses an altered secret", () => {
    const box = new SecretBox(key(1));
    const stored = box.encrypt("s3cret");
    // One bit of the ciphertext flipped (not a base64 character: the last one may carry only padding bits).
    const cut = stored.lastIndexOf(":") + 1;
    const bytes = Buffer.from(stored.slice(cut), "base64url");
    bytes[bytes.length - 1]! ^= 1;
    expect(() => box.decrypt(`${stored.slice(0, cut)}${bytes.toString("base64url")}`)).toThrow(/altéré/);
    expect(() => box.decrypt("enc:v1:zz")).toThrow(/illisible/);
  });

  it("reads its key lazily", () => {
    let reads = 0;
    const box = new SecretBox(() => {
      reads++;
      return key(3);
    });
    expect(reads).toBe(0);
    box.decrypt(box.encrypt("x"));
    expect(reads).toBe(1);
  });
});

describe("loadSecretKey", () => {
  it("uses VIGIE_SECRET_KEY when set, writing nothing", () => {
    const dir = mkdtempSync(join(tmpdir(), "vigie-key-"));
    expect(loadSecretKey({ secretKey: key(7), dataDir: dir, driver: "pglite" })).toEqual(key(7));
    expect(() => statSync(join(dir, KEY_FILE))).toThrow();
  });

  it("generates the key file on first start (mode 0600), then reads the same key", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "vigie-key-")), "data");
    const warnings: string[] = [];
    const first = loadSecretKey({ secretKey: undefined, dataDir: dir, driver: "pglite" }, (m) => warnings.push(m));
    expect(first.length).toBe(32);
    expect(statSync(join(dir, KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(loadSecretKey({ secretKey: undefined, dataDir: dir, driver: "pglite" })).toEqual(first);
    expect(warnings).toEqual([]);
    expect(decodeSecretKey(readFileSync(join(dir, KEY_FILE), "utf8"))).toEqual(first);
  });

  it("warns under PostgreSQL that every process needs the same VIGIE_SECRET_KEY", () => {
    const dir = mkdtempSync(join(tmpdir(), "vigie-key-"));
    const warnings: string[] = [];
    loadSecretKey({ secretKey: undefined, dataDir: dir, driver: "postgres" }, (m) => warnings.push(m));
    expect(warnings.join("\n")).toMatch(/VIGIE_SECRET_KEY n'est pas défini.*générée dans.*même pour tous les processus/s);
  });

  it("refuses a key file that holds no key", () => {
    const dir = mkdtempSync(join(tmpdir(), "vigie-key-"));
    writeFileSync(join(dir, KEY_FILE), "not a key\n", { mode: 0o600 });
    expect(() => loadSecretKey({ secretKey: undefined, dataDir: dir, driver: "pglite" })).toThrow(/ne contient pas une clé de 32 octets/);
  });
});

describe("configuration of secrets and notifications", () => {
  const hex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
  it("decodes a key in hex or base64, and refuses any other length", () => {
    expect(decodeSecretKey(hex)).toEqual(Buffer.from(hex, "hex"));
    expect(decodeSecretKey(Buffer.from(hex, "hex").toString("base64"))).toEqual(Buffer.from(hex, "hex"));
    expect(decodeSecretKey(Buffer.from(hex, "hex").toString("base64url"))).toEqual(Buffer.from(hex, "hex"));
    expect(decodeSecretKey(Buffer.alloc(16).toString("base64"))).toBeNull();
    expect(decodeSecretKey("short")).toBeNull();
    expect(loadConfig({ VIGIE_SECRET_KEY: hex }).secretKey).toEqual(Buffer.from(hex, "hex"));
    expect(() => loadConfig({ VIGIE_SECRET_KEY: "abc" })).toThrow(ConfigError);
    expect(() => loadConfig({ VIGIE_SECRET_KEY: "abc" })).toThrow(/VIGIE_SECRET_KEY : 32 octets attendus/);
  });

  it("reads the notification settings, private targets refused by default", () => {
    const c = loadConfig({});
    expect(c.notify).toEqual({
      allowPrivateTargets: false,
      timeoutMs: 10_000,
      smtpUrl: undefined,
      smtpFrom: undefined,
      smtpStartTls: "opportunistic",
      smtpCa: null,
      smtpTlsInsecure: false,
    });
    expect(c.secretKey).toBeUndefined();
    const d = loadConfig({
      VIGIE_ALLOW_PRIVATE_TARGETS: "true",
      VIGIE_NOTIFY_TIMEOUT_MS: "2500",
      VIGIE_SMTP_URL: "smtp://user:pass@mail.example.org:587",
      VIGIE_SMTP_FROM: "Vigie <alertes@example.org>",
    });
    expect(d.notify).toEqual({
      allowPrivateTargets: true,
      timeoutMs: 2500,
      smtpUrl: "smtp://user:pass@mail.example.org:587",
      smtpFrom: "Vigie <alertes@example.org>",
      smtpStartTls: "opportunistic",
      smtpCa: null,
      smtpTlsInsecure: false,
    });
    expect(() => loadConfig({ VIGIE_SMTP_URL: "http://mail.example.org" })).toThrow(/VIGIE_SMTP_URL: URL smtp:\/\/ ou smtps:\/\//);
    expect(() => loadConfig({ VIGIE_SMTP_URL: "smtp://mail.example.org" })).toThrow(/VIGIE_SMTP_FROM : requis/);
    expect(() => loadConfig({ VIGIE_SMTP_URL: "smtp://m.example.org", VIGIE_SMTP_FROM: "pas une adresse" })).toThrow(
      /VIGIE_SMTP_FROM: adresse e-mail attendue/,
    );
    expect(() => loadConfig({ VIGIE_ALLOW_PRIVATE_TARGETS: "yes" })).toThrow(ConfigError);
  });
});
