import type { ActionHandler } from "../actions.js";
import { incomingWebhook } from "./incoming.js";
import type { Rendered } from "./render.js";
import type { HttpNotifyDeps } from "./webhook.js";

/** Slack's mrkdwn needs &, < and > escaped, nothing else. */
function mrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The Block Kit message: a header (the title), a section with the headline and the facts as
 * fields (Slack shows 10 at most), the description, a button to Vigie when the link is absolute,
 * and a context line (project, workflow). `text` is the fallback notifications show.
 */
export function slackPayload(r: Rendered): Record<string, unknown> {
  const blocks: Record<string, unknown>[] = [
    { type: "header", text: { type: "plain_text", text: cut(r.title, 150), emoji: false } },
    {
      type: "section",
      text: { type: "mrkdwn", text: cut(`*${mrkdwn(r.headline)}*`, 3000) },
      fields: r.facts.slice(0, 10).map((f) => ({ type: "mrkdwn", text: cut(`*${mrkdwn(f.label)}*\n${mrkdwn(f.value)}`, 2000) })),
    },
  ];
  if (r.description) blocks.push({ type: "section", text: { type: "mrkdwn", text: cut(mrkdwn(r.description), 3000) } });
  if (r.absoluteLink)
    blocks.push({
      type: "actions",
      elements: [{ type: "button", text: { type: "plain_text", text: r.linkLabel }, url: r.absoluteLink, action_id: "vigie_open" }],
    });
  const context = r.absoluteLink ? r.footer : `${r.footer} · ${r.link}`;
  blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: cut(mrkdwn(context), 3000) }] });
  return { text: cut(`${r.title} — ${r.headline}`, 3000), blocks };
}

/** notify_slack: the message to a Slack incoming webhook (`webhook_url`, a secret). */
export function notifySlack(deps: HttpNotifyDeps): ActionHandler {
  return incomingWebhook("notify_slack", deps, slackPayload, (status, attempts) => `message Slack envoyé (HTTP ${status}, ${attempts})`);
}
