import { Agent, request } from "undici";
import type { Attempt } from "./checks.js";
import type { Cluster } from "./cluster.js";

/** An answer, its body parsed when it is JSON. */
export interface Answer {
  api: string;
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, read field by field.
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

export interface Call {
  /** The operation's name in the summary. */
  op: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  key: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Statuses the operation expects (others are failures); default: any 2xx. */
  expect?: number[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The traffic client: each call goes to the next API process in turn (round robin, as a load
 * balancer would), skipping those the driver has killed and not yet seen ready; every attempt is
 * recorded with its timing for the checks. Keep-alive connections are closed by the client before
 * the server's 5 s keep-alive timeout, so that no request meets a socket the server is closing.
 */
export class Client {
  readonly attempts: Attempt[] = [];
  private turn = 0;
  private readonly agent = new Agent({
    connections: 16,
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
    keepAliveTimeout: 2_000,
    keepAliveMaxTimeout: 2_000,
  });

  constructor(private readonly cluster: Cluster) {}

  private apis(): string[] {
    return this.cluster.names("api");
  }

  /** The next API in turn that is up, other than `avoid` if another is; while none is, waits (up to a minute) as a load balancer would. */
  private async pick(avoid?: string): Promise<string> {
    const all = this.apis();
    const until = Date.now() + 60_000;
    for (;;) {
      const up = all.filter((n) => !this.cluster.down.has(n));
      if (up.length || Date.now() > until) {
        const others = up.filter((n) => n !== avoid);
        const from = others.length ? others : up.length ? up : all;
        return from[this.turn++ % from.length]!;
      }
      await sleep(100);
    }
  }

  /** One attempt on one API process, recorded; null when no answer came. */
  async on(api: string, c: Call, expectMore: number[] = []): Promise<Answer | null> {
    const start = Date.now();
    const headers: Record<string, string> = { authorization: `Bearer ${c.key}`, ...c.headers };
    if (c.body !== undefined) headers["content-type"] = "application/json";
    const expected = (status: number) =>
      c.expect ? c.expect.includes(status) || expectMore.includes(status) : (status >= 200 && status < 300) || expectMore.includes(status);
    try {
      const res = await request(`${this.cluster.url(api)}${c.path}`, {
        method: c.method,
        headers,
        body: c.body === undefined ? undefined : JSON.stringify(c.body),
        dispatcher: this.agent,
      });
      const text = await res.body.text();
      const json = String(res.headers["content-type"] ?? "").includes("json") && text ? JSON.parse(text) : text;
      this.attempts.push({ op: c.op, api, start, end: Date.now(), status: res.statusCode, expected: expected(res.statusCode) });
      return { api, status: res.statusCode, body: json, headers: res.headers };
    } catch (err) {
      const e = err as { code?: string; message?: string };
      this.attempts.push({ op: c.op, api, start, end: Date.now(), status: null, expected: false, error: e.code ?? e.message });
      return null;
    }
  }

  /** A read, or a write not safe to repeat: one attempt on the next API. */
  async once(c: Call): Promise<Answer | null> {
    return this.on(await this.pick(), c);
  }

  /**
   * A write safe to repeat (an Idempotency-Key, a state set, a unique name): sent again, to the
   * other API after no answer, until an answer other than 503 comes or `deadlineMs` passes. A
   * repeat may meet the effect of an attempt whose answer was lost: `afterRetry` lists the statuses
   * that then prove the write was made (409 of a name already taken…).
   */
  async untilAnswered(c: Call, afterRetry: number[] = [], deadlineMs = 120_000): Promise<{ answer: Answer | null; tries: number }> {
    const until = Date.now() + deadlineMs;
    let api = await this.pick();
    for (let tries = 1; ; tries++) {
      const answer = await this.on(api, c, tries > 1 ? afterRetry : []);
      if ((answer && answer.status !== 503) || Date.now() > until) return { answer, tries };
      await sleep(answer ? 250 : 100);
      api = await this.pick(answer ? undefined : api);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
