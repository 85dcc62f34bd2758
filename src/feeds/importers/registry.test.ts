import { existsSync } from "node:fs";
import { getTableName, is } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import * as schema from "../../platform/db/schema/index.js";
import { expandPaths, hasEnding, head } from "../reader.js";
import { loadConfig } from "../../config.js";
import { FEED_SOURCES, feedUrls, isSource, SOURCES } from "./index.js";

// Real files of each source the bundled snapshot carries (fixtures/snapshot/<source>/).
const SNAPSHOT = "fixtures/snapshot";
const TABLES = new Set(
  Object.values(schema)
    .filter((t) => is(t, PgTable))
    .map((t) => getTableName(t as PgTable)),
);
const samples = await Promise.all(
  FEED_SOURCES.filter((s) => existsSync(`${SNAPSHOT}/${s.id}`)).map(async (s) => {
    const file = expandPaths([`${SNAPSHOT}/${s.id}`], s.endings)[0]!;
    return { id: s.id, file, head: await head(file) };
  }),
);

describe("the feed source registry", () => {
  it.each(FEED_SOURCES.map((s) => [s.id, s] as const))("%s is declared whole, in the module named after it", async (id, s) => {
    expect(await import(/* @vite-ignore */ `./${id}.js`)).toMatchObject({ [id]: s });
    expect(isSource(id)).toBe(true);
    expect(s.endings.length).toBeGreaterThan(0);
    for (const e of s.endings) expect(e).toMatch(/^\.[a-z0-9]+$/);
    expect(s.endings).toContain(s.defaultEnding);
    expect(s.tables.length).toBeGreaterThan(0);
    for (const t of s.tables) expect(TABLES, `${id}: table ${t}`).toContain(t);
    for (const u of s.publisher.defaultAddresses) expect(u).toMatch(/^https:\/\/\S+$/);
    expect(s.publisher.every).toBeGreaterThanOrEqual(60);
    expect(s.publisher.protocol.length).toBeGreaterThan(10);
    expect(typeof s.importFiles).toBe("function");
  });

  it("names each source once, and SOURCES, VIGIE_FEED_URLS_<SOURCE> follow it", () => {
    expect(new Set(SOURCES).size).toBe(FEED_SOURCES.length);
    expect(SOURCES).toEqual(FEED_SOURCES.map((s) => s.id));
    expect(isSource("mitre")).toBe(false);
    const env = Object.fromEntries(SOURCES.map((id) => [`VIGIE_FEED_URLS_${id.toUpperCase()}`, `https://mirror.example/${id}`]));
    const settings = loadConfig(env).feeds.urls;
    expect(feedUrls(settings)).toEqual(Object.fromEntries(SOURCES.map((id) => [id, [`https://mirror.example/${id}`]])));
    expect(feedUrls({})).toEqual(
      Object.fromEntries(FEED_SOURCES.filter((s) => s.publisher.defaultAddresses.length).map((s) => [s.id, s.publisher.defaultAddresses])),
    );
    // An empty variable disables its source; one naming no source is refused.
    expect(feedUrls(loadConfig({ VIGIE_FEED_URLS_KEV: "" }).feeds.urls)).not.toHaveProperty("kev");
    expect(() => feedUrls(loadConfig({ VIGIE_FEED_URLS_KEVV: "https://mirror.example/kev" }).feeds.urls)).toThrow(
      /VIGIE_FEED_URLS_KEVV : source inconnue/,
    );
  });

  it.each(samples.map((s) => [s.id, s] as const))(
    "%s recognises its own snapshot file and no other source takes it",
    (id, { file, head }) => {
      expect(FEED_SOURCES.find((s) => s.id === id)!.sniff.test(head, file)).toBe(true);
      for (const other of FEED_SOURCES) {
        // A file without one of the other source's endings is refused before sniffing.
        if (other.id !== id && hasEnding(file, other.endings))
          expect(other.sniff.test(head, file), `${other.id} takes ${file}`).toBe(false);
      }
    },
  );

  it("has real files of today's sources to check sniffing on", () => {
    expect(samples.map((s) => s.id)).toEqual(["cve5", "nvd", "kev", "epss", "poc", "osv", "certfr", "rss", "eol"]);
  });
});
