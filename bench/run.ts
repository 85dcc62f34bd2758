/** `npm run bench`: every benchmark in turn; each prints its figures. BENCH=api|ingest runs one. */
import { benchApi } from "./api.js";
import { benchIngest } from "./ingest.js";

const only = process.env.BENCH;
if (!only || only === "api") await benchApi();
if (!only || only === "ingest") await benchIngest();
