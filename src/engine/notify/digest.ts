import type { NotificationMessage } from "../actions.js";
import { escapeHtml, factLine, type Lang, render, type Rendered } from "./render.js";

/**
 * A digest's content (issue 37), whatever carries it: the events its workflow matched in the
 * period, grouped by priority (palier P1 … P4, then none) then by product, counted, the first
 * TOP_ITEMS in full, and a link to the inbox filtered to exactly those alerts. In the project's
 * notification language.
 */

/** How many events a digest shows in full (the others are counted in their group). */
export const TOP_ITEMS = 10;

export interface DigestItem {
  event_id: number;
  added_at: string;
  /** The message the event's run built (null only when it could not be rebuilt: counted, not shown). */
  message: NotificationMessage | null;
  /** The item came from a run throttled past the workflow's hourly limit. */
  throttled: boolean;
}

export interface DigestInput {
  /** The digest's id: the receiver's idempotency key. */
  id: string;
  lang: Lang;
  workflow: { id: string; name: string };
  every: "hourly" | "daily" | "weekly";
  /** Start (the previous digest's close, or null for the first) and end of the period. */
  from: string | null;
  to: string;
  items: DigestItem[];
  /** The inbox filtered to the digest's alerts; null when it holds no alert. */
  link: string | null;
}

export interface DigestGroup {
  palier: string | null;
  label: string;
  count: number;
  products: { name: string; count: number }[];
}

export interface RenderedDigest {
  id: string;
  lang: Lang;
  title: string;
  /** "42 événements du … au … (heure de Paris)". */
  summary: string;
  groups: DigestGroup[];
  /** The first TOP_ITEMS events, rendered as an immediate notification would be. */
  top: Rendered[];
  /** Events counted but not shown in full. */
  more: number;
  /** How many came from throttled runs (a sentence says so), 0 otherwise. */
  throttled: number;
  throttledNote: string | null;
  link: string | null;
  absoluteLink: string | null;
  linkLabel: string;
  footer: string;
  empty: boolean;
}

const PALIER_ORDER = ["P1", "P2", "P3", "P4"];
const WORDS = {
  fr: {
    title: (n: number) => `Résumé Vigie : ${n} événement${n > 1 ? "s" : ""}`,
    empty: "Résumé Vigie : rien à signaler",
    every: { hourly: "horaire", daily: "quotidien", weekly: "hebdomadaire" },
    period: (from: string | null, to: string) => (from ? `du ${from} au ${to} (heure de Paris)` : `jusqu'au ${to} (heure de Paris)`),
    events: (n: number) => `${n} événement${n > 1 ? "s" : ""}`,
    nothing: "Aucun événement n'a été retenu par ce workflow pendant la période.",
    noPalier: "Sans palier",
    otherProduct: "Autres",
    more: (n: number) => `… et ${n} autre${n > 1 ? "s" : ""} (voir la boîte de réception)`,
    throttled: (n: number) =>
      `${n} de ces événements dépassai${n > 1 ? "ent" : "t"} la limite horaire de runs du workflow : reporté${n > 1 ? "s" : ""} dans ce résumé plutôt que perdu${n > 1 ? "s" : ""}.`,
    linkLabel: "Voir ces alertes dans Vigie",
    top: "Les plus prioritaires",
    groups: "Par palier et par produit",
  },
  en: {
    title: (n: number) => `Vigie digest: ${n} event${n > 1 ? "s" : ""}`,
    empty: "Vigie digest: nothing to report",
    every: { hourly: "hourly", daily: "daily", weekly: "weekly" },
    period: (from: string | null, to: string) => (from ? `from ${from} to ${to} (Paris time)` : `until ${to} (Paris time)`),
    events: (n: number) => `${n} event${n > 1 ? "s" : ""}`,
    nothing: "This workflow matched no event during the period.",
    noPalier: "No tier",
    otherProduct: "Other",
    more: (n: number) => `… and ${n} more (see the inbox)`,
    throttled: (n: number) =>
      `${n} of these event${n > 1 ? "s" : ""} went past the workflow's hourly run limit: carried into this digest rather than lost.`,
    linkLabel: "Open these alerts in Vigie",
    top: "Highest priority",
    groups: "By tier and product",
  },
} as const;

