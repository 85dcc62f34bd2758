import { describe, expect, it } from "vitest";
import type { components } from "../api/schema";
import { fr } from "../i18n/messages";
import { feedState } from "./Feeds";

type FeedSource = components["schemas"]["FeedSourceOut"];

const source = (over: Partial<FeedSource>): FeedSource => ({
  source: "kev",
  enabled: true,
  protocol: "un fichier",
  every_seconds: 3600,
  running: false,
  last_attempt_at: "2026-11-26T05:00:00Z",
  last_success_at: "2026-11-26T05:00:00Z",
  last_error: null,
  failures: 0,
  failing_since: null,
  stale: false,
  last_applied: 12,
  lag_seconds: 60,
  next_run_at: "2026-11-26T06:00:00Z",
  addresses: [],
  ...over,
});

describe("a feed source's state", () => {
  it("a source never synced whose data came from the bundled snapshot says so", () => {
    const never = { last_attempt_at: null, last_success_at: null, next_run_at: null };
    expect(feedState(source(never), fr)).toEqual({ label: "Jamais synchronisée", tone: "idle" });
    const snapshot = { imported_at: "2026-11-28T08:52:36Z", records: 3669, data_until: "2024-10-24" };
    expect(feedState(source({ ...never, snapshot }), fr)).toEqual({ label: "Instantané fourni", tone: "idle" });
    // Once synced, the sync's state wins.
    expect(feedState(source({ snapshot }), fr)).toEqual({ label: "À jour", tone: "ok" });
  });

  it("puts disabled, running, stale and failing before success", () => {
    expect(feedState(source({}), fr)).toEqual({ label: "À jour", tone: "ok" });
    expect(feedState(source({ enabled: false, stale: true }), fr)).toEqual({ label: "Désactivée", tone: "idle" });
    expect(feedState(source({ running: true, failures: 2 }), fr)).toEqual({ label: "En cours", tone: "ok" });
    expect(feedState(source({ failures: 9, stale: true }), fr)).toEqual({ label: "En échec depuis plus d'un jour", tone: "bad" });
    expect(feedState(source({ failures: 1 }), fr)).toEqual({ label: "En échec", tone: "warn" });
    expect(feedState(source({ last_success_at: null }), fr)).toEqual({ label: "Jamais synchronisée", tone: "idle" });
  });
});
