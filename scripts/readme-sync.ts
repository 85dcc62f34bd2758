/**
 * `npm run readme`: rewrites the generated blocks of README.md and of every page of docs/ — the text
 * between `<!-- generated: NAME -->` and `<!-- /generated -->` — from the sources they document, so a list
 * cannot fall behind the code: the workflow vocabulary (src/engine/vocabulary.ts and the parameter
 * schemas of src/engine/graph.ts), the job catalog (src/jobs.ts) and the error catalogue
 * (src/platform/messages.ts). test/readme.test.ts fails while a block is out of date.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { ACTION_PARAMS, TRIGGER_PARAMS } from "../src/engine/graph.js";
import { ACTIONS, EVENT_NAMESPACES, EVENTS, FIELDS } from "../src/engine/vocabulary.js";
import { JOBS } from "../src/jobs.js";
import { CONFLICT, NOT_FOUND } from "../src/platform/messages.js";

/** The repository's root. */
export const ROOT = fileURLToPath(new URL("..", import.meta.url));

const MARKED = /<!-- generated: ([\w-]+) -->\n([\s\S]*?)<!-- \/generated -->/g;
const code = (s: string) => `\`${s}\``;
const WIDTH = 100;

/** A list item wrapped at WIDTH columns, breaking only at spaces outside code spans. */
function item(text: string, indent = ""): string {
  const words: string[] = [];
  let open = false;
  for (const piece of text.split(" ")) {
    if (open) words[words.length - 1] += ` ${piece}`;
    else words.push(piece);
    if ((piece.split("`").length - 1) % 2 === 1) open = !open;
  }
  const lines = [`${indent}-`];
  for (const w of words) {
    const last = lines.length - 1;
    if (lines[last]!.length + 1 + w.length > WIDTH && lines[last]!.trim() !== "-") lines.push(`${indent}  ${w}`);
    else lines[last] += ` ${w}`;
  }
  return lines.join("\n");
}

