import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

const LogLevel = z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);
type LogLevel = z.infer<typeof LogLevel>;

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default("127.0.0.1"),
  VIGIE_DATA_DIR: z.string().min(1).default("./var/data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "doit commencer par postgres:// ou postgresql://")
    .optional(),
  LOG_LEVEL: LogLevel.default("info"),
  /** Connections of this process's PostgreSQL pool (DATABASE_URL); the LISTEN connection and pg-boss's come on top. */
  VIGIE_DB_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  /**
   * How long a new PostgreSQL connection may take, in milliseconds; past it the request answers 503
   * and the database counts as unreachable: requests answer 503 at once until a probe connects again.
   */
  VIGIE_DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(3_000),
  /** Limit applied to organizations that have no plan. */
  VIGIE_DEFAULT_MAX_API_CALLS_PER_HOUR: z.coerce.number().int().min(1).default(1000),
  /** Lifetime of a session (login) token, in hours. */
  VIGIE_SESSION_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 90)
    .default(12),
  /**
   * What this process does (PostgreSQL): `api` serves HTTP and enqueues jobs, `worker` runs the jobs
   * and serves only /healthz, /readyz and /metrics, `all` both. The embedded database is one process: `all`.
   */
  VIGIE_ROLE: z.enum(["all", "api", "worker"]).default("all"),
  /** Run background jobs (pg-boss) in this process (role all; off: an API that only enqueues, as role api). */
  VIGIE_JOBS: z.enum(["on", "off"]).default("on"),
  /** Bearer token GET /metrics asks for; unset: /metrics answers anyone who reaches the port. */
  VIGIE_METRICS_TOKEN: z.string().min(16, "au moins 16 caractères").optional(),
  /** SIGTERM: in-flight requests and running jobs get this long to finish, then leases are released and the process exits. */
  VIGIE_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /** On an empty database, import the bundled snapshot of real data at start-up. */
  VIGIE_SNAPSHOT: z.enum(["auto", "off"]).default("auto"),
  /** Behind a reverse proxy: take the client address from X-Forwarded-For (login throttling per address). */
  VIGIE_TRUST_PROXY: z.enum(["true", "false"]).default("false"),
  /** Set the session cookie's Secure flag (turn on behind HTTPS). */
  VIGIE_COOKIE_SECURE: z.enum(["true", "false"]).default("false"),
  /** Each source synced on its rhythm by the process that runs jobs (src/feeds/sync/). */
  VIGIE_FEEDS_SYNC: z.enum(["on", "off"]).default("on"),
  VIGIE_FEEDS_CACHE_DIR: z.string().min(1).optional(),
  /** EPSS scores older than this many days before the newest score date held are purged by maintenance-purge (the current score and the first date stay). */
  VIGIE_EPSS_HISTORY_DAYS: z.coerce.number().int().min(1).max(36_500).default(365),
  /** One request to a publisher until its answer's headers arrive (the body then streams), in milliseconds. */
  VIGIE_FEEDS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
  /** Retries of a request answered 403, 429, 5xx or timed out (with backoff, Retry-After honoured). */
  VIGIE_FEEDS_RETRIES: z.coerce.number().int().min(0).max(20).default(4),
  /** The first retry's wait, doubled at each next one, in milliseconds. */
  VIGIE_FEEDS_RETRY_BASE_MS: z.coerce.number().int().min(0).max(600_000).default(2_000),
  /** NVD API 2.0 key (sent as the apiKey header; raises NVD's rate limit). */
  VIGIE_NVD_API_KEY: z.string().min(1).optional(),
  /** Pause between two NVD requests (NVD asks 6 s without a key, 0.6 s with one), in milliseconds. */
  VIGIE_NVD_PAUSE_MS: z.coerce.number().int().min(0).max(600_000).optional(),
  /** GitHub token for the releases API of the CVE List (and PoC) (raises GitHub's 60 requests an hour). */
  VIGIE_GITHUB_TOKEN: z.string().min(1).optional(),
  /** OSV ecosystems synced, comma-separated (OSV's own spelling). */
  VIGIE_OSV_ECOSYSTEMS: z
    .string()
    .regex(/^[A-Za-z0-9.:_ -]+(,[A-Za-z0-9.:_ -]+)*$/, "écosystèmes OSV séparés par des virgules")
    .default("PyPI,npm,Go,crates.io,Maven,RubyGems,NuGet,Packagist"),
  /** Whole request (headers and body) must arrive within this; else 408 and the connection is closed. */
  VIGIE_HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /** Headers must arrive within this (at most the request timeout). */
  VIGIE_HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
  /** An idle keep-alive connection is closed after this. */
  VIGIE_HTTP_KEEPALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  /** A connection with no byte in either direction for this long is closed (slow readers). */
  VIGIE_HTTP_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /** Connections accepted at once; past it new ones are dropped at accept. */
  VIGIE_HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(1024),
  /** Bytes of request bodies buffered across all in-flight requests, in MiB; past it a body is refused (503). */
  VIGIE_HTTP_BODY_BUDGET_MB: z.coerce.number().int().min(1).max(65_536).default(32),
  /** How long a worker holds a workflow run without recording a step; past it another worker resumes the run. */
  VIGIE_RUN_LEASE_SECONDS: z.coerce.number().int().min(5).max(3600).default(120),
  /** How long a worker holds a digest it is sending; past it (its worker died) another sends it again, same id. */
  VIGIE_DIGEST_LEASE_SECONDS: z.coerce.number().int().min(5).max(3600).default(300),
  /** Finished workflow runs (dry runs included) older than this many days are purged by maintenance-purge. */
  VIGIE_RUNS_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(90),
  /** Processed outbox events older than this many days are purged by maintenance-purge (not while a kept run refers to them). */
  VIGIE_EVENTS_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(30),
  /** Vigie's public address (https://vigie.example.org): notification links are absolute under it, else paths. */
  VIGIE_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Let webhooks, Slack and Teams reach private, loopback and link-local addresses (tests, an internal receiver). */
  VIGIE_ALLOW_PRIVATE_TARGETS: z.enum(["true", "false"]).default("false"),
  VIGIE_CSAF_ALLOW_HTTP: z.enum(["true", "false"], { error: "true ou false attendu" }).default("false"),
  /** One outbound notification request (redirects included), in milliseconds. */
  VIGIE_NOTIFY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** SMTP server of notify_email: smtp://user:pass@host:587 (STARTTLS as VIGIE_SMTP_STARTTLS says) or smtps://host:465 (implicit TLS). */
  VIGIE_SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^\s/]+/, "URL smtp:// ou smtps:// attendue")
    .optional(),
  /** STARTTLS on smtp://: required (refuse a server without it), opportunistic (when offered), off (never). */
  VIGIE_SMTP_STARTTLS: z
    .enum(["required", "opportunistic", "off"], { error: "required, opportunistic ou off attendu" })
    .default("opportunistic"),
  /** PEM file of the authority (or the self-signed certificate) the SMTP server's certificate is checked against. */
  VIGIE_SMTP_CA_FILE: z.string().min(1).optional(),
  /** Accept any SMTP server certificate (an internal relay): the link is encrypted but not authenticated. */
  VIGIE_SMTP_TLS_INSECURE: z.enum(["true", "false"], { error: "true ou false attendu" }).default("false"),
  /** The From of notify_email: an address, or "Name <address>". */
  VIGIE_SMTP_FROM: z
    .string()
    .max(320)
    .regex(/^(?:[^<>@]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/, "adresse e-mail attendue (ou « Nom <adresse> »)")
    .optional(),
  /** Monitored URLs: scans at once in a process, a scan's whole time, failures before url.down, days of certificate notice. */
  VIGIE_URLS_SCAN_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  VIGIE_URLS_SCAN_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  VIGIE_URLS_DOWN_AFTER: z.coerce.number().int().min(1).max(100).default(3),
  VIGIE_URLS_CERT_WARNING_DAYS: z.coerce.number().int().min(0).max(365).default(30),
  /** Wappalyzer-format fingerprints (technologies/*.json, categories.json); unset: the bundled set. */
  VIGIE_FINGERPRINTS_DIR: z.string().min(1).optional(),
  /**
   * Stack items (docs/broad-items.md): the (item, CVE) candidates a request matches in its own
   * transaction; past it the items' alerts are raised by the items-match job, VIGIE_MATCH_BATCH
   * CVEs per transaction. An item with more candidates than VIGIE_ITEM_ALERT_WARN is answered with
   * an `avertissement`.
   */
  VIGIE_MATCH_INLINE_MAX: z.coerce.number().int().min(0).max(100_000).default(500),
  VIGIE_MATCH_BATCH: z.coerce.number().int().min(1).max(10_000).default(200),
  VIGIE_ITEM_ALERT_WARN: z.coerce.number().int().min(1).max(10_000_000).default(1_000),
  /** Key of the secrets stored encrypted (webhook secrets, Slack/Teams URLs): 32 bytes, hex or base64. */
  VIGIE_SECRET_KEY: z.string().optional(),
});

