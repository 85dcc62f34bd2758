/** A monitored URL's last status as a badge's tone. */
export function statusTone(status: string): "ok" | "warn" | "bad" | "idle" {
  if (status === "up") return "ok";
  if (status === "pending") return "idle";
  if (status === "http_error" || status === "tls_error" || status === "redirect_loop") return "warn";
  return "bad";
}

/**
 * A certificate's days left (whole days from `now` to its expiry, negative once expired) and its
 * tone: expired or not verified is bad, within the URL's warning period (30 days by default) a
 * warning, else fine. Null without a certificate.
 */
export function certState(
  u: { cert_expires_at: string | null; cert_valid: boolean | null; cert_warning_days: number | null },
  now: Date,
): { days: number; tone: "ok" | "warn" | "bad" } | null {
  if (!u.cert_expires_at) return null;
  const days = Math.floor((Date.parse(u.cert_expires_at) - now.getTime()) / 86_400_000);
  if (days < 0 || u.cert_valid === false) return { days, tone: "bad" };
  return { days, tone: days <= (u.cert_warning_days ?? 30) ? "warn" : "ok" };
}