interface JsonSchema {
  type?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

/** `name 1–366, default 30`: a parameter's bounds and default, as its Zod schema declares them. */
function paramText(name: string, s: JsonSchema, required: boolean): string {
  const bits: string[] = [];
  if (s.minimum !== undefined && s.maximum !== undefined) bits.push(`${s.minimum}–${s.maximum}`);
  if (s.minItems !== undefined && s.maxItems !== undefined) bits.push(`${s.minItems}–${s.maxItems} items`);
  const facts = bits.join(" ");
  const tail =
    s.default !== undefined ? `default ${typeof s.default === "string" ? code(s.default) : String(s.default)}` : required ? "" : "optional";
  return [code(name) + (facts ? ` ${facts}` : ""), tail].filter(Boolean).join(", ");
}

/** The parameters of a trigger or an action, `;`-separated ("" when it takes none). */
function paramsText(schema: z.ZodObject | undefined, prefix = ""): string {
  if (!schema) return "";
  const json = z.toJSONSchema(schema, { io: "input" }) as JsonSchema;
  const entries = Object.entries(json.properties ?? {});
  return entries.map(([name, s]) => paramText(prefix + name, s, json.required?.includes(name) ?? false)).join("; ");
}

const withParams = (name: string, params: string) => (params ? `${code(name)} (${params})` : code(name));

/** `cve.*`, `case.exception_expired`, or "every event": the events that provide a field namespace. */
function eventsText(events: readonly string[]): string {
  if (events.length === EVENTS.length) return "every event";
  const prefixes = [...new Set(EVENTS.map((e) => e.split(".")[0]!))];
  return prefixes
    .flatMap((p) => {
      const all = EVENTS.filter((e) => e.startsWith(`${p}.`));
      const mine = all.filter((e) => events.includes(e));
      return mine.length === all.length ? [code(`${p}.*`)] : mine.map(code);
    })
    .join(", ");
}

function vocabularyBlock(): string {
  const events = EVENTS.map((e) => withParams(e, paramsText(TRIGGER_PARAMS[e], "params.")));
  const namespaces = [...new Set(Object.keys(FIELDS).map((f) => f.split(".")[0]!))];
  const fields = namespaces.map((ns) => {
    const providers = EVENTS.filter((e) => EVENT_NAMESPACES[e].includes(ns));
    const names = Object.keys(FIELDS).filter((f) => f.startsWith(`${ns}.`));
    return item(`${code(ns)} (${eventsText(providers)}): ${names.map(code).join(", ")}`, "  ");
  });
  const actions = ACTIONS.map((a) => withParams(a, paramsText(ACTION_PARAMS[a])));
  return [
    item(`Events: ${events.join(", ")}.`),
    item("Condition fields, by namespace (the events that provide it):"),
    ...fields,
    item(`Actions (and their \`params\`): ${actions.join(", ")}; each with \`on_error: "continue" | "stop"\`.`),
  ].join("\n");
}

/** A cron expression in words where it reads better ("every minute", "hourly at :17"). */
function scheduleText(cron: unknown): string {
  if (typeof cron === "function") return "from the configuration";
  if (typeof cron !== "string") return "on demand";
  if (cron === "* * * * *") return "every minute";
  const hourly = /^(\d{1,2}) \* \* \* \*$/.exec(cron);
  return hourly ? `hourly at :${hourly[1]!.padStart(2, "0")}` : code(cron);
}

function jobsBlock(): string {
  const rows = Object.entries(JOBS).map(([name, def]) => {
    const d = def as { description: string; cron?: unknown; clock?: boolean };
    return `| ${code(name)} | ${scheduleText(d.cron)} | ${d.clock ? "yes" : ""} | ${d.description} |`;
  });
  return ["| job | schedule (UTC) | `--now` | what it does (as `jobs list` says it) |", "|---|---|---|---|", ...rows].join("\n");
}

/** A message of the catalogue: a function's arguments shown as `…`. */
function messageText(m: string | ((...args: never[]) => string)): string {
  return typeof m === "string" ? m : (m as (...a: string[]) => string)(...Array<string>(m.length).fill("…"));
}

function errorsBlock(): string {
  const notFound = Object.values(NOT_FOUND).map((m) => code(messageText(m)));
  const codes = Object.values(CONFLICT).flatMap((c) => (typeof c === "object" ? [code(c.code)] : []));
  return [
    item(
      `**404** \`{"detail": "…"}\` when what the path names does not exist for the caller (another organization's ` +
        `resources included): ${notFound.join(" / ")}; \`Not Found\` for a path no route serves.`,
    ),
    item(`**409** \`{"detail": {"code", "message", …}}\` with a stable code: ${codes.join(", ")}.`),
  ].join("\n");
}

/** Every generated block of the documentation, by name. */
export function generatedBlocks(): Record<string, string> {
  return { "workflow-vocabulary": vocabularyBlock(), jobs: jobsBlock(), errors: errorsBlock() };
}

/** A text with its generated blocks rewritten, the names of those that changed, and of those it holds. */
export function syncText(text: string, blocks = generatedBlocks()): { text: string; changed: string[]; seen: string[] } {
  const changed: string[] = [];
  const seen: string[] = [];
  const out = text.replace(MARKED, (_all, name: string, body: string) => {
    const fresh = blocks[name];
    if (fresh === undefined) throw new Error(`unknown generated block « ${name} » (known: ${Object.keys(blocks).join(", ")})`);
    seen.push(name);
    if (body !== `${fresh}\n`) changed.push(name);
    return `<!-- generated: ${name} -->\n${fresh}\n<!-- /generated -->`;
  });
  return { text: out, changed, seen };
}

/** README.md and every page of docs/ (not docs/adr/), as paths relative to the repository. */
export function documentationFiles(): string[] {
  const pages = readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`);
  return ["README.md", ...pages];
}

/**
 * Every documentation file with its generated blocks rewritten: `changed` names `file: block` for
 * each block out of date. Each block must appear exactly once in the documentation as a whole.
 */
export function syncDocs(files: Record<string, string>, blocks = generatedBlocks()): { texts: Record<string, string>; changed: string[] } {
  const texts: Record<string, string> = {};
  const changed: string[] = [];
  const where = new Map<string, string[]>();
  for (const [file, text] of Object.entries(files)) {
    const r = syncText(text, blocks);
    texts[file] = r.text;
    changed.push(...r.changed.map((b) => `${file}: ${b}`));
    for (const b of r.seen) where.set(b, [...(where.get(b) ?? []), file]);
  }
  const missing = Object.keys(blocks).filter((n) => !where.has(n));
  if (missing.length) throw new Error(`documentation: no <!-- generated: … --> block for ${missing.join(", ")}`);
  const twice = [...where].filter(([, f]) => f.length > 1).map(([b, f]) => `${b} (${f.join(", ")})`);
  if (twice.length) throw new Error(`documentation: a generated block appears more than once: ${twice.join("; ")}`);
  return { texts, changed };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = Object.fromEntries(documentationFiles().map((f) => [f, readFileSync(join(ROOT, f), "utf8")]));
  const { texts, changed } = syncDocs(files);
  for (const [f, text] of Object.entries(texts)) if (text !== files[f]) writeFileSync(join(ROOT, f), text);
  console.log(changed.length ? `rewrote ${changed.join(", ")}` : "documentation: generated blocks up to date");
}
