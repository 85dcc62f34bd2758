/** `npm run bench`: every benchmark in turn; each prints its figures. BENCH=api|ingest|matching|slow|cases|engine|stats|eol|urls|reports|sync|web|web-stats runs one. */
import { benchApi } from "./api.js";
import { benchCases } from "./cases.js";
import { benchEngine } from "./engine.js";
import { benchEol } from "./eol.js";
import { benchIngest } from "./ingest.js";
import { benchMatching } from "./matching.js";
import { benchReports } from "./reports.js";
import { benchSlowClients } from "./slow-clients.js";
import { benchSync } from "./sync.js";
import { benchStats } from "./stats.js";
import { benchUrls } from "./urls.js";
import { benchWeb } from "./web.js";
import { benchWebStats } from "./web-stats.js";

const only = process.env.BENCH;
if (!only || only === "api") await benchApi();
if (!only || only === "ingest") await benchIngest();
if (!only || only === "matching") await benchMatching();
if (!only || only === "slow") await benchSlowClients();
if (!only || only === "cases") await benchCases();
if (!only || only === "engine") await benchEngine();
if (!only || only === "reports") await benchReports();
if (!only || only === "eol") await benchEol();
if (!only || only === "stats") await benchStats();
if (!only || only === "urls") await benchUrls();
if (!only || only === "sync") await benchSync();
if (!only || only === "web") await benchWeb();
if (!only || only === "web-stats") await benchWebStats();