const STAMP: Record<Lang, Intl.DateTimeFormat> = {
  fr: new Intl.DateTimeFormat("fr-FR", { timeZone: "Europe/Paris", dateStyle: "short", timeStyle: "short" }),
  en: new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Paris", dateStyle: "short", timeStyle: "short" }),
};

function productOf(m: NotificationMessage | null, other: string): string {
  if (!m) return other;
  const p = [m.cve.vendor, m.cve.product].filter(Boolean).join(" ");
  return p || other;
}

function rank(m: NotificationMessage | null): number {
  const i = PALIER_ORDER.indexOf(m?.palier ?? "");
  return i < 0 ? PALIER_ORDER.length : i;
}

/** Most urgent first: palier, then KEV, then CVSS (highest first), then the event's order. */
function urgency(a: DigestItem, b: DigestItem): number {
  return (
    rank(a.message) - rank(b.message) ||
    Number(b.message?.cve.is_kev ?? false) - Number(a.message?.cve.is_kev ?? false) ||
    (b.message?.cve.cvss_score ?? -1) - (a.message?.cve.cvss_score ?? -1) ||
    a.event_id - b.event_id
  );
}

/** Renders a digest's content once, for every carrier. */
export function renderDigest(input: DigestInput): RenderedDigest {
  const lang: Lang = input.lang === "en" ? "en" : "fr";
  const w = WORDS[lang];
  const items = [...input.items].sort(urgency);
  const groups = new Map<string | null, Map<string, number>>();
  for (const it of items) {
    const p = it.message?.palier ?? null;
    const key = p && PALIER_ORDER.includes(p) ? p : null;
    const products = groups.get(key) ?? new Map<string, number>();
    const name = productOf(it.message, w.otherProduct);
    products.set(name, (products.get(name) ?? 0) + 1);
    groups.set(key, products);
  }
  const ordered = [...groups.entries()].sort(([a], [b]) => rank({ palier: a } as never) - rank({ palier: b } as never));
  const fmt = (iso: string) => STAMP[lang].format(new Date(iso));
  const throttled = items.filter((i) => i.throttled).length;
  const shown = items.filter((i) => i.message).slice(0, TOP_ITEMS);
  const absoluteLink = input.link && /^https?:\/\//i.test(input.link) ? input.link : null;
  return {
    id: input.id,
    lang,
    title: items.length ? w.title(items.length) : w.empty,
    summary: `${w.events(items.length)} ${w.period(input.from && fmt(input.from), fmt(input.to))}`,
    groups: ordered.map(([palier, products]) => ({
      palier,
      label: palier ?? w.noPalier,
      count: [...products.values()].reduce((a, b) => a + b, 0),
      products: [...products.entries()]
        .map(([name, count]) => ({ name, count }))
        .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name)),
    })),
    top: shown.map((i) => render(i.message!, input.workflow.name)),
    more: items.length - shown.length,
    throttled,
    throttledNote: throttled ? w.throttled(throttled) : null,
    link: input.link,
    absoluteLink,
    linkLabel: w.linkLabel,
    footer: `Vigie · workflow « ${input.workflow.name} » · ${lang === "fr" ? "résumé" : "digest"} ${w.every[input.every]} · ${input.id}`,
    empty: items.length === 0,
  };
}

function groupLine(g: DigestGroup, lang: Lang): string {
  const products = g.products.map((p) => `${p.name} (${p.count})`).join(", ");
  return `${g.label}${lang === "fr" ? " :" : ":"} ${g.count} — ${products}`;
}

