import { lookup as dnsLookup } from "node:dns/promises";
import http, { type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { TLSSocket } from "node:tls";
import { VERSION } from "../../version.js";
import { forbiddenAddress } from "./address.js";

/**
 * Outbound HTTP to addresses users typed (webhooks, Slack, Teams), with a guard against
 * server-side request forgery: the host is resolved once, every address it resolves to is
 * checked, and the connection is made to the checked address (a custom `lookup` pins it, so a
 * second resolution cannot answer differently: DNS rebinding gets nowhere). Redirects are
 * followed by hand, at most `maxRedirects`, and each target is checked the same way.
 */

export type ResolvedAddress = { address: string; family: 4 | 6 };
/** Resolves a host name to all its addresses (dns.lookup with all: true by default). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface HttpClientOptions {
  /** Let private, loopback, link-local… addresses through (VIGIE_ALLOW_PRIVATE_TARGETS). */
  allowPrivate: boolean;
  /** Whole request, redirects included, in milliseconds. */
  timeoutMs: number;
  maxRedirects?: number;
  /** Bytes of response body kept; the rest is dropped and the connection closed. */
  maxBodyBytes?: number;
  /** Addresses let through although the guard would refuse them (tests, a known relay). */
  allowAddresses?: readonly string[];
  resolve?: Resolver;
  /**
   * HTTPS answers are read even when the certificate does not verify (expired, self-signed, wrong
   * name), and the response's `tls` says whether it did, with the server's leaf certificate: for
   * a monitor, which must show that certificate. Default false: an unverified peer is an error.
   */
  readTls?: boolean;
  /** Send the user:password of a URL (or of a redirect's Location) as Basic auth (default true; false for URL scans). */
  urlCredentials?: boolean;
}

/** The TLS session of an HTTPS answer (readTls): the leaf certificate and whether it verified. */
export interface TlsInfo {
  /** The chain verified against the trusted CAs and the host name matched. */
  authorized: boolean;
  /** Why it did not (CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT, ERR_TLS_CERT_ALTNAME_INVALID…), else null. */
  error: string | null;
  /** The leaf certificate; null when the server sent none. */
  cert: {
    subject: string | null;
    issuer: string | null;
    validFrom: Date | null;
    validTo: Date | null;
    fingerprint256: string | null;
  } | null;
  protocol: string | null;
}

export interface OutboundRequest {
  method: "GET" | "POST";
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** Aborts the request (the run's lease lost, the process stopping). */
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as UTF-8 text, cut at maxBodyBytes. */
  body: string;
  truncated: boolean;
  /** The URL that answered (after redirects). */
  url: string;
  redirects: number;
  /** With readTls: the TLS session of the last HTTPS hop (null when none was HTTPS). */
  tls?: TlsInfo | null;
}

export type OutboundErrorCode =
  | "url_invalide"
  | "adresse_interdite"
  | "dns"
  | "delai_depasse"
  | "reseau"
  | "trop_de_redirections"
  | "annule";

/** A request that got no HTTP answer. `retryable`: the same request may succeed later. */
export class OutboundError extends Error {
  override name = "OutboundError";
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
    readonly retryable: boolean,
    /** The system's error code when there is one (ECONNREFUSED, ENOTFOUND, CERT_HAS_EXPIRED…). */
    readonly errno?: string,
  ) {
    super(message);
  }
}

export type HttpClient = (req: OutboundRequest) => Promise<OutboundResponse>;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const systemResolve: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** A lookup that answers the address already checked, whatever the host. */
function pinned(target: ResolvedAddress): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as LookupFunction;
}