/** The schema with the SMTP settings that contradict each other refused at start rather than guessed. */
const CheckedEnvSchema = EnvSchema.superRefine((e, ctx) => {
  const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
  if (e.VIGIE_SMTP_URL?.startsWith("smtps://") && e.VIGIE_SMTP_STARTTLS === "off")
    issue("VIGIE_SMTP_STARTTLS", "off contredit smtps:// (TLS dès la connexion) : utilisez smtp:// pour une connexion en clair");
  if (e.VIGIE_SMTP_STARTTLS === "off" && (e.VIGIE_SMTP_CA_FILE || e.VIGIE_SMTP_TLS_INSECURE === "true"))
    issue("VIGIE_SMTP_STARTTLS", "off : aucune connexion TLS, VIGIE_SMTP_CA_FILE et VIGIE_SMTP_TLS_INSECURE seraient sans effet");
  if (e.VIGIE_SMTP_CA_FILE && e.VIGIE_SMTP_TLS_INSECURE === "true")
    issue(
      "VIGIE_SMTP_TLS_INSECURE",
      "contredit VIGIE_SMTP_CA_FILE : vérifiez le certificat avec l'autorité donnée, ou ne le vérifiez pas, pas les deux",
    );
});

/** Limits on HTTP clients: timeouts, connection cap and the budget of buffered body bytes. */
export type HttpLimits = Readonly<{
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  idleTimeoutMs: number;
  maxConnections: number;
  bodyBudgetBytes: number;
}>;

