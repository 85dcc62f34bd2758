/** `npm run bench`: every benchmark in turn; each prints its figures. BENCH=api|ingest|matching|slow|cases|engine|reports runs one. */
import { benchApi } from "./api.js";
import { benchCases } from "./cases.js";
import { benchEngine } from "./engine.js";
import { benchIngest } from "./ingest.js";
import { benchMatching } from "./matching.js";
import { benchReports } from "./reports.js";
import { benchSlowClients } from "./slow-clients.js";

const only = process.env.BENCH;
if (!only || only === "api") await benchApi();
if (!only || only === "ingest") await benchIngest();
if (!only || only === "matching") await benchMatching();
if (!only || only === "slow") await benchSlowClients();
if (!only || only === "cases") await benchCases();
if (!only || only === "engine") await benchEngine();
if (!only || only === "reports") await benchReports();
