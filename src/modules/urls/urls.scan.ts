import type { UrlStatus } from "../../platform/db/schema/index.js";
import { createHttpClient, OutboundError, type HttpClientOptions, type TlsInfo } from "../../platform/net/http-client.js";
import { detect, type Detected } from "./urls.detect.js";
import type { Fingerprints } from "./urls.fingerprints.js";

/** How a scan reaches a URL (from the configuration; tests relax the guard explicitly). */
export interface ScanSettings {
  /** VIGIE_ALLOW_PRIVATE_TARGETS: private, loopback, link-local and metadata addresses let through. */
  allowPrivate: boolean;
  /** VIGIE_URLS_SCAN_TIMEOUT_MS: the whole scan, redirects included. */
  timeoutMs: number;
  /** Bytes of the page read for detection (2 MB); the rest is not downloaded. */
  maxBodyBytes: number;
  /** Redirects followed, each target checked by the guard (5). */
  maxRedirects: number;
  /** Addresses let through whatever the guard says (tests). */
  allowAddresses?: readonly string[];
  resolve?: HttpClientOptions["resolve"];
}

/** What one scan found. */
export interface ScanResult {
  status: Exclude<UrlStatus, "pending">;
  httpStatus: number | null;
  /** Why the scan failed, or why the certificate does not verify (French, for the user). */
  error: string | null;
  finalUrl: string | null;
  durationMs: number;
  cert: {
    expiresAt: Date | null;
    issuer: string | null;
    subject: string | null;
    valid: boolean;
    error: string | null;
  } | null;
  technologies: Detected[];
  /** The page was longer than maxBodyBytes (detection read its beginning). */
}

const TLS_ERRNO = /SSL|TLS|CERT|EPROTO|ERR_OSSL/;

/** A failure with no usable answer, as a status. */
function failed(err: OutboundError, https: boolean): ScanResult["status"] {
  switch (err.code) {
    case "adresse_interdite":
    case "url_invalide":
      return "blocked";
    case "dns":
      return "dns_error";
    case "delai_depasse":
      return "timeout";
    case "trop_de_redirections":
      return "redirect_loop";
    default:
      if (err.errno === "ECONNREFUSED") return "refused";
      if (https && err.errno && TLS_ERRNO.test(err.errno)) return "tls_error";
      return "network_error";
  }
}

function certOf(tls: TlsInfo | null | undefined): ScanResult["cert"] {
  if (!tls?.cert) return null;
  return { expiresAt: tls.cert.validTo, issuer: tls.cert.issuer, subject: tls.cert.subject, valid: tls.authorized, error: tls.error };
}

/**
 * A scanner: one GET through the SSRF-guarded client (no cookie jar, no credentials sent, at most
 * `maxRedirects` redirects each checked, a body cap), the leaf certificate read even when it does
 * not verify, the technologies detected on what was read. Never throws for a site's failure: the
 * status says it.
 */
export function createScanner(settings: ScanSettings, fingerprints: () => Fingerprints): (url: string) => Promise<ScanResult> {
  const client = createHttpClient({
    allowPrivate: settings.allowPrivate,
    timeoutMs: settings.timeoutMs,
    maxBodyBytes: settings.maxBodyBytes,
    maxRedirects: settings.maxRedirects,
    allowAddresses: settings.allowAddresses,
    resolve: settings.resolve,
    readTls: true,
    urlCredentials: false,
  });
  return async (url) => {
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    try {
      const res = await client({
        method: "GET",
        url,
        headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8", "accept-encoding": "identity" },
      });
      const cert = certOf(res.tls);
      const technologies = detect(fingerprints(), { url: res.url, headers: res.headers, html: res.body, certIssuer: cert?.issuer ?? null });
      const https = res.url.startsWith("https:");
      const status: ScanResult["status"] =
        https && cert && !cert.valid ? "tls_error" : res.status >= 500 ? "down" : res.status >= 400 ? "http_error" : "up";
      return {
        status,
        httpStatus: res.status,
        error: status === "tls_error" ? `certificat non vérifié (${cert?.error})` : null,
        finalUrl: res.url,
        durationMs: ms(),
        cert,
        technologies,
      };
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      return {
        status: failed(err, url.startsWith("https:")),
        httpStatus: null,
        error: err.message,
        finalUrl: null,
        durationMs: ms(),
        cert: null,
        technologies: [],
      };
    }
  };
}
