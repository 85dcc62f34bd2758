import type { SnapshotStatus } from "../../feeds/snapshot.js";
import type { SourceStatus } from "../../feeds/sync/sync.js";
import type { FeedSourceOut } from "./feeds.schemas.js";

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function presentFeedSource(s: SourceStatus, snapshot?: SnapshotStatus): FeedSourceOut {
  return {
    ...s,
    last_attempt_at: iso(s.last_attempt_at),
    last_success_at: iso(s.last_success_at),
    failing_since: iso(s.failing_since),
    next_run_at: iso(s.next_run_at),
    held_until: s.held_until?.toISOString(),
    addresses: s.addresses.map((a) => ({
      ...a,
      checkpoint: (a.checkpoint as Record<string, unknown> | null) ?? null,
      applied_until: iso(a.applied_until),
      updated_at: iso(a.updated_at),
    })),
    snapshot: snapshot
      ? { imported_at: snapshot.imported_at.toISOString(), records: snapshot.records, data_until: snapshot.data_until }
      : null,
  };
}
