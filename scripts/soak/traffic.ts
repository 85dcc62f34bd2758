import type { Client } from "./client.js";
import type { Tenant } from "./setup.js";

/** A workflow the client created under an Idempotency-Key, and the last change the API acknowledged. */
export interface WorkflowWrite {
  key: string;
  name: string;
  id: string;
  /** Attempts until a definitive answer (more than 1: sent again with the same key). */
  tries: number;
  version: number;
  description: string | null;
}

/** Every write the API acknowledged (2xx), and those whose outcome is unknown (no answer to a write not safe to repeat). */
export interface Journal {
  workflows: WorkflowWrite[];
  /** Workflow changes acknowledged, and those proven by a 409 version_perimee naming the version the lost answer would have given. */
  patches: { acknowledged: number; provenByConflict: number };
  /** Stack items added (one `cve` item each, every CVE once), with the alerts the answer said it raised. */
  items: { cve: string; id: string; raised: number }[];
  itemsUnknown: string[];
  tags: { name: string; tries: number }[];
  alertsRead: string[];
}

const WORDS = ["remote", "injection", "wordpress", "overflow", "authentication", "linux", "plugin", "openssl"];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The mixed traffic over both APIs: mostly reads (the workflow list, the hot cached path, alerts,
 * CVEs, runs, stack items), and writes — workflows created with an Idempotency-Key and changed,
 * stack items that each raise an alert (its run and webhook follow), tags, alerts marked read.
 * `cves` are stored CVEs not yet on the traffic project's stack: each is added once.
 */
export class Traffic {
  readonly journal: Journal = {
    workflows: [],
    patches: { acknowledged: 0, provenByConflict: 0 },
    items: [],
    itemsUnknown: [],
    tags: [],
    alertsRead: [],
  };
  private readonly free: WorkflowWrite[] = [];
  private readonly unread = new Set<string>();
  private readonly readable: string[];
  private seq = 0;

  constructor(
    private readonly client: Client,
    private readonly t: Tenant,
    private readonly cves: string[],
    private readonly tag: string,
  ) {
    this.readable = [...cves];
  }

  private readonly ops: { weight: number; run: () => Promise<unknown> }[] = [
    { weight: 30, run: () => this.read("workflows", `${this.t.traffic.base}/workflows`) },
    { weight: 10, run: () => this.alerts() },
    { weight: 5, run: () => this.read("me", "/api/v1/me") },
    { weight: 10, run: () => this.read("cve", `/api/v1/cves/${this.pickCve()}`) },
    { weight: 4, run: () => this.read("cve search", `/api/v1/cves?q=${WORDS[this.seq++ % WORDS.length]}&page_size=10`) },
    { weight: 5, run: () => this.read("runs", `${this.t.traffic.base}/workflows/${this.t.traffic.webhookId}/runs?limit=20`) },
    { weight: 4, run: () => this.read("stack items", `${this.t.traffic.base}/stacks/${this.t.traffic.stackId}/items?page_size=20`) },
    { weight: 3, run: () => this.read("workflows (writes)", `${this.t.writes.base}/workflows`) },
    { weight: 5, run: () => this.addItem() },
    { weight: 3, run: () => this.createWorkflow() },
    { weight: 3, run: () => this.patchWorkflow() },
    { weight: 2, run: () => this.createTag() },
    { weight: 3, run: () => this.readAlert() },
  ];

  /** `loops` concurrent loops sharing `rate` requests per second until `stop()` says so. */
  async run(rate: number, loops: number, stop: () => boolean): Promise<void> {
    // Each operation's upper bound on [0, total): an operation is drawn in proportion to its weight.
    const bounds = this.ops.map((_, i) => this.ops.slice(0, i + 1).reduce((s, o) => s + o.weight, 0));
    const total = bounds.at(-1)!;
    const interval = (1000 * loops) / rate;
    await Promise.all(
      Array.from({ length: loops }, async () => {
        while (!stop()) {
          const started = Date.now();
          const r = Math.random() * total;
          const op = this.ops[bounds.findIndex((b) => r < b)] ?? this.ops[0]!;
          await op.run();
          await sleep(Math.max(0, interval - (Date.now() - started)));
        }
      }),
    );
  }

