import type { ProjectScope } from "../../platform/auth/context.js";
import type { Db } from "../../platform/db/client.js";
import { alertsVersion, bumpVersions, readVersion, VersionedCache } from "../../platform/db/versions.js";
import { invalid, NotFound } from "../../platform/errors.js";
import type { ItemMatching } from "../../matching/background.js";
import { INVALID, NOT_FOUND } from "../../platform/messages.js";
import type { stacksRepository } from "../stacks/stacks.repository.js";
import type { urlsRepository } from "../urls/urls.repository.js";
import type { TagRow, tagsRepository } from "../tags/tags.repository.js";
import { getTag } from "../tags/tags.service.js";
import { alertSettingsRepository, alertsRepository as repo, type AlertRow } from "./alerts.repository.js";
import type { AlertListQuery } from "./alerts.schemas.js";

/** A project's alerts (raised by src/matching), their read state, tags and statistics. */
export class AlertsService {
  private readonly counts = new VersionedCache<{ total: number; unread: number }>(2000);
  constructor(
    private readonly db: Db,
    private readonly tags: Pick<typeof tagsRepository, "ofAlerts" | "attachToAlert" | "detachFromAlert">,
    private readonly stacks: Pick<typeof stacksRepository, "countInProject">,
    private readonly urls: Pick<typeof urlsRepository, "countInProject">,
    /** The project's EOL subscriptions (the eol module's count). */
    private readonly eolSubscriptions: (projectId: string) => Promise<number>,
    private readonly matching: ItemMatching,
  ) {}

  /**
   * One page, its tags, total and unread_count. The counts are cached per (project, filters) while
   * the project's alerts version holds: every transaction that adds, updates, reads or tags the
   * project's alerts bumps it (see alertsVersion), so counting 50,000 alerts is done once per change.
   */
  async list(
    { id: projectId }: ProjectScope,
    q: AlertListQuery,
  ): Promise<{ rows: AlertRow[]; tags: Map<string, TagRow[]>; total: number; unread: number }> {
    const { sort: _s, page: _p, page_size: _ps, ...filters } = q;
    const key = `${projectId} ${JSON.stringify(filters)}`;
    // The version is read before counting: a count newer than its version is only recounted once more.
    const [rows, version] = await Promise.all([repo.page(this.db, projectId, q), readVersion(this.db, alertsVersion(projectId))]);
    const counts = await this.counts.through(key, version, () => repo.counts(this.db, projectId, q));
    const tags = await this.tags.ofAlerts(
      this.db,
      rows.map((r) => r.id),
    );
    return { rows, tags, total: counts.total, unread: counts.unread };
  }

  async setRead({ id: projectId }: ProjectScope, alertId: string, isRead: boolean): Promise<{ row: AlertRow; tags: TagRow[] }> {
    const changed = await this.db.transaction(async (tx) => {
      if (!(await repo.setRead(tx, projectId, alertId, isRead))) return false;
      await bumpVersions(tx, [alertsVersion(projectId)]);
      return true;
    });
    if (!changed) throw new NotFound(NOT_FOUND.alert);
    const row = (await repo.get(this.db, projectId, alertId))!;
    return { row, tags: (await this.tags.ofAlerts(this.db, [alertId])).get(alertId) ?? [] };
  }

  /** Marks these alerts read, or every one with `all: true`; ids of other projects are ignored. */
  async markRead({ id: projectId }: ProjectScope, body: { ids?: string[]; all?: boolean }): Promise<number> {
    const hasIds = body.ids !== undefined && body.ids.length > 0;
    if (hasIds === (body.all === true)) throw invalid(["body"], INVALID.idsOrAll, body);
    return this.db.transaction(async (tx) => {
      const n = await repo.markRead(tx, projectId, body.all ? "all" : body.ids!);
      if (n) await bumpVersions(tx, [alertsVersion(projectId)]);
      return n;
    });
  }

  async tag({ id: projectId }: ProjectScope, alertId: string, tagId: string, attach: boolean): Promise<void> {
    if (!(await repo.exists(this.db, projectId, alertId))) throw new NotFound(NOT_FOUND.alert);
    await getTag(this.db, projectId, tagId);
    await this.db.transaction(async (tx) => {
      if (attach) await this.tags.attachToAlert(tx, alertId, tagId);
      else await this.tags.detachFromAlert(tx, alertId, tagId);
      await bumpVersions(tx, [alertsVersion(projectId)]);
    });
  }

  /** ProjectStatsOut. */
  async stats({ id: projectId }: ProjectScope) {
    const [a, items, urls, eolSubs] = await Promise.all([
      repo.stats(this.db, projectId),
      this.stacks.countInProject(this.db, projectId),
      this.urls.countInProject(this.db, projectId),
      this.eolSubscriptions(projectId),
    ]);
    return {
      total_alerts: a.total,
      unread_alerts: a.unread,
      kev_alerts: a.kev,
      poc_alerts: a.poc,
      stack_items: items,
      monitored_urls: urls,
      eol_subscriptions: eolSubs,
      alerts_by_severity: a.bySeverity,
    };
  }

  async settings({ id: projectId }: ProjectScope) {
    return alertSettingsRepository.get(this.db, projectId);
  }

  async updateSettings({ id: projectId }: ProjectScope, body: { alert_backfill?: string; alert_backfill_days?: number }) {
    // The project's items are matched again under the new setting (new alerts only), in one
    // transaction; past VIGIE_MATCH_INLINE_MAX candidates, by the items-match job after it (ADR 0037).
    const match = await this.db.transaction(async (tx) => {
      await alertSettingsRepository.set(tx, projectId, body);
      return this.matching.matchProjectOrDefer(tx, projectId);
    });
    if (match.deferred.length) this.matching.wake();
    return alertSettingsRepository.get(this.db, projectId);
  }
}
