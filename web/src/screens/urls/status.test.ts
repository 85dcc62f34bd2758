import { describe, expect, it } from "vitest";
import { certState, statusTone } from "./status";

describe("a monitored URL's badges", () => {
  const now = new Date("2026-11-26T12:00:00Z");
  const cert = (expires: string | null, over: { cert_valid?: boolean | null; cert_warning_days?: number | null } = {}) =>
    certState({ cert_expires_at: expires, cert_valid: true, cert_warning_days: null, ...over }, now);
  it("counts the certificate's whole days left, warns within the URL's period (30 by default), red once expired or unverified", () => {
    expect(cert(null)).toBeNull();
    expect(cert("2027-01-25T12:00:00Z")).toEqual({ days: 60, tone: "ok" });
    expect(cert("2026-12-26T11:00:00Z")).toEqual({ days: 29, tone: "warn" });
    expect(cert("2026-12-26T13:00:00Z")).toEqual({ days: 30, tone: "warn" });
    expect(cert("2026-12-26T13:00:00Z", { cert_warning_days: 14 })).toEqual({ days: 30, tone: "ok" });
    expect(cert("2026-11-25T12:00:00Z")).toEqual({ days: -1, tone: "bad" });
    expect(cert("2027-06-01T00:00:00Z", { cert_valid: false })).toEqual({ days: 186, tone: "bad" });
  });
  it("colours the status: up green, pending grey, answers with a fault amber, no answer red", () => {
    expect(["up", "pending", "http_error", "tls_error", "redirect_loop", "down", "timeout", "refused", "blocked"].map(statusTone)).toEqual([
      "ok",
      "idle",
      "warn",
      "warn",
      "warn",
      "bad",
      "bad",
      "bad",
      "bad",
    ]);
  });
});