/** Settings of the URL scans. */
export type UrlScanSettings = Readonly<{
  concurrency: number;
  timeoutMs: number;
  downAfter: number;
  certWarningDays: number;
  /** null: the bundled fingerprints. */
  fingerprintsDir: string | null;
  /** VIGIE_ALLOW_PRIVATE_TARGETS, shared with the notifications (one guard). */
  allowPrivateTargets: boolean;
}>;

/** Settings of the feed sync (src/feeds/sync/). */
export type FeedSettings = Readonly<{
  /** VIGIE_FEEDS_SYNC: the sources are synced on their rhythm where jobs run. */
  sync: boolean;
  /** Where downloads wait for their import (each removed once imported). */
  cacheDir: string;
  /**
   * VIGIE_FEED_URLS_<SOURCE> (publisher addresses; an empty list disables the source) and
   * VIGIE_FEEDS_EVERY_<SOURCE> (seconds), by lower-cased source id. The feeds layer checks the ids
   * and adds each source's defaults: configuration sits below the feeds and does not know their registry.
   */
  urls: Readonly<Record<string, string[]>>;
  every: Readonly<Record<string, number>>;
  timeoutMs: number;
  retries: number;
  retryBaseMs: number;
  /** Secrets: never logged. */
  nvdApiKey: string | null;
  nvdPauseMs: number;
  githubToken: string | null;
  osvEcosystems: readonly string[];
  /** VIGIE_EPSS_HISTORY_DAYS: the window of daily EPSS scores kept, counted back from the newest score date held. */
  epssHistoryDays: number;
}>;

/** Settings of the notification actions. */
export type NotifySettings = Readonly<{
  allowPrivateTargets: boolean;
  timeoutMs: number;
  smtpUrl: string | undefined;
  smtpFrom: string | undefined;
  smtpStartTls: "required" | "opportunistic" | "off";
  /** The PEM content of VIGIE_SMTP_CA_FILE, read at start; null: the system's authorities. */
  smtpCa: string | null;
  /** VIGIE_SMTP_TLS_INSECURE: the server certificate is not checked. */
  smtpTlsInsecure: boolean;
}>;

