/**
 * The documentation's examples work as written. Every ```sh block of README.md, then of each page of
 * docs/ in the order docs/README.md lists them, runs in one bash session (so the pages' own variables,
 * ORG, KEY, W, WF…, carry from block to block and page to page) against one built server started on a
 * fresh store with the bundled snapshot — unless the line just above its fence is the marker
 * `<!-- readme-test: skip — <reason> -->` (reference blocks with placeholders such as ORG_ID, or the
 * start-up commands this test does itself).
 * The only rewrite is the address: `http://127.0.0.1:8080` becomes the test server's.
 * Each command must exit 0 (`set -e -o pipefail`); each curl answer must have the status its
 * comment states (`# 201, …`, or a comment line right below it starting with the status), else 2xx.
 *
 * Without a server, fast: the generated blocks are those `npm run readme` writes from the sources;
 * the actions, jobs, operators and benchmarks are each named in the prose as well; every page is
 * listed in the index; no paragraph repeats itself (what a bad merge leaves).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { documentationFiles, generatedBlocks, ROOT, syncDocs } from "../scripts/readme-sync.js";
import { ACTIONS, EVENTS, OPERATORS } from "../src/engine/vocabulary.js";
import { JOBS } from "../src/jobs.js";
import { freshStore, type ServerStore, startServer } from "./server-process.js";

const FILES = documentationFiles();
const TEXT: Record<string, string[]> = Object.fromEntries(FILES.map((f) => [f, readFileSync(join(ROOT, f), "utf8").split("\n")]));
const SKIP = /^<!-- readme-test: skip\b.*-->$/;

/** The pages in the order docs/README.md links them (its first link to each), README.md first. */
function runOrder(): string[] {
  const index = TEXT["docs/README.md"]!.join("\n");
  const listed = [...index.matchAll(/\]\(([\w-]+\.md)(?:#[\w-]*)?\)/g)].map((m) => `docs/${m[1]}`);
  return ["README.md", ...new Set(listed.filter((f) => f !== "docs/README.md" && FILES.includes(f))), "docs/README.md"];
}

interface Block {
  file: string;
  start: number;
  lines: string[];
  skipped: boolean;
}

/** The ```sh blocks of a file: first line number (1-based, of the first command line), lines, marker. */
function shBlocks(file: string): Block[] {
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

/** The documentation without its generated blocks: what people wrote. */
const prose = FILES.map((f) => TEXT[f]!.join("\n"))
  .join("\n")
  .replace(/<!-- generated: [\w-]+ -->\n[\s\S]*?<!-- \/generated -->/g, "");

/** The paragraphs and list items outside code fences and tables, each as one line of words. */
function paragraphs(text: string): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let fenced = false;
  const flush = () => {
    if (current.length) out.push(current.join(" "));
    current = [];
  };
  for (const line of text.split("\n")) {
    if (line.trim().startsWith("```")) {
      fenced = !fenced;
      flush();
    } else if (fenced) continue;
    else if (!line.trim() || /^(#|\||<!--)/.test(line)) flush();
    else if (/^\s*[-*] /.test(line)) {
      flush();
      current.push(line);
    } else current.push(line);
  }
  flush();
  return out;
}

describe("the documentation follows the code", () => {
  it("its generated blocks are those the sources give, each once (else: npm run readme)", () => {
    const files = Object.fromEntries(FILES.map((f) => [f, TEXT[f]!.join("\n")]));
    const { changed } = syncDocs(files, generatedBlocks());
    expect(changed, "the documentation is out of date: run npm run readme").toEqual([]);
  });

  it("the index (docs/README.md) lists every page of docs/, and the README links the index", () => {
    const order = runOrder();
    expect(FILES.filter((f) => !order.includes(f))).toEqual([]);
    expect(TEXT["README.md"]!.join("\n")).toContain("(docs/README.md)");
  });

  it("the web application's help menu links pages that exist, each in the index", () => {
    const help = readFileSync(join(ROOT, "web/src/layout/help.tsx"), "utf8");
    const pages = [...(/DOC_PAGES = \[([^\]]*)\]/.exec(help)?.[1] ?? "").matchAll(/"([\w-]+)"/g)].map((m) => `docs/${m[1]}.md`);
    expect(pages.length).toBeGreaterThan(10);
    expect(pages.filter((p) => !FILES.includes(p))).toEqual([]);
    expect(pages.filter((p) => !runOrder().includes(p))).toEqual([]);
  });

  it("the README stays a front door: at most 300 lines, no dated figure", () => {
    expect(TEXT["README.md"]!.length).toBeLessThanOrEqual(300);
    expect(TEXT["README.md"]!.filter((l) => /\b20\d\d-\d\d-\d\d\b/.test(l))).toEqual([]);
  });

  it("names every event, action, job and operator in its prose too, not only in the generated lists", () => {
    const missing = [...EVENTS, ...ACTIONS, ...Object.keys(JOBS), ...OPERATORS].filter((name) => !prose.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });

  it("lists every benchmark of bench/run.ts in BENCH=…", () => {
    const benches = [...readFileSync(new URL("../bench/run.ts", import.meta.url), "utf8").matchAll(/only === "([\w-]+)"/g)].map(
      (m) => m[1],
    );
    const listed = /BENCH=([\w-]+(?:\|[\w-]+)+)/.exec(prose)?.[1]?.split("|");
    expect(benches.length).toBeGreaterThan(5);
    expect(listed?.sort()).toEqual(benches.sort());
  });

  it("has no paragraph that repeats eight words in a row (what a bad merge leaves)", () => {
    const repeats = FILES.flatMap((f) => paragraphs(TEXT[f]!.join("\n"))).flatMap((p) => {
      const words = p.split(/\s+/).filter(Boolean);
      const seen = new Set<string>();
      for (let i = 0; i + 8 <= words.length; i++) {
        const run = words.slice(i, i + 8).join(" ");
        if (seen.has(run)) return [run];
        seen.add(run);
      }
      return [];
    });
    expect(repeats).toEqual([]);
  });
});

const work = mkdtempSync(join(tmpdir(), "vigie-readme-"));
const CURL_LITE = fileURLToPath(new URL("./curl-lite.mjs", import.meta.url));
let store: ServerStore | undefined;
afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await store?.remove();
});

describe("the documentation's examples work as written", () => {
  it("every sh block is either run or marked as reference", () => {
    const blocks = runOrder().flatMap(shBlocks);
    expect(blocks.filter((b) => !b.skipped).length).toBeGreaterThanOrEqual(3);
    expect(shBlocks("README.md").filter((b) => !b.skipped).length).toBeGreaterThanOrEqual(1);
  });

  it("the walk-throughs run in order against a fresh server with the bundled snapshot", async () => {
    const fresh = await freshStore();
    store = fresh;
    const server = startServer({ ...fresh.env, VIGIE_SNAPSHOT: "auto" });
    try {
      const base = await server.ready(540_000);
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
          { env: { ...process.env, ...fresh.env, LOG_LEVEL: "silent" }, maxBuffer: 64 << 20 },
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
      await server.stop();
    }
  }, 900_000);
});
