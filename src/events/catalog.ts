/**
 * The typed event catalog: every event Vigie writes to the outbox, with its payload schema, whether
 * its row names a CVE and an alert, the field namespaces it offers to workflow conditions, and
 * which payload keys are condition facts. Producers write through `outbox.ts` with these types; the
 * engine (engine/vocabulary.ts, modules/runs) reads its event names and facts from here.
 *
 * It sits under matching and engine (on platform only): the matcher raises cve.* events and may
 * not import the engine, and the engine consumes what every producer writes.
 */
import { z } from "zod";

/** A field namespace of the condition vocabulary (engine/vocabulary.ts FIELDS). */
type Namespace = "cve" | "alert" | "eol" | "url" | "case" | "project";

interface EventDef<
  P extends z.ZodObject = z.ZodObject,
  NS extends Namespace = Namespace,
  F extends Partial<Record<`${NS}.${string}`, keyof z.output<P> & string>> = Partial<Record<`${NS}.${string}`, keyof z.output<P> & string>>,
> {
  /** One line for the documentation. */
  description: string;
  payload: P;
  /** The row's cve_id / alert_id columns: "alert" (both), "cve" (cve_id, alert_id when the project has one) or none. */
  subject: "alert" | "cve" | null;
  /** The field namespaces a condition may test on this event (CVE, alert and case facts are read from the database). */
  namespaces: readonly NS[];
  /** Condition fields read from the payload: `<namespace>.<field>` → payload key. */
  facts: F;
}

const def = <P extends z.ZodObject, NS extends Namespace, F extends Partial<Record<`${NS}.${string}`, keyof z.output<P> & string>>>(
  d: EventDef<P, NS, F>,
) => d;

const CVE_NS = ["cve", "alert", "project"] as const;
const AlertRef = { alert_id: z.uuid(), cve_id: z.string() };
const Change = <T extends z.ZodType>(t: T) => z.object({ from: t.nullable(), to: t.nullable() }).optional();

/**
 * What changed in an alerted CVE (cve.updated): each field a security engineer acts on, from → to.
 * `correspondance`: whether the project's items still match the CVE's affected ranges (the alert is
 * kept either way); `avis_editeur`: the vendor's advisory that raised the alert was revised.
 */
const CveChanges = z.object({
  cvss_score: Change(z.number()),
  severity: Change(z.string()),
  is_kev: Change(z.boolean()),
  has_poc: Change(z.boolean()),
  mesures_provisoires: Change(z.array(z.unknown())),
  state: Change(z.string()),
  correspondance: Change(z.boolean()),
  /** A vendor's CSAF advisory revised (docs/csaf-providers.md): the version and the vendor's status for the item, before and after. */
  avis_editeur: Change(z.object({ tracking_id: z.string(), version: z.string(), statut: z.string().nullable() })),
});

const EolPayload = z.object({
  notice_id: z.uuid(),
  subscription_id: z.uuid(),
  product: z.string(),
  product_name: z.string(),
  cycle: z.string(),
  kind: z.enum(["eol", "support"]),
  date: z.string(),
  days_left: z.int(),
});
const EOL_FACTS = { "eol.product": "product", "eol.cycle": "cycle", "eol.days_left": "days_left" } as const;

const UrlAbout = { url_id: z.uuid(), url: z.string(), label: z.string().nullable() };
const URL_FACTS = { "url.url": "url", "url.label": "label" } as const;

const CaseRef = { case_id: z.uuid(), cve_id: z.string(), source: z.enum(["case", "register"]) };