/** VIGIE_MATCH_INLINE_MAX, VIGIE_MATCH_BATCH, VIGIE_ITEM_ALERT_WARN (docs/broad-items.md). */
export type MatchSettings = Readonly<{ inlineMax: number; batch: number; warnAbove: number }>;

/** What a process does: serve the API, run the jobs, or both (VIGIE_ROLE in docs/operations.md). */
export type Role = "all" | "api" | "worker";

export type Config = Readonly<{
  /** VIGIE_ROLE. */
  role: Role;
  /** Serve the API (/api/v1, sessions, the web application): roles all and api. */
  serveApi: boolean;
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** The PostgreSQL pool: its size and the time a new connection may take (VIGIE_DB_POOL_SIZE, VIGIE_DB_CONNECT_TIMEOUT_MS). */
  db: Readonly<{ poolSize: number; connectTimeoutMs: number }>;
  logLevel: LogLevel;
  defaultMaxApiCallsPerHour: number;
  sessionTtlHours: number;
  /** Run the job catalog here: roles all (unless VIGIE_JOBS=off) and worker. */
  jobs: boolean;
  /** VIGIE_METRICS_TOKEN: GET /metrics wants it as a bearer token; null: open. */
  metricsToken: string | null;
  shutdownTimeoutMs: number;
  snapshot: boolean;
  cookieSecure: boolean;
  trustProxy: boolean;
  feeds: FeedSettings;
  /** VIGIE_CSAF_ALLOW_HTTP: CSAF providers may be read over http (a local mirror, tests); https otherwise, as CSAF 2.0 asks. */
  csafAllowHttp: boolean;
  http: HttpLimits;
  notify: NotifySettings;
  urls: UrlScanSettings;
  /**
   * Workflow runs: the lease of a run (seconds), Vigie's public address for notification links, and
   * how many days finished runs and processed events are kept.
   */
  runs: { leaseSeconds: number; publicUrl: string | null; retentionDays: number; eventsRetentionDays: number };
  /** Digests: the lease of a digest being sent (seconds). */
  digests: { leaseSeconds: number };
  /** How stack items are matched: inline up to `inlineMax` candidates, else in batches of `batch` CVEs; `warnAbove` candidates: a warning. */
  matching: MatchSettings;
  /** VIGIE_SECRET_KEY decoded; undefined: the key file in the data directory (platform/secrets.ts). */
  secretKey: Buffer | undefined;
  /** Derived: which database driver runs. */
  driver: "pglite" | "postgres";
}>;

/** A 32-byte key written as 64 hex digits or as base64 (standard or URL-safe); null otherwise. */
export function decodeSecretKey(text: string): Buffer | null {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, "hex");
  if (!/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(t)) return null;
  const key = Buffer.from(t.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  return key.length === 32 ? key : null;
}

const FEED_URLS_VAR = /^VIGIE_FEED_URLS_([A-Z0-9_]+)$/;
const FEED_EVERY_VAR = /^VIGIE_FEEDS_EVERY_([A-Z0-9_]+)$/;
const DURATION = /^(\d+)(s|m|h|d)$/;
const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** `VIGIE_FEED_URLS_<SOURCE>` variables (comma-separated addresses; empty: none), by lower-cased source id. */
function feedUrlSettings(env: NodeJS.ProcessEnv): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(env)) {
    const m = FEED_URLS_VAR.exec(name);
    if (m && value !== undefined)
      out[m[1]!.toLowerCase()] = value
        .split(",")
        .map((u) => u.trim())
        .filter(Boolean);
  }
  return out;
}

/** `VIGIE_FEEDS_EVERY_<SOURCE>` variables (90s, 15m, 2h, 1d), in seconds by lower-cased source id; the bad ones listed. */
function feedEverySettings(env: NodeJS.ProcessEnv): { every: Record<string, number>; bad: string[] } {
  const every: Record<string, number> = {};
  const bad: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    const m = FEED_EVERY_VAR.exec(name);
    if (!m || value === undefined || value === "") continue;
    const d = DURATION.exec(value.trim());
    const seconds = d ? Number(d[1]) * UNIT_SECONDS[d[2] as keyof typeof UNIT_SECONDS] : 0;
    if (seconds >= 1 && seconds <= 30 * 86_400) every[m[1]!.toLowerCase()] = seconds;
    else bad.push(name);
  }
  return { every, bad };
}

