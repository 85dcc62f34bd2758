import type { ProjectScope } from "../../platform/auth/context.js";
import type { Db, Executor } from "../../platform/db/client.js";
import { alertsVersion, bumpVersions, casesVersion } from "../../platform/db/versions.js";
import { parisDate } from "../../platform/paris.js";
import { caseExpiryRepository as repo, type ExpiryChange } from "./cases.repository.js";
import type { CaseSettingsIn, CaseSettingsOut } from "./cases.schemas.js";
import { REOPENED } from "./cases.states.js";

/** What one run of the expiry job did. */
export interface ExpiryResult {
  /** The Paris calendar day the run took as today. */
  today: string;
  /** Cases whose own exception expired (reopened). */
  expired: number;
  /** Register entries that expired (their cases reopened, counted in `reopened_by_register`). */
  risks_expired: number;
  reopened_by_register: number;
  /** `case.exception_expiring` events written. */
  warned: number;
}

const count = (rows: ExpiryChange[], kind: ExpiryChange["kind"]) => rows.filter((r) => r.kind === kind).length;

/**
 * Exceptions and register entries that expire in Paris time. An `expires_on` is the last day of
 * validity in Europe/Paris: from 00:00 Paris the next day — whatever the server's time zone, since
 * the day is computed here with Intl (parisDate) and handed to SQL as a date — the case reopens
 * (en_analyse), its exception or register entry kept in history, a `case.exception_expired` event
 * written and the project's alert for the CVE unread again. N days before (the project's
 * `exception_warning_days`), one `case.exception_expiring` per expiry date.
 */
export class CaseExpiry {
  constructor(private readonly db: Db) {}

  /**
   * One run at `now`, in one transaction under an advisory lock: two runs at once never double a
   * row (the second waits, then finds nothing), and a second run changes nothing.
   */
  async run(now: Date): Promise<ExpiryResult> {
    const today = parisDate(now);
    return this.db.transaction(async (tx) => {
      await repo.lock(tx);
      const exceptions = await repo.expireExceptions(tx, today, REOPENED);
      const risks = await repo.expireRisks(tx, today, REOPENED);
      // After the expiries: what expired today is not also warned about.
      const warned = await repo.warn(tx, today);
      await this.bump(tx, [...exceptions, ...risks, ...warned]);
      return {
        today,
        expired: count(exceptions, "case"),
        risks_expired: count(risks, "risk"),
        reopened_by_register: count(risks, "case"),
        warned: warned.length,
      };
    });
  }

  /** The project's case settings. */
  async settings(project: ProjectScope): Promise<CaseSettingsOut> {
    return { exception_warning_days: await repo.warningDays(this.db, project.id) };
  }

  /** Changes the project's case settings; a longer warning period warns at the next run about the cases it now reaches. */
  async updateSettings(project: ProjectScope, body: CaseSettingsIn): Promise<CaseSettingsOut> {
    if (body.exception_warning_days !== undefined) await repo.setWarningDays(this.db, project.id, body.exception_warning_days);
    return this.settings(project);
  }

  private async bump(tx: Executor, changes: ExpiryChange[]): Promise<void> {
    const names = changes
      .filter((c) => c.project_id !== null)
      .map((c) => (c.kind === "alert" ? alertsVersion(c.project_id!) : casesVersion(c.project_id!)));
    await bumpVersions(tx, names);
  }
}