/** Every event, by name. */
export const EVENT_CATALOG = {
  "cve.new_match": def({
    description: "une CVE touche un élément d'une pile du projet (nouvelle alerte)",
    payload: z.object({
      ...AlertRef,
      severity: z.string(),
      is_kev: z.boolean(),
      has_poc: z.boolean(),
      palier: z.string(),
      source: z.string(),
      match: z.record(z.string(), z.unknown()),
    }),
    subject: "alert",
    namespaces: CVE_NS,
    facts: {},
  }),
  "cve.updated": def({
    description: "la fiche d'une CVE alertée a changé sur un point qui compte (score, KEV, PoC, mesures, rejet, correspondance)",
    payload: z.object({ ...AlertRef, changes: CveChanges }),
    subject: "alert",
    namespaces: CVE_NS,
    facts: {},
  }),
  "cve.kev_added": def({
    description: "une CVE alertée entre au catalogue KEV de la CISA",
    payload: z.object(AlertRef),
    subject: "alert",
    namespaces: CVE_NS,
    facts: {},
  }),
  "cve.poc_published": def({
    description: "une preuve de concept est publiée pour une CVE alertée",
    payload: z.object(AlertRef),
    subject: "alert",
    namespaces: CVE_NS,
    facts: {},
  }),
  "cve.epss_spike": def({
    description: "le score EPSS d'une CVE alertée monte d'au moins un point",
    payload: z.object({ ...AlertRef, from: z.number(), to: z.number(), delta: z.number(), score_date: z.string().nullable() }),
    subject: "alert",
    namespaces: CVE_NS,
    facts: {},
  }),
  "cve.severity_raised": def({
    description: "la sévérité d'une CVE alertée monte",
    payload: z.object({ ...AlertRef, from: z.string(), to: z.string() }),
    subject: "alert",
    namespaces: CVE_NS,
    facts: {},
  }),
  "eol.approaching": def({
    description: "la fin de vie (ou de support) d'un cycle suivi approche",
    payload: EolPayload,
    subject: null,
    namespaces: ["eol", "project"],
    facts: EOL_FACTS,
  }),
  "eol.reached": def({
    description: "la fin de vie (ou de support) d'un cycle suivi est arrivée",
    payload: EolPayload,
    subject: null,
    namespaces: ["eol", "project"],
    facts: EOL_FACTS,
  }),
  "url.cert_expiring": def({
    description: "le certificat d'une URL surveillée expire bientôt",
    payload: z.object({
      ...UrlAbout,
      cert_issuer: z.string().nullable(),
      cert_subject: z.string().nullable(),
      cert_expires_at: z.string(),
      days_left: z.int(),
    }),
    subject: null,
    namespaces: ["url", "project"],
    facts: { ...URL_FACTS, "url.cert_issuer": "cert_issuer", "url.days_left": "days_left" },
  }),
  "url.down": def({
    description: "une URL surveillée ne répond plus",
    payload: z.object({
      ...UrlAbout,
      status: z.string(),
      http_status: z.int().nullable(),
      error: z.string().nullable(),
      consecutive_failures: z.int(),
    }),
    subject: null,
    namespaces: ["url", "project"],
    facts: { ...URL_FACTS, "url.status": "status", "url.http_status": "http_status", "url.consecutive_failures": "consecutive_failures" },
  }),
  "url.recovered": def({
    description: "une URL surveillée répond de nouveau",
    payload: z.object({ ...UrlAbout, status: z.string(), http_status: z.int().nullable() }),
    subject: null,
    namespaces: ["url", "project"],
    facts: { ...URL_FACTS, "url.status": "status", "url.http_status": "http_status" },
  }),
  "case.exception_expired": def({
    description: "l'exception d'un dossier (ou l'entrée du registre qui le couvre) a expiré : le dossier est rouvert",
    payload: z.object({
      ...CaseRef,
      exception: z.record(z.string(), z.unknown()).optional(),
      risk: z.record(z.string(), z.unknown()).optional(),
    }),
    subject: "cve",
    namespaces: ["case", "cve", "project"],
    facts: {},
  }),
  "case.exception_expiring": def({
    description: "l'exception d'un dossier (ou l'entrée du registre qui le couvre) expire bientôt",
    payload: z.object({ ...CaseRef, expires_on: z.string(), days_left: z.int() }),
    subject: "cve",
    namespaces: ["case", "cve", "project"],
    facts: {},
  }),
} as const;

export type EventName = keyof typeof EVENT_CATALOG;
export type EventPayload<N extends EventName> = z.output<(typeof EVENT_CATALOG)[N]["payload"]>;

/** The event names, in the catalog's order. */
export const EVENT_NAMES = Object.keys(EVENT_CATALOG) as [EventName, ...EventName[]];

/** Every condition field some event reads from its payload (engine/vocabulary.ts checks each is a FIELDS entry). */
export type PayloadFactField = {
  [N in EventName]: keyof (typeof EVENT_CATALOG)[N]["facts"];
}[EventName];

/** The condition facts an event's payload carries (its catalog `facts`), absent values left out. */
export function payloadFacts(event: EventName, payload: Record<string, unknown> | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!payload) return out;
  for (const [field, key] of Object.entries(EVENT_CATALOG[event].facts as Record<string, string>)) {
    const v = payload[key];
    if (v !== null && v !== undefined) out[field] = v;
  }
  return out;
}
