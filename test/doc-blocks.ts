/**
 * The documentation's sh blocks: README.md and the pages of docs/, read in the order docs/README.md
 * lists them; a block is reference (not run) when the line just above its fence is the marker
 * `<!-- readme-test: skip — <reason> -->`. test/readme.test.ts checks the pages; the walk-through
 * (runWalkthrough) runs in test/snapshot.test.ts, on a copy of the store its server imported the
 * bundled snapshot into: a fresh server with the snapshot, as the README's `npm start` leaves it,
 * without a second import of the snapshot in the suite.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { documentationFiles, ROOT } from "../scripts/readme-sync.js";

export const FILES = documentationFiles();
export const TEXT: Record<string, string[]> = Object.fromEntries(FILES.map((f) => [f, readFileSync(join(ROOT, f), "utf8").split("\n")]));
const SKIP = /^<!-- readme-test: skip\b.*-->$/;

/** The pages in the order docs/README.md links them (its first link to each), README.md first. */
export function runOrder(): string[] {
  const index = TEXT["docs/README.md"]!.join("\n");
  const listed = [...index.matchAll(/\]\(([\w-]+\.md)(?:#[\w-]*)?\)/g)].map((m) => `docs/${m[1]}`);
  return ["README.md", ...new Set(listed.filter((f) => f !== "docs/README.md" && FILES.includes(f))), "docs/README.md"];
}

export interface Block {
  file: string;
  start: number;
  lines: string[];
  skipped: boolean;
}

/** The ```sh blocks of a file: first line number (1-based, of the first command line), lines, marker. */
export function shBlocks(file: string): Block[] {
  const doc = TEXT[file]!;
  const blocks: Block[] = [];
  for (let i = 0; i < doc.length; i++) {
    if (doc[i]!.trim() !== "```sh") continue;
    const end = doc.findIndex((l, k) => k > i && l.trim() === "```");
    blocks.push({ file, start: i + 2, lines: doc.slice(i + 1, end), skipped: SKIP.test(doc[i - 1]?.trim() ?? "") });
    i = end;
  }
  return blocks;
}

/** Whether a single-quoted string is still open at the end of a line that began with `open` (comments ignored). */
function quoteOpenAfter(text: string, open: boolean): boolean {
  let double = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (open) {
      if (c === "'") open = false;
    } else if (c === '"') double = !double;
    else if (!double && c === "'") open = true;
    else if (!double && c === "#" && (i === 0 || /\s/.test(text[i - 1]!))) break;
  }
  return open;
}

/** Last line of the command that line `line` of `doc` belongs to (quotes closed, no `\\` continuation). */
function commandEnd(doc: string[], line: number): number {
  let l = line;
  while (l > 1 && doc[l - 2]!.trim().replace(/^[-*] +/, "") !== "```sh") l--; // the block's first line
  for (let open = false; l < doc.length; l++) {
    open = quoteOpenAfter(doc[l - 1]!, open);
    if (!open && !doc[l - 1]!.trimEnd().endsWith("\\") && l >= line) return l;
  }
  return line;
}

/**
 * The status the page states for the command at `line` (bash reports a multi-line command at its
 * first or last line): the comment of its last line (`# 201, …`), or a comment line right below it
 * starting with a status.
 */
function statedStatus(doc: string[], line: number): number | null {
  const last = commandEnd(doc, line);
  const own = /\s#\s*(.*)$/.exec(doc[last - 1]!)?.[1];
  if (own !== undefined) return /^(\d{3})\b/.exec(own) ? Number(own.slice(0, 3)) : null;
  for (let l = last; l < doc.length && /^\s*#/.test(doc[l]!); l++) {
    const m = /^\s*#\s*(\d{3})\b/.exec(doc[l]!);
    if (m) return Number(m[1]);
  }
  return null;
}

const CURL_LITE = fileURLToPath(new URL("./curl-lite.mjs", import.meta.url));

/**
 * Runs every ```sh block of the pages not marked as reference, in the pages' order, in one bash
 * session against the server at `base` (the pages' `http://127.0.0.1:8080`), with `env` (the
 * server's store: the pages' `npm run -s vigie -- …` commands act on it). Each command must exit 0;
 * each curl answer must have the status its comment states, else 2xx.
 */
export async function runWalkthrough(base: string, env: Record<string, string>): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "vigie-readme-"));
  try {
    const calls = join(work, "calls");
    // bash line → page and line, for the curl wrapper's BASH_LINENO.
    const map: { file: string; line: number }[] = [];
    const script: string[] = [
      "set -e -o pipefail",
      // Without curl on the machine, the pages' curl commands run on Node (test/curl-lite.mjs).
      `if command -v curl > /dev/null; then curl_bin() { command curl "$@"; }; else curl_bin() { node ${JSON.stringify(CURL_LITE)} "$@"; }; fi`,
      // `npm run -s vigie -- …` is package.json's `node --max-old-space-size=1024 dist/cli.js …`: run it
      // so directly, without npm's own start-up (half a second, for each of the pages' many calls).
      `npm() { if [ "$1" = run ] && [ "$2" = -s ] && [ "$3" = vigie ]; then shift 3; [ "\${1-}" = -- ] && shift; node --max-old-space-size=1024 dist/cli.js "$@"; else command npm "$@"; fi; }`,
      `curl() { local h; h=$(mktemp); curl_bin -D "$h" "$@"; local rc=$?; echo "\${BASH_LINENO[0]} $(head -n 1 "$h" | cut -d' ' -f2)" >> ${JSON.stringify(calls)}; rm -f "$h"; return $rc; }`,
    ];
    for (const b of runOrder()
      .flatMap(shBlocks)
      .filter((x) => !x.skipped)) {
      b.lines.forEach((text, k) => {
        map[script.length + 1] = { file: b.file, line: b.start + k };
        script.push(text.replaceAll("http://127.0.0.1:8080", base));
      });
    }
    writeFileSync(join(work, "readme.sh"), script.join("\n") + "\n");
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        "bash",
        [join(work, "readme.sh")],
        { env: { ...process.env, ...env, LOG_LEVEL: "silent" }, maxBuffer: 64 << 20 },
        (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
    const trail = `stdout (end): ${run.stdout.slice(-3000)}\nstderr: ${run.stderr.slice(-3000)}`;
    expect(run.code, trail).toBe(0);

    const seen = readFileSync(calls, "utf8")
      .trim()
      .split("\n")
      .map((l) => l.split(" ").map(Number) as [number, number]);
    expect(seen.length).toBeGreaterThan(15);
    for (const [bashLine, status] of seen) {
      const { file, line } = map[bashLine]!;
      const stated = statedStatus(TEXT[file]!, line);
      const where = `${file} line ${line}: ${TEXT[file]![line - 1]}`;
      if (stated) expect(status, where).toBe(stated);
      else expect(status >= 200 && status < 300, `${where} → ${status}\n${trail}`).toBe(true);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