/** The plain-text body (the e-mail's text part). */
export function digestText(d: RenderedDigest): string {
  const w = WORDS[d.lang];
  const lines: string[] = [d.title, d.summary, ""];
  if (d.empty) lines.push(w.nothing, "");
  else {
    lines.push(`${w.groups}${d.lang === "fr" ? " :" : ":"}`, ...d.groups.map((g) => `- ${groupLine(g, d.lang)}`), "");
    if (d.throttledNote) lines.push(d.throttledNote, "");
    lines.push(`${w.top}${d.lang === "fr" ? " :" : ":"}`, "");
    for (const r of d.top) {
      lines.push(`* ${r.title}`, `  ${r.headline}`, ...r.facts.map((f) => `  ${factLine(f, d.lang)}`), `  ${r.link}`, "");
    }
    if (d.more) lines.push(w.more(d.more), "");
  }
  if (d.link) lines.push(`${d.linkLabel}${d.lang === "fr" ? " :" : ":"} ${d.link}`, "");
  lines.push("-- ", d.footer);
  return `${lines.join("\n")}\n`;
}

/** The HTML body: every text escaped; links anchors only when absolute http(s). */
export function digestHtml(d: RenderedDigest): string {
  const e = escapeHtml;
  const w = WORDS[d.lang];
  const anchor = (href: string, label: string) =>
    /^https?:\/\//i.test(href) ? `<a href="${e(href)}">${e(label)}</a>` : e(`${label} ${href}`);
  const parts = [
    `<!DOCTYPE html><html lang="${d.lang}"><head><meta charset="utf-8"><title>${e(d.title)}</title></head>`,
    `<body style="font-family:Arial,Helvetica,sans-serif;color:#222">`,
    `<h1 style="font-size:18px">${e(d.title)}</h1>`,
    `<p>${e(d.summary)}</p>`,
  ];
  if (d.empty) parts.push(`<p>${e(w.nothing)}</p>`);
  else {
    parts.push(
      `<h2 style="font-size:15px">${e(w.groups)}</h2>`,
      `<table style="border-collapse:collapse">${d.groups
        .map(
          (g) =>
            `<tr><th style="text-align:left;padding:4px 12px 4px 0">${e(g.label)}</th><td style="padding:4px 12px 4px 0"><strong>${g.count}</strong></td><td style="padding:4px 0">${e(g.products.map((p) => `${p.name} (${p.count})`).join(", "))}</td></tr>`,
        )
        .join("")}</table>`,
    );
    if (d.throttledNote) parts.push(`<p><em>${e(d.throttledNote)}</em></p>`);
    parts.push(`<h2 style="font-size:15px">${e(w.top)}</h2>`, "<ul>");
    for (const r of d.top)
      parts.push(
        `<li><strong>${e(r.title)}</strong><br>${e(r.headline)}<br><span style="color:#555">${e(r.facts.map((f) => factLine(f, d.lang)).join(" · "))}</span><br>${anchor(r.link, r.linkLabel)}</li>`,
      );
    parts.push("</ul>");
    if (d.more) parts.push(`<p>${e(w.more(d.more))}</p>`);
  }
  if (d.link) parts.push(`<p>${anchor(d.link, d.linkLabel)}</p>`);
  parts.push(`<p style="color:#888;font-size:12px">${e(d.footer)}</p>`, "</body></html>");
  return parts.join("\n");
}

function mrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Slack Block Kit: header, summary, one section per palier, the top items, the inbox button, the context line. */
export function digestSlack(d: RenderedDigest): Record<string, unknown> {
  const w = WORDS[d.lang];
  const blocks: Record<string, unknown>[] = [
    { type: "header", text: { type: "plain_text", text: cut(d.title, 150), emoji: false } },
    { type: "section", text: { type: "mrkdwn", text: cut(mrkdwn(d.summary), 3000) } },
  ];
  if (d.empty) blocks.push({ type: "section", text: { type: "mrkdwn", text: mrkdwn(w.nothing) } });
  else {
    blocks.push({
      type: "section",
      text: {
        type: "mrkdwn",
        text: cut(
          d.groups
            .map((g) => `*${mrkdwn(g.label)}* : ${g.count}\n${mrkdwn(g.products.map((p) => `${p.name} (${p.count})`).join(", "))}`)
            .join("\n"),
          3000,
        ),
      },
    });
    if (d.throttledNote) blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: cut(mrkdwn(d.throttledNote), 3000) }] });
    blocks.push({ type: "divider" });
    for (const r of d.top)
      blocks.push({
        type: "section",
        text: {
          type: "mrkdwn",
          text: cut(
            `*${mrkdwn(r.title)}*\n${mrkdwn(r.facts.map((f) => factLine(f, d.lang)).join(" · "))}${r.absoluteLink ? `\n<${r.absoluteLink}|${mrkdwn(r.linkLabel)}>` : ""}`,
            3000,
          ),
        },
      });
    if (d.more) blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: mrkdwn(w.more(d.more)) }] });
  }
  if (d.absoluteLink)
    blocks.push({
      type: "actions",
      elements: [{ type: "button", text: { type: "plain_text", text: d.linkLabel }, url: d.absoluteLink, action_id: "vigie_digest_open" }],
    });
  const context = !d.absoluteLink && d.link ? `${d.footer} · ${d.link}` : d.footer;
  blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: cut(mrkdwn(context), 3000) }] });
  // Slack refuses more than 50 blocks: 10 top items keep a digest well under.
  return { text: cut(`${d.title} — ${d.summary}`, 3000), blocks };
}