/** A guarded HTTP client (see the module comment). */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const maxRedirects = options.maxRedirects ?? 3;
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;
  const resolve = options.resolve ?? systemResolve;
  const allowed = new Set(options.allowAddresses ?? []);

  /** The address to connect to for `url`, every resolved address checked. */
  async function target(url: URL): Promise<ResolvedAddress> {
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    let addresses: ResolvedAddress[];
    const literal = isIP(host);
    if (literal) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
    else {
      try {
        addresses = await resolve(host);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        throw new OutboundError(
          "dns",
          `résolution DNS de ${host} impossible (${code ?? (err as Error).message})`,
          code === "EAI_AGAIN",
          code,
        );
      }
      if (addresses.length === 0) throw new OutboundError("dns", `aucune adresse pour ${host}`, false);
    }
    if (!options.allowPrivate) {
      for (const a of addresses) {
        const kind = allowed.has(a.address) ? null : forbiddenAddress(a.address);
        if (kind)
          throw new OutboundError(
            "adresse_interdite",
            `${host} mène à une adresse ${kind} (${a.address}) : refusé (VIGIE_ALLOW_PRIVATE_TARGETS=true pour l'autoriser)`,
            false,
          );
      }
    }
    return addresses[0]!;
  }

  function parse(raw: string, base?: URL): URL {
    let url: URL;
    try {
      url = new URL(raw, base);
    } catch {
      throw new OutboundError("url_invalide", "URL invalide", false);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new OutboundError("url_invalide", `protocole non permis : ${url.protocol}`, false);
    return url;
  }

  return async (req) => {
    const deadline = AbortSignal.timeout(options.timeoutMs);
    const signal = req.signal ? AbortSignal.any([deadline, req.signal]) : deadline;
    const failure = (err: unknown): OutboundError => {
      if (err instanceof OutboundError) return err;
      if (deadline.aborted) return new OutboundError("delai_depasse", `pas de réponse en ${options.timeoutMs} ms`, true);
      if (signal.aborted) return new OutboundError("annule", "requête annulée", false);
      const code = (err as NodeJS.ErrnoException).code;
      return new OutboundError("reseau", `erreur réseau (${code ?? (err as Error).message})`, true, code);
    };

    let url = parse(req.url);
    let method = req.method;
    let body = req.body;
    const headers: Record<string, string> = { "user-agent": `Vigie/${VERSION}`, ...req.headers };
    let tls: TlsInfo | null = null;
    try {
      for (let redirects = 0; ; redirects++) {
        const pin = await target(url);
        if (signal.aborted) throw failure(signal.reason);
        const res = await send(url, method, headers, body, pin, signal, {
          readTls: options.readTls === true,
          credentials: options.urlCredentials !== false,
        });
        if (options.readTls && url.protocol === "https:") tls = tlsInfo(res.socket as TLSSocket);
        const location = res.headers.location;
        if (!REDIRECTS.has(res.statusCode ?? 0) || !location) {
          const read = await readBody(res, maxBodyBytes);
          return {
            status: res.statusCode ?? 0,
            headers: res.headers,
            ...read,
            url: url.toString(),
            redirects,
            ...(options.readTls && { tls }),
          };
        }
        res.destroy();
        if (redirects >= maxRedirects) throw new OutboundError("trop_de_redirections", `plus de ${maxRedirects} redirections`, false);
        const next = parse(location, url);
        // As fetch does: 303, and 301/302 after a POST, go on as GET without the body.
        if (res.statusCode === 303 || (method === "POST" && (res.statusCode === 301 || res.statusCode === 302))) {
          method = "GET";
          body = undefined;
          delete headers["content-type"];
        }
        if (next.origin !== url.origin) delete headers.authorization;
        url = next;
      }
    } catch (err) {
      throw failure(err);
    }
  };
}

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  pin: ResolvedAddress,
  signal: AbortSignal,
  opts: { readTls: boolean; credentials: boolean },
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = (url.protocol === "https:" ? https : http).request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method,
        headers: body === undefined ? headers : { ...headers, "content-length": String(Buffer.byteLength(body)) },
        auth: opts.credentials && url.username ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined,
        lookup: pinned(pin),
        // readTls: the handshake goes through whatever the certificate, which tlsInfo then judges.
        ...(opts.readTls && { rejectUnauthorized: false }),
        // A fresh connection each time: a pooled socket would skip the check of this request's address.
        agent: false,
        signal,
      },
      resolve,
    );
    request.on("error", reject);
    request.end(body);
  });
}

const certName = (name: Record<string, string | string[]> | undefined): string | null => {
  if (!name) return null;
  const part = (k: string) => (Array.isArray(name[k]) ? (name[k] as string[]).join(", ") : (name[k] as string | undefined));
  return part("CN") ?? part("O") ?? (Object.values(name).flat()[0] as string | undefined) ?? null;
};
const certDate = (text: string | undefined): Date | null => {
  const d = text ? new Date(text) : null;
  return d && !Number.isNaN(d.getTime()) ? d : null;
};

/** The leaf certificate the server sent and whether it verified (read with rejectUnauthorized false). */
function tlsInfo(socket: TLSSocket): TlsInfo {
  const peer = socket.getPeerCertificate?.();
  const has = peer && Object.keys(peer).length > 0;
  const issuer = has ? peer.issuer : undefined;
  return {
    authorized: socket.authorized === true,
    error: socket.authorized ? null : String(socket.authorizationError ?? "UNKNOWN"),
    cert: has
      ? {
          subject: certName(peer.subject as unknown as Record<string, string>),
          // Issuer "O" first (Let's Encrypt, DigiCert Inc): the CN of an intermediate (R11, E5) says less.
          issuer: issuer ? ((issuer.O as string | undefined) ?? certName(issuer as unknown as Record<string, string>)) : null,
          validFrom: certDate(peer.valid_from),
          validTo: certDate(peer.valid_to),
          fingerprint256: peer.fingerprint256 ?? null,
        }
      : null,
    protocol: socket.getProtocol?.() ?? null,
  };
}

function readBody(res: IncomingMessage, max: number): Promise<{ body: string; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (truncated: boolean) => {
      if (done) return;
      done = true;
      resolve({ body: Buffer.concat(chunks).toString("utf8"), truncated });
    };
    const fail = (err: Error) => {
      if (done) return;
      done = true;
      reject(err);
    };
    res.on("data", (chunk: Buffer) => {
      if (done) return;
      const room = max - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size = max;
        finish(true);
        res.destroy(); // the rest is not read: the connection closes
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    res.on("end", () => finish(false));
    res.on("error", fail);
    res.on("aborted", () => fail(new Error("réponse interrompue")));
  });
}
