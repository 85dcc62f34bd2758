import { importFeed } from "./dist/feeds/import.js";
import { matchNewItems } from "./dist/matching/matcher.js";
import { openDatabase } from "./dist/platform/db/client.js";
const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL });
const q = async (t, v = []) => (await database.executeSql(t, v)).rows;
await q("truncate alerts cascade"); await q("truncate outbox_events");
const ids = (await q("select id from stack_items order by id")).map((r) => r.id);
let t0 = performance.now(); let alerts = 0;
const n = Number(process.env.N ?? ids.length);
for (let i = 0; i < n; i += 2000) alerts += await database.db.transaction((tx) => matchNewItems(tx, ids.slice(i, Math.min(n, i + 2000))));
console.log("full matching", n, "items", ((performance.now() - t0) / 1000).toFixed(1), "s", alerts, "alerts");
if (process.env.NEW) {
  const before = (await q("select count(*)::int n from alerts"))[0].n;
  await q("delete from cves where cve_id in (select cve_id from cve_sources where file = 'new.jsonl')").catch(e => console.log(e.message));
  await q("delete from cve_sources where file = 'new.jsonl'");
  t0 = performance.now();
  const r = await importFeed(database.db, "cve5", [process.env.NEW]);
  const after = (await q("select count(*)::int n from alerts"))[0].n;
  console.log("import new", r.read, ((performance.now() - t0) / 1000).toFixed(2), "s", after - before, "alerts");
}
await database.close();
