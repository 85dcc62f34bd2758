import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { head, jsonArrayItems, openText } from "../reader.js";
import { FetchError } from "../sync/fetch.js";
import { HOUR, publisher, type SyncContext } from "../sync/publisher.js";

/** NVD's CVE API 2.0 (https://nvd.nist.gov/developers/vulnerabilities). */
export const NVD_API = "https://services.nvd.nist.gov/rest/json/cves/2.0";
/** "The maximum allowable range when using any date range parameters is 120 consecutive days." */
export const NVD_MAX_WINDOW_DAYS = 120;
/** resultsPerPage's maximum for the CVE API. */
export const NVD_PAGE = 2000;
/**
 * Where the first sync starts: no NVD record was last modified before (a record's lastModified is
 * at least its published date, and the oldest CVEs are dated 1988). NVD has no "everything modified
 * since the beginning" window: the first sync walks 120-day windows from here to now (about 120
 * windows, one request each when empty), so records absent from the snapshot arrive too.
 */
export const NVD_EPOCH = new Date("1988-01-01T00:00:00.000Z");
/**
 * A sync after the first starts this long before the checkpoint. NVD "publishes [modifications]
 * once every two hours": a record may become visible after the end of the window its lastModified
 * falls in (and a clock ahead of NVD's ends a window in NVD's future). Re-reading the last two hours
 * costs one page of records already applied, which the importer skips unparsed (same text).
 */
export const NVD_OVERLAP_MS = 2 * 3600_000;
/** A page found bad (truncated, short) is fetched again this many times before it is reported. */
const PAGE_ATTEMPTS = 3;
/** A window whose totalResults moved while it was paged is paged again from its start, at most this many times. */
const WINDOW_RESTARTS = 3;
const DAY_MS = 86_400_000;

/** The checkpoint: the end of the last window whose every page was applied. */
export interface NvdCheckpoint {
  until: string;
}

export interface Window {
  start: Date;
  end: Date;
}

/** The end of the last window applied, from a stored checkpoint (null: none or unreadable). */
export function checkpointUntil(checkpoint: unknown): Date | null {
  const until = (checkpoint as Partial<NvdCheckpoint> | null)?.until;
  if (typeof until !== "string") return null;
  const d = new Date(until);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** Consecutive windows of at most `days` days covering [from, to] (none when to ≤ from). */
export function windowsBetween(from: Date, to: Date, days = NVD_MAX_WINDOW_DAYS): Window[] {
  const out: Window[] = [];
  const span = days * DAY_MS;
  for (let s = from.getTime(); s < to.getTime(); s += span)
    out.push({ start: new Date(s), end: new Date(Math.min(s + span, to.getTime())) });
  return out;
}

/**
 * NVD's extended ISO-8601 with an explicit offset, e.g. 2024-01-01T00:00:00.000+00:00; the "+" is
 * sent as %2B (a literal "+" in a query string reads as a space, and NVD then refuses the date).
 */
export function nvdDate(d: Date): string {
  return d.toISOString().replace("Z", "+00:00");
}

/** The address of one page of a window. */
export function pageUrl(base: string, w: Window, startIndex: number, size = NVD_PAGE): string {
  const enc = (d: Date) => nvdDate(d).replace("+", "%2B");
  const sep = base.includes("?") ? "&" : "?";
  return `${base}${sep}lastModStartDate=${enc(w.start)}&lastModEndDate=${enc(w.end)}&resultsPerPage=${size}&startIndex=${startIndex}`;
}

export interface PageHead {
  resultsPerPage: number;
  startIndex: number;
  totalResults: number;
}

/** The counts of an API answer, read from its first bytes (NVD writes them before `vulnerabilities`). */
export function pageHead(text: string): PageHead | null {
  const n = (key: string) => {
    const m = new RegExp(`"${key}"\\s*:\\s*(\\d+)`).exec(text);
    return m ? Number(m[1]) : null;
  };
  const resultsPerPage = n("resultsPerPage");
  const startIndex = n("startIndex");
  const totalResults = n("totalResults");
  if (resultsPerPage === null || startIndex === null || totalResults === null) return null;
  return { resultsPerPage, startIndex, totalResults };
}

/** Why a downloaded page cannot be applied as it is, or null when it is whole. */
export async function pageDefect(
  file: string,
  startIndex: number,
): Promise<{ defect: string | null; head: PageHead | null; count: number }> {
  const h = pageHead(await head(file, 4096));
  if (!h) return { defect: "réponse sans resultsPerPage/startIndex/totalResults", head: null, count: 0 };
  let count = 0;
  // Counted without parsing: a page cut short ends its array early, and holds fewer records than it announces.
  for await (const _ of jsonArrayItems(openText(file), ["vulnerabilities"])) count++;
  const expected = Math.max(0, Math.min(h.resultsPerPage, h.totalResults - startIndex));
  if (h.startIndex !== startIndex) return { defect: `startIndex ${h.startIndex} au lieu de ${startIndex}`, head: h, count };
  if (count !== expected) return { defect: `page tronquée : ${count} enregistrements sur ${expected} annoncés`, head: h, count };
  if (count === 0 && startIndex < h.totalResults) return { defect: "page vide avant la fin de la fenêtre", head: h, count };
  return { defect: null, head: h, count };
}

/**
 * NVD's CVE API 2.0: the records modified since the checkpoint, in windows of lastModStartDate /
 * lastModEndDate of at most 120 days, each paged with startIndex (2,000 per page), one pause of
 * VIGIE_NVD_PAUSE_MS between requests (NVD's rate limit: 6 s without a key, 0.6 s with one sent in
 * the apiKey header). Each page is imported as it arrives; the checkpoint moves to a window's end
 * once all its pages are applied, so a kill re-reads at most the window it was in (and the overlap).
 */
export function nvdApi(defaultAddresses: readonly string[] = [NVD_API], every = 2 * HOUR) {
  return publisher({
    defaultAddresses,
    every,
    protocol:
      "API CVE 2.0 : fenêtres lastModStartDate/lastModEndDate de 120 jours au plus, pages startIndex ; point de reprise : fin de la dernière fenêtre appliquée (la suivante part deux heures avant)",
    async sync(ctx) {
      const until = checkpointUntil(ctx.checkpoint);
      const from = until ? new Date(Math.max(NVD_EPOCH.getTime(), until.getTime() - NVD_OVERLAP_MS)) : NVD_EPOCH;
      const to = new Date();
      const s = new NvdSession(ctx);
      let broken: Window | null = null;
      for (const w of windowsBetween(from, to)) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        const whole = await s.window(w);
        if (!whole) broken ??= w;
        // After a window not applied in full, later windows are still applied (their records
        // arrive), but the checkpoint stays before it: the next sync reads it again.
        if (!broken) await ctx.save({ until: w.end.toISOString() } satisfies NvdCheckpoint, w.end);
      }
      if (broken)
        throw new Error(`fenêtre ${nvdDate(broken.start)} – ${nvdDate(broken.end)} non appliquée en entier ; reprise à son début`);
    },
  });
}

