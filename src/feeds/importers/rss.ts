import { basename } from "node:path";
import { readWhole } from "../reader.js";
import { hashOf } from "../records.js";
import { parseFeed, type ParsedFeed } from "../rss.js";
import { feedStore, type ArticleRow } from "../store.js";
import { RecordError } from "../types.js";
import { singleFile } from "../publishers/file.js";
import { HOUR } from "../sync/publisher.js";
import { feedSource } from "./feed-source.js";

/**
 * RSS 2.0, RSS 1.0, Atom and JSON Feed documents: articles, deduplicated by GUID, else URL.
 * Not through the batch writer: a document is one record that fails or imports whole, in one
 * transaction, and an article is matched to a stored one by GUID or by URL (two keys), where the
 * batch writer keys a row by one.
 */
export const rss = feedSource({
  id: "rss",
  endings: [".xml", ".rss", ".atom", ".json"],
  defaultEnding: ".xml",
  sniff: {
    test: (h) => /<(rss|feed|rdf:RDF)[\s>]/.test(h) || /"version"\s*:\s*"https?:\/\/jsonfeed\.org\/version\/1/.test(h),
    expected: "flux RSS, Atom ou JSON Feed",
  },
  tables: ["articles"],
  publisher: singleFile(
    [
      "https://www.cert.ssi.gouv.fr/feed/",
      "https://www.bleepingcomputer.com/feed/",
      "https://www.cisa.gov/cybersecurity-advisories/all.xml",
    ],
    HOUR,
  ),
  async importFiles(db, files, tally) {
    for (const file of files) {
      const name = basename(file);
      let items: ParsedFeed["items"];
      try {
        items = parseFeed(await readWhole(file), null).items;
      } catch (err) {
        if (!(err instanceof RecordError)) throw err;
        tally.result.read++;
        tally.fail({ file: name, loc: { index: 0 } }, err.message);
        continue;
      }
      tally.result.read += items.length;
      const byKey = new Map<string, ArticleRow>();
      for (const it of items) {
        const { guid, url, title, description, published_at, source, author, image_url, cve_ids } = it;
        const row = { guid, url, title, description, published_at, source, author, image_url, cve_ids, file: name };
        byKey.set(guid ?? url, { ...row, hash: hashOf({ ...row, file: undefined }) });
      }
      const rows = [...byKey.values()];
      const r = await db.transaction(async (tx) => {
        const stored = await feedStore.articlesByKeys(
          tx,
          rows.flatMap((a) => (a.guid ? [a.guid] : [])),
          rows.map((a) => a.url),
        );
        const inserts: ArticleRow[] = [];
        const updates: (ArticleRow & { id: string })[] = [];
        let unchanged = 0;
        for (const a of rows) {
          const old =
            stored.find((s) => (a.guid && s.guid === a.guid) || (!a.guid && s.url === a.url)) ?? stored.find((s) => s.url === a.url);
          // An article already known from another feed (an Atom and a JSON Feed of one site) is that one.
          if (!old) inserts.push(a);
          else if (old.hash !== a.hash && old.file === a.file) updates.push({ ...a, id: old.id });
          else unchanged++;
        }
        const inserted = await feedStore.writeArticles(tx, inserts, updates);
        if (inserted || updates.length) await feedStore.bumpVersion(tx, "articles");
        // Repeats inside the document count as unchanged too.
        return { inserted, updated: updates.length, unchanged: unchanged + inserts.length - inserted + items.length - rows.length };
      });
      tally.result.inserted += r.inserted;
      tally.result.updated += r.updated;
      tally.result.unchanged += r.unchanged;
      tally.tick();
    }
  },
});