/** Teams: one Adaptive Card 1.4 — title, summary, a FactSet of the groups, the top items, the inbox action. */
export function digestTeams(d: RenderedDigest): Record<string, unknown> {
  const w = WORDS[d.lang];
  const body: Record<string, unknown>[] = [
    { type: "TextBlock", text: d.title, size: "Large", weight: "Bolder", wrap: true },
    { type: "TextBlock", text: d.summary, wrap: true, spacing: "Small" },
  ];
  if (d.empty) body.push({ type: "TextBlock", text: w.nothing, wrap: true });
  else {
    body.push({
      type: "FactSet",
      facts: d.groups.map((g) => ({ title: `${g.label} (${g.count})`, value: g.products.map((p) => `${p.name} (${p.count})`).join(", ") })),
    });
    if (d.throttledNote) body.push({ type: "TextBlock", text: d.throttledNote, wrap: true, isSubtle: true });
    body.push({ type: "TextBlock", text: w.top, weight: "Bolder", wrap: true, separator: true });
    for (const r of d.top)
      body.push(
        {
          type: "TextBlock",
          text: r.absoluteLink ? `[${r.title}](${r.absoluteLink})` : r.title,
          wrap: true,
          weight: "Bolder",
          spacing: "Medium",
        },
        { type: "TextBlock", text: r.facts.map((f) => factLine(f, d.lang)).join(" · "), wrap: true, isSubtle: true, spacing: "None" },
      );
    if (d.more) body.push({ type: "TextBlock", text: w.more(d.more), wrap: true, isSubtle: true });
  }
  body.push({
    type: "TextBlock",
    text: !d.absoluteLink && d.link ? `${d.footer} · ${d.link}` : d.footer,
    wrap: true,
    size: "Small",
    isSubtle: true,
  });
  const card: Record<string, unknown> = {
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    type: "AdaptiveCard",
    version: "1.4",
    lang: d.lang,
    body,
  };
  if (d.absoluteLink) card.actions = [{ type: "Action.OpenUrl", title: d.linkLabel, url: d.absoluteLink }];
  return { type: "message", attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", contentUrl: null, content: card }] };
}

/** The webhook's JSON document: the digest, its groups and every event (each as an immediate webhook's `message`). */
export function digestWebhookPayload(input: DigestInput, d: RenderedDigest): Record<string, unknown> {
  return {
    digest_id: input.id,
    delivery_id: input.id,
    event: "digest",
    workflow: input.workflow,
    every: input.every,
    period: { from: input.from, to: input.to },
    count: input.items.length,
    throttled: d.throttled,
    groups: d.groups.map((g) => ({ palier: g.palier, count: g.count, products: g.products })),
    link: input.link,
    lang: d.lang,
    events: [...input.items].sort(urgency).map((i) => {
      const { event: name, ...message } = i.message ?? ({ event: null } as unknown as NotificationMessage);
      return { event_id: i.event_id, event: name, added_at: i.added_at, throttled: i.throttled, message: i.message ? message : null };
    }),
  };
}
