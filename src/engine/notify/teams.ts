import type { ActionHandler } from "../actions.js";
import { incomingWebhook } from "./incoming.js";
import type { Rendered } from "./render.js";
import type { HttpNotifyDeps } from "./webhook.js";

/**
 * The Teams message: one Adaptive Card (version 1.4, what Teams renders) as the attachment of a
 * "message", with the title, the headline, the facts as a FactSet, the description, and an
 * Action.OpenUrl to Vigie when the link is absolute. Accepted by the Workflows (Power Automate)
 * "post to a channel when a webhook request is received" trigger and by the older connectors.
 */
export function teamsPayload(r: Rendered): Record<string, unknown> {
  const body: Record<string, unknown>[] = [
    { type: "TextBlock", text: r.title, size: "Large", weight: "Bolder", wrap: true },
    { type: "TextBlock", text: r.headline, wrap: true, spacing: "Small" },
    { type: "FactSet", facts: r.facts.map((f) => ({ title: f.label, value: f.value })) },
  ];
  if (r.description) body.push({ type: "TextBlock", text: r.description, wrap: true, isSubtle: true });
  body.push({ type: "TextBlock", text: r.absoluteLink ? r.footer : `${r.footer} · ${r.link}`, wrap: true, size: "Small", isSubtle: true });
  const card: Record<string, unknown> = {
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    type: "AdaptiveCard",
    version: "1.4",
    lang: r.lang,
    body,
  };
  if (r.absoluteLink) card.actions = [{ type: "Action.OpenUrl", title: r.linkLabel, url: r.absoluteLink }];
  return {
    type: "message",
    attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", contentUrl: null, content: card }],
  };
}

/** notify_teams: the card to a Teams incoming webhook (`webhook_url`, a secret). */
export function notifyTeams(deps: HttpNotifyDeps): ActionHandler {
  return incomingWebhook("notify_teams", deps, teamsPayload, (status, attempts) => `carte Teams envoyée (HTTP ${status}, ${attempts})`);
}