  private pickCve(): string {
    return this.readable[Math.floor(Math.random() * this.readable.length)]!;
  }

  private read(op: string, path: string) {
    return this.client.once({ op, method: "GET", path, key: this.t.key });
  }

  private async alerts() {
    const a = await this.read("alerts", `${this.t.traffic.base}/alerts?is_read=false&page_size=20`);
    if (a?.status === 200) for (const item of a.body.items as { id: string }[]) this.unread.add(item.id);
  }

  /** A stack change that raises an alert: not safe to repeat (a second item), so sent once. */
  private async addItem() {
    const cve = this.cves.pop();
    if (!cve) return;
    const a = await this.client.once({
      op: "add stack item",
      method: "POST",
      path: `${this.t.traffic.base}/stacks/${this.t.traffic.stackId}/items`,
      key: this.t.key,
      body: { item_type: "cve", value: cve },
      expect: [201],
    });
    if (a?.status === 201) this.journal.items.push({ cve, id: a.body.id, raised: a.body.alertes_creees });
    else if (!a || a.status >= 500) this.journal.itemsUnknown.push(cve);
  }

  private async createWorkflow() {
    const n = ++this.seq;
    const key = `${this.tag}-wf-${n}`;
    const name = `Écriture ${n}`;
    const { answer, tries } = await this.client.untilAnswered(
      {
        op: "create workflow",
        method: "POST",
        path: `${this.t.writes.base}/workflows`,
        key: this.t.key,
        headers: { "idempotency-key": key },
        body: { name, trigger: { event: "url.recovered" }, actions: [{ type: "add_tag", params: { tag: "soak" } }], create_case: false },
        expect: [201],
        // The same key and body again after a lost answer: 200, the workflow as it is.
      },
      [200],
    );
    if (answer && (answer.status === 201 || answer.status === 200)) {
      const w = { key, name, id: answer.body.id, tries, version: answer.body.version, description: answer.body.description };
      this.journal.workflows.push(w);
      this.free.push(w);
    }
  }

  /** Changes a workflow no other loop is changing (taken from the free list, put back after). */
  private async patchWorkflow() {
    const w = this.free.shift();
    if (!w) return;
    const description = `changé ${++this.seq}`;
    const { answer } = await this.client.untilAnswered(
      {
        op: "change workflow",
        method: "PATCH",
        path: `${this.t.writes.base}/workflows/${w.id}`,
        key: this.t.key,
        body: { version: w.version, description },
        expect: [200],
      },
      [409],
    );
    if (answer?.status === 200) {
      w.version = answer.body.version;
      w.description = description;
      this.journal.patches.acknowledged++;
    } else if (answer?.status === 409 && answer.body.detail?.current_version === w.version + 1) {
      // The first attempt was committed and its answer lost: the version it made is there.
      w.version++;
      w.description = description;
      this.journal.patches.provenByConflict++;
    }
    this.free.push(w);
  }

  private async createTag() {
    const name = `${this.tag}-${++this.seq}`;
    const { answer, tries } = await this.client.untilAnswered(
      { op: "create tag", method: "POST", path: `${this.t.traffic.base}/tags`, key: this.t.key, body: { name }, expect: [201] },
      [409],
    );
    if (answer && (answer.status === 201 || answer.status === 409)) this.journal.tags.push({ name, tries });
  }

  private async readAlert() {
    const [id] = this.unread;
    if (!id) return;
    this.unread.delete(id);
    const { answer } = await this.client.untilAnswered({
      op: "mark alert read",
      method: "PATCH",
      path: `${this.t.traffic.base}/alerts/${id}`,
      key: this.t.key,
      body: { is_read: true },
      expect: [200],
    });
    if (answer?.status === 200) this.journal.alertsRead.push(id);
  }
}
