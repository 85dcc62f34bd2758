import { z } from "zod";
import { CsafFeedProviderOut } from "../csaf/csaf.schemas.js";

export const FeedAddressOut = z
  .object({
    address: z.string().describe("The publisher's address (VIGIE_FEED_URLS_<SOURCE>, else the official one)"),
    checkpoint: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe(
        "What was applied last at this address, in the publisher's terms (a release, a window's end, a modified date, validators); null: never synced",
      ),
    applied_until: z.iso.datetime().nullable().describe("The publisher's time of the newest data applied"),
    records_applied: z.number().int().describe("Records inserted or updated from this address since its first sync"),
    updated_at: z.iso.datetime().nullable().describe("When the checkpoint was last written"),
  })
  .meta({ id: "FeedAddressOut" });

export const FeedSourceOut = z
  .object({
    source: z.string().describe("Source id (cve5, nvd, kev, epss, poc, osv, certfr, rss, eol)"),
    enabled: z.boolean().describe("False when VIGIE_FEED_URLS_<SOURCE> is set empty"),
    protocol: z.string().describe("How the publisher is followed"),
    every_seconds: z.number().int().describe("The source's rhythm (VIGIE_FEEDS_EVERY_<SOURCE>, else the publisher's)"),
    running: z.boolean().describe("A process is syncing the source now"),
    last_attempt_at: z.iso.datetime().nullable(),
    last_success_at: z.iso.datetime().nullable(),
    last_error: z.string().nullable().describe("The last attempt's error, when it failed"),
    failures: z.number().int().describe("Failed attempts in a row (the next one waits 1, 2, 4… minutes, at most the rhythm)"),
    failing_since: z.iso.datetime().nullable(),
    stale: z.boolean().describe("Failing for more than a day"),
    last_applied: z.number().int().describe("Records inserted or updated by the last successful sync"),
    lag_seconds: z
      .number()
      .int()
      .nullable()
      .describe(
        "Seconds between now and the publisher's time of the newest data applied (the oldest over the addresses); null: not known yet",
      ),
    next_run_at: z.iso.datetime().nullable().describe("When the scheduler syncs the source next (null: never synced, or disabled)"),
    held_until: z.iso
      .datetime()
      .optional()
      .describe(
        "Present while GitHub's rate limit holds the source's API host (CVE List and PoC share it): no request goes to GitHub before this instant (x-ratelimit-reset of a primary limit, retry-after of a secondary one, else one minute doubled at each refusal in a row), from any process or after a restart",
      ),
    held_reason: z.string().optional().describe("Why the source is held (present with held_until)"),
    addresses: z.array(FeedAddressOut),
    snapshot: z
      .object({
        imported_at: z.iso.datetime().describe("When the first start imported the bundled snapshot of this source"),
        records: z.number().int().describe("Records the snapshot's files held for this source"),
        data_until: z.iso
          .date()
          .nullable()
          .describe(
            "The publisher's day of the newest record the source holds (until a first sync: the snapshot's date); null when its records carry no date",
          ),
      })
      .nullable()
      .optional()
      .describe("What the bundled snapshot (fixtures/snapshot) brought to this source; null when it brought nothing"),
  })
  .meta({ id: "FeedSourceOut" });

export const FeedStatusOut = z
  .object({
    sources: z.array(FeedSourceOut),
    sync_scheduled: z
      .boolean()
      .optional()
      .describe("VIGIE_FEEDS_SYNC=on: the process that runs jobs syncs each source on its rhythm, a source never synced at once"),
    fournisseurs_csaf: z
      .array(CsafFeedProviderOut)
      .optional()
      .describe(
        "The CSAF providers the caller's organizations follow (an API key: its organization; a user: each of theirs), with their state, newest document and latest refusals (docs/csaf-providers.md). Absent for a caller of no organization",
      ),
  })
  .meta({ id: "FeedStatusOut" });

export type FeedSourceOut = z.infer<typeof FeedSourceOut>;
