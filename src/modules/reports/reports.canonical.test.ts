import { describe, expect, it } from "vitest";
import { canonicalJson, instant, round2, sha256Hex } from "./reports.canonical.js";
import { kevVerdict } from "./reports.content.js";

describe("canonical JSON (the fingerprint's bytes)", () => {
  it("sorts keys at every depth by UTF-16 code units, keeps array order, writes no whitespace", () => {
    expect(canonicalJson({ b: 1, a: [{ z: null, é: true, Z: "x" }], A: {} })).toBe('{"A":{},"a":[{"Z":"x","z":null,"é":true}],"b":1}');
  });

  it("writes strings in NFC and numbers in their shortest form; refuses what JSON cannot say", () => {
    expect(canonicalJson("e\u0301")).toBe(JSON.stringify("é"));
    expect(canonicalJson([4.5, 10, -0, 0.1 + 0.2])).toBe("[4.5,10,0,0.30000000000000004]");
    expect(canonicalJson([round2(0.1 + 0.2), round2(865.9512), round2(null)])).toBe("[0.3,865.95,null]");
    expect(() => canonicalJson(Number.NaN)).toThrow();
    expect(() => canonicalJson({ f: () => 1 })).toThrow();
  });

  it("is the same for the same content whatever the key order, and its SHA-256 is the fingerprint", () => {
    const one = canonicalJson({ x: 1, y: { b: 2, a: 3 } });
    expect(canonicalJson({ y: { a: 3, b: 2 }, x: 1 })).toBe(one);
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("writes instants in UTC to the second", () => {
    expect(instant(new Date("2026-03-29T00:59:59.999+02:00"))).toBe("2026-03-28T22:59:59Z");
    expect(instant(null)).toBeNull();
  });
});

describe("KEV verdict against CISA's due date (Paris days)", () => {
  it("handled on or before the due date is on time, after it late; open past it overdue", () => {
    expect(kevVerdict("2024-04-19", "2024-04-19", "2026-01-01")).toBe("dans_les_delais");
    expect(kevVerdict("2024-04-19", "2024-04-20", "2026-01-01")).toBe("en_retard");
    expect(kevVerdict("2024-04-19", null, "2024-04-19")).toBe("ouvert");
    expect(kevVerdict("2024-04-19", null, "2024-04-20")).toBe("ouvert_en_retard");
    expect(kevVerdict(null, null, "2024-04-20")).toBe("sans_echeance");
    expect(kevVerdict(null, "2024-04-20", "2024-04-20")).toBe("dans_les_delais");
  });
});