/** Reads and validates the environment once; throws a readable message on bad values. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ""));
  const parsed = CheckedEnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Configuration invalide :\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  const urls = feedUrlSettings(env);
  const bad = Object.values(urls)
    .flat()
    .filter((u) => !/^https?:\/\/\S+$/.test(u));
  if (bad.length) throw new ConfigError(`Configuration invalide :\n  VIGIE_FEED_URLS_* : adresse http(s) attendue : ${bad.join(", ")}`);
  const every = feedEverySettings(env);
  if (every.bad.length)
    throw new ConfigError(`Configuration invalide :\n  ${every.bad.join(", ")} : durée attendue (90s, 15m, 2h, 1d ; de 1 s à 30 jours)`);
  if (e.VIGIE_HTTP_HEADERS_TIMEOUT_MS > e.VIGIE_HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError("Configuration invalide :\n  VIGIE_HTTP_HEADERS_TIMEOUT_MS : au plus VIGIE_HTTP_REQUEST_TIMEOUT_MS");
  }
  const secretKey = e.VIGIE_SECRET_KEY === undefined ? undefined : decodeSecretKey(e.VIGIE_SECRET_KEY);
  if (secretKey === null) {
    throw new ConfigError(
      "Configuration invalide :\n  VIGIE_SECRET_KEY : 32 octets attendus, en hexadécimal (64 caractères) ou en base64 (44 caractères) ; " +
        "par exemple : openssl rand -base64 32",
    );
  }
  if (e.VIGIE_SMTP_URL && !e.VIGIE_SMTP_FROM) {
    throw new ConfigError(
      "Configuration invalide :\n  VIGIE_SMTP_FROM : requis quand VIGIE_SMTP_URL est défini (l'expéditeur des e-mails)",
    );
  }
  if (e.VIGIE_ROLE !== "all" && !e.DATABASE_URL) {
    throw new ConfigError(
      `Configuration invalide :\n  VIGIE_ROLE : ${e.VIGIE_ROLE} demande PostgreSQL (DATABASE_URL) ; la base embarquée n'a qu'un processus, qui fait tout : VIGIE_ROLE=all`,
    );
  }
  if (e.VIGIE_ROLE === "worker" && e.VIGIE_JOBS === "off") {
    throw new ConfigError("Configuration invalide :\n  VIGIE_JOBS : off contredit VIGIE_ROLE=worker (un worker exécute les jobs)");
  }
  const smtpCa = e.VIGIE_SMTP_CA_FILE === undefined ? null : readCaFile(e.VIGIE_SMTP_CA_FILE);
  return Object.freeze({
    role: e.VIGIE_ROLE,
    serveApi: e.VIGIE_ROLE !== "worker",
    port: e.PORT,
    host: e.HOST,
    dataDir: e.VIGIE_DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    db: Object.freeze({ poolSize: e.VIGIE_DB_POOL_SIZE, connectTimeoutMs: e.VIGIE_DB_CONNECT_TIMEOUT_MS }),
    logLevel: e.LOG_LEVEL,
    defaultMaxApiCallsPerHour: e.VIGIE_DEFAULT_MAX_API_CALLS_PER_HOUR,
    sessionTtlHours: e.VIGIE_SESSION_TTL_HOURS,
    jobs: e.VIGIE_ROLE === "worker" || (e.VIGIE_ROLE === "all" && e.VIGIE_JOBS === "on"),
    metricsToken: e.VIGIE_METRICS_TOKEN ?? null,
    shutdownTimeoutMs: e.VIGIE_SHUTDOWN_TIMEOUT_MS,
    snapshot: e.VIGIE_SNAPSHOT === "auto",
    cookieSecure: e.VIGIE_COOKIE_SECURE === "true",
    trustProxy: e.VIGIE_TRUST_PROXY === "true",
    feeds: Object.freeze({
      sync: e.VIGIE_FEEDS_SYNC === "on",
      cacheDir: e.VIGIE_FEEDS_CACHE_DIR ?? join(e.VIGIE_DATA_DIR, "feeds-cache"),
      urls,
      every: every.every,
      timeoutMs: e.VIGIE_FEEDS_TIMEOUT_MS,
      retries: e.VIGIE_FEEDS_RETRIES,
      retryBaseMs: e.VIGIE_FEEDS_RETRY_BASE_MS,
      nvdApiKey: e.VIGIE_NVD_API_KEY ?? null,
      nvdPauseMs: e.VIGIE_NVD_PAUSE_MS ?? (e.VIGIE_NVD_API_KEY ? 600 : 6_000),
      githubToken: e.VIGIE_GITHUB_TOKEN ?? null,
      osvEcosystems: e.VIGIE_OSV_ECOSYSTEMS.split(",").map((x) => x.trim()),
      epssHistoryDays: e.VIGIE_EPSS_HISTORY_DAYS,
    }),
    csafAllowHttp: e.VIGIE_CSAF_ALLOW_HTTP === "true",
    http: Object.freeze({
      requestTimeoutMs: e.VIGIE_HTTP_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: e.VIGIE_HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: e.VIGIE_HTTP_KEEPALIVE_TIMEOUT_MS,
      idleTimeoutMs: e.VIGIE_HTTP_IDLE_TIMEOUT_MS,
      maxConnections: e.VIGIE_HTTP_MAX_CONNECTIONS,
      bodyBudgetBytes: e.VIGIE_HTTP_BODY_BUDGET_MB * 1024 * 1024,
    }),
    notify: Object.freeze({
      allowPrivateTargets: e.VIGIE_ALLOW_PRIVATE_TARGETS === "true",
      timeoutMs: e.VIGIE_NOTIFY_TIMEOUT_MS,
      smtpUrl: e.VIGIE_SMTP_URL,
      smtpFrom: e.VIGIE_SMTP_FROM,
      smtpStartTls: e.VIGIE_SMTP_STARTTLS,
      smtpCa,
      smtpTlsInsecure: e.VIGIE_SMTP_TLS_INSECURE === "true",
    }),
    urls: Object.freeze({
      concurrency: e.VIGIE_URLS_SCAN_CONCURRENCY,
      timeoutMs: e.VIGIE_URLS_SCAN_TIMEOUT_MS,
      downAfter: e.VIGIE_URLS_DOWN_AFTER,
      certWarningDays: e.VIGIE_URLS_CERT_WARNING_DAYS,
      fingerprintsDir: e.VIGIE_FINGERPRINTS_DIR ?? null,
      allowPrivateTargets: e.VIGIE_ALLOW_PRIVATE_TARGETS === "true",
    }),
    runs: Object.freeze({
      leaseSeconds: e.VIGIE_RUN_LEASE_SECONDS,
      publicUrl: e.VIGIE_PUBLIC_URL ?? null,
      retentionDays: e.VIGIE_RUNS_RETENTION_DAYS,
      eventsRetentionDays: e.VIGIE_EVENTS_RETENTION_DAYS,
    }),
    digests: Object.freeze({ leaseSeconds: e.VIGIE_DIGEST_LEASE_SECONDS }),
    matching: Object.freeze({ inlineMax: e.VIGIE_MATCH_INLINE_MAX, batch: e.VIGIE_MATCH_BATCH, warnAbove: e.VIGIE_ITEM_ALERT_WARN }),
    secretKey,
    driver: e.DATABASE_URL ? "postgres" : "pglite",
  });
}

/** VIGIE_SMTP_CA_FILE's certificates (PEM); a ConfigError when the file cannot be read or holds none. */
function readCaFile(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, "utf8");
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ConfigError(`Configuration invalide :\n  VIGIE_SMTP_CA_FILE : lecture de ${path} impossible (${why})`);
  }
  if (!pem.includes("-----BEGIN CERTIFICATE-----"))
    throw new ConfigError(
      `Configuration invalide :\n  VIGIE_SMTP_CA_FILE : ${path} ne contient aucun certificat PEM (-----BEGIN CERTIFICATE-----)`,
    );
  return pem;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}
