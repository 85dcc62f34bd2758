/**
 * The documentation follows the code: the generated blocks are those `npm run readme` writes from the
 * sources; the actions, jobs, operators and benchmarks are each named in the prose as well; every page
 * is listed in the index; no paragraph repeats itself (what a bad merge leaves); every ```sh block is
 * either run or marked as reference. The examples themselves run, as written, in the order the pages
 * say, in test/snapshot.test.ts (test/doc-blocks.ts runWalkthrough): they need a server with the
 * bundled snapshot, and that file has the suite's one import of it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generatedBlocks, ROOT, syncDocs } from "../scripts/readme-sync.js";
import { ACTIONS, EVENTS, OPERATORS } from "../src/engine/vocabulary.js";
import { JOBS } from "../src/jobs.js";
import { FILES, runOrder, shBlocks, TEXT } from "./doc-blocks.js";

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

describe("the documentation's examples", () => {
  it("every sh block is either run or marked as reference", () => {
    const blocks = runOrder().flatMap(shBlocks);
    expect(blocks.filter((b) => !b.skipped).length).toBeGreaterThanOrEqual(3);
    expect(shBlocks("README.md").filter((b) => !b.skipped).length).toBeGreaterThanOrEqual(1);
  });
});
