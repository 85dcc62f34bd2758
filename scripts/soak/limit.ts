import type pg from "pg";
import { type Check, granted, remainingRises } from "./checks.js";
import type { Client } from "./client.js";
import type { Cluster } from "./cluster.js";
import { type Cli, QUOTA_PLAN } from "./setup.js";

export const QUOTA = 300;

/** What one phase saw: calls accepted and refused, X-RateLimit-Remaining in the order of the sequential calls. */
export interface LimitPhase {
  label: string;
  orgId: string;
  accepted: number;
  refused: number;
  remaining: number[];
  /** The hourly windows the answers named (X-RateLimit-Reset): one, or the phase is void. */
  windows: Set<string>;
  /** API processes killed while the phase ran (their unused reserved block is lost). */
  killed: string[];
  started: number;
  ended: number;
}

/** Seconds left in the current clock hour (UTC), the limit's window. */
export const secondsLeftInHour = () => 3600 - (Math.floor(Date.now() / 1000) % 3600);

/** Organizations on a plan of QUOTA calls an hour, each with a key. */
export async function quotaOrgs(cli: Cli, names: string[]): Promise<{ orgId: string; key: string }[]> {
  await cli("plan", "upsert", "--slug", QUOTA_PLAN, "--name", "Quota", "--max-api-calls-per-hour", String(QUOTA));
  return Promise.all(
    names.map(async (name) => {
      const org = await cli("org", "create", "--name", name, "--plan", QUOTA_PLAN);
      const key = await cli("apikey", "create", "--org", org.id, "--name", "quota");
      return { orgId: org.id, key: key.key };
    }),
  );
}

/**
 * Calls GET /api/v1/me with an organization's key over both APIs until each API has refused one
 * (a process refuses only once it holds no quota and the database has none left): first
 * `sequential` calls one at a time, alternating APIs, whose X-RateLimit-Remaining must never rise;
 * then `loops` concurrent loops.
 */
export async function spendQuota(
  client: Client,
  cluster: Cluster,
  org: { orgId: string; key: string },
  label: string,
  opts: { sequential: number; loops: number; pauseMs?: number },
): Promise<LimitPhase> {
  const phase: LimitPhase = {
    label,
    orgId: org.orgId,
    accepted: 0,
    refused: 0,
    remaining: [],
    windows: new Set(),
    killed: [],
    started: Date.now(),
    ended: 0,
  };
  const refusedBy = new Set<string>();
  const apis = cluster.names("api");
  const one = async (api: string, record: boolean) => {
    const a = await client.on(api, { op: `limit ${label}`, method: "GET", path: "/api/v1/me", key: org.key, expect: [200, 429] });
    if (!a) return;
    phase.windows.add(String(a.headers["x-ratelimit-reset"]));
    if (a.status === 200) phase.accepted++;
    if (a.status === 429) {
      phase.refused++;
      refusedBy.add(api);
    }
    if (record) phase.remaining.push(Number(a.headers["x-ratelimit-remaining"]));
  };
  for (let i = 0; i < opts.sequential; i++) await one(apis[i % apis.length]!, true);
  let turn = 0;
  await Promise.all(
    Array.from({ length: opts.loops }, async () => {
      while (refusedBy.size < apis.length) {
        const api = apis[turn++ % apis.length]!;
        if (cluster.down.has(api)) await new Promise((r) => setTimeout(r, 50));
        else await one(api, false);
        if (opts.pauseMs) await new Promise((r) => setTimeout(r, opts.pauseMs));
      }
    }),
  );
  phase.ended = Date.now();
  const hit = cluster.windows.filter((w) => w.process.startsWith("api") && w.start <= phase.ended && w.end >= phase.started);
  phase.killed = [...new Set(hit.map((w) => w.process))];
  return phase;
}

/**
 * The hourly limit's checks. Without a kill: exactly the limit accepted, and the counter agrees.
 * With an API process killed meanwhile: never more than the limit; what its unused block held is
 * lost to the payer (README, Hourly call limit), so accepted ≤ granted = the limit.
 */
export async function limitChecks(sql: pg.Client, phases: LimitPhase[]): Promise<Check[]> {
  const checks: Check[] = [];
  for (const p of phases) {
    const { rows } = await sql.query<{ count: number }>("select count::int from api_usage where org_id = $1", [p.orgId]);
    const count = rows.reduce((s, r) => s + r.count, 0);
    const g = granted(count, QUOTA);
    const oneWindow = p.windows.size === 1 && rows.length === 1;
    const rises = remainingRises(p.remaining);
    const figures =
      `limit ${QUOTA}/h: accepted ${p.accepted}, refused ${p.refused} (429), api_usage.count ${count} → granted ${g}` +
      (p.killed.length ? `; killed meanwhile: ${p.killed.join(", ")} (lost to the payer: ${g - p.accepted})` : "");
    checks.push({
      name: `hourly limit ${p.label}`,
      pass: oneWindow && (p.killed.length ? p.accepted <= QUOTA && g === QUOTA : p.accepted === QUOTA && g === QUOTA),
      figures,
      details: oneWindow ? [] : [`the phase spanned ${p.windows.size} windows (${rows.length} api_usage rows): not comparable`],
    });
    // Within one process it never rises; across processes a call may land before the other's
    // reservation notice (ADR 0033): those rises are counted and shown, not a failure.
    const ownRises = [0, 1].map((k) => remainingRises(p.remaining.filter((_, i) => i % 2 === k)).length);
    if (p.remaining.length)
      checks.push({
        name: `X-RateLimit-Remaining never rises within a process ${p.label}`,
        pass: ownRises.every((n) => n === 0),
        figures:
          `${p.remaining.length} sequential calls alternating APIs: ${p.remaining[0]} → ${p.remaining.at(-1)}, ` +
          `rises within each API ${ownRises.join(" and ")}; across the two (ADR 0033: a notice not arrived yet) ${rises.length}`,
        details: rises.slice(0, 5).map((r) => `across: call ${r.index}: ${r.from} → ${r.to}`),
      });
  }
  return checks;
}