/** One sync's requests: the pause between them, the apiKey header, pages checked before they are imported. */
class NvdSession {
  private requests = 0;
  private readonly headers: Record<string, string>;

  constructor(private readonly ctx: SyncContext) {
    // The key travels in a header only: never in an address, hence never in a log line or an error.
    this.headers = ctx.settings.nvdApiKey ? { apiKey: ctx.settings.nvdApiKey } : {};
  }

  /** Applies every page of a window; false when one could not be applied (reported). */
  async window(w: Window): Promise<boolean> {
    for (let restart = 0; ; restart++) {
      let total: number | null = null;
      let whole = true;
      let moved = false;
      for (let index = 0; total === null || index < total; ) {
        if (this.ctx.signal.aborted) throw this.ctx.signal.reason;
        const page = await this.page(w, index);
        if (!page) {
          whole = false;
          if (total === null) break;
          index += NVD_PAGE;
          continue;
        }
        // Records modified while a window is paged leave it (their lastModified moves past its
        // end) and shift the next pages' offsets: the window's total changes, and it is paged again.
        if (total !== null && page.total !== total) {
          moved = true;
          break;
        }
        total = page.total;
        // The next page starts after what this one held (a server may serve fewer than asked).
        index += page.served;
      }
      if (!moved) return whole;
      if (restart + 1 >= WINDOW_RESTARTS) {
        this.ctx.problem(this.where(w, 0), `totalResults a changé pendant la lecture de la fenêtre ${WINDOW_RESTARTS} fois`);
        return false;
      }
      this.ctx.log.info({ start: w.start, end: w.end }, "nvd : la fenêtre a changé pendant sa lecture, relue depuis son début");
    }
  }

  /** Fetches, checks and imports one page; null when it stayed bad after its attempts (reported). */
  private async page(w: Window, index: number): Promise<{ total: number; served: number } | null> {
    const url = pageUrl(this.ctx.address, w, index);
    let defect = "";
    for (let attempt = 0; attempt < PAGE_ATTEMPTS; attempt++) {
      if (this.requests++ > 0) await this.ctx.sleep(this.ctx.settings.nvdPauseMs);
      let file: string | undefined;
      try {
        const got = await this.ctx.fetch(url, { headers: this.headers, name: "nvd-cves.json" });
        if (!got.file) {
          // NVD states why it refuses a request in a `message` header (its body is empty).
          const why = got.headers.get("message");
          throw new FetchError(`HTTP ${got.status}${why ? ` : ${why}` : ""}`, got.status);
        }
        file = got.file;
        const checked = await pageDefect(file, index);
        if (checked.defect === null && checked.head) {
          if (checked.count > 0) await this.ctx.import([file]);
          return { total: checked.head.totalResults, served: checked.count };
        }
        defect = checked.defect ?? "";
      } catch (err) {
        // A refusal or an unreachable publisher ends the sync (the checkpoint holds), as does a
        // failed import; a body cut in transfer (no file yet) is one more bad attempt at this page.
        if (this.ctx.signal.aborted || err instanceof FetchError || file) throw err;
        defect = `transfert interrompu : ${(err as Error).message}`;
      } finally {
        if (file) rmSync(dirname(file), { recursive: true, force: true });
      }
      this.ctx.log.debug({ start: w.start, end: w.end, startIndex: index, defect }, "nvd : page à relire");
    }
    this.ctx.problem(this.where(w, index), `${defect} (${PAGE_ATTEMPTS} essais)`);
    return null;
  }

  private where(w: Window, index: number): string {
    return `lastModStartDate=${nvdDate(w.start)} lastModEndDate=${nvdDate(w.end)} startIndex=${index}`;
  }
}
