export * from "./tenancy.js";
export * from "./auth.js";
export * from "./workflows.js";
export * from "./vulns.js";
export * from "./alerting.js";
export * from "./matching.js";
export * from "./cases.js";
export * from "./reports.js";
