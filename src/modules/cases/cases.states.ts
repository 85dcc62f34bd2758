import { CASE_STATUSES, type CaseStatus } from "../../platform/db/schema/index.js";
import { Conflict } from "../../platform/errors.js";
import { CONFLICT } from "../../platform/messages.js";

export { CASE_STATUSES, type CaseStatus };

/** The statuses of a case still being handled; the others close it. */
export const OPEN_STATUSES: readonly CaseStatus[] = ["nouveau", "en_analyse", "en_remediation"];

/** Statuses held only while an exception is in force: reached by setting one, never by a status change. */
export const EXCEPTION_STATUSES: readonly CaseStatus[] = ["attenue", "risque_accepte"];

/** Where a case reopens: an exception removed or expired, a register entry withdrawn or expired. */
export const REOPENED: CaseStatus = "en_analyse";

/**
 * The status changes a caller may ask for (PUT, bulk). Every closed status leads back to
 * `en_analyse`; `attenue` and `risque_accepte` are left by any of the listed changes (the exception
 * is then removed, or the case uncovered from the register entry) and entered only by an exception.
 */
export const TRANSITIONS: Readonly<Record<CaseStatus, readonly CaseStatus[]>> = {
  nouveau: ["en_analyse", "en_remediation", "corrige", "non_concerne"],
  en_analyse: ["en_remediation", "corrige", "non_concerne"],
  en_remediation: ["en_analyse", "corrige", "non_concerne"],
  corrige: ["en_analyse"],
  non_concerne: ["en_analyse"],
  attenue: ["en_analyse", "en_remediation", "corrige"],
  risque_accepte: ["en_analyse", "en_remediation", "corrige"],
};

/** Statuses from which an exception may be set (or a register entry cover the case): open, or already under an exception. */
export const EXCEPTION_FROM: readonly CaseStatus[] = [...OPEN_STATUSES, ...EXCEPTION_STATUSES];

/** True when `from` → `to` is allowed as a status change (the same status is no change and always allowed). */
export function canTransition(from: CaseStatus, to: CaseStatus): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

/** 409 transition_invalide with from and to. */
export function invalidTransition(from: CaseStatus | null, to: CaseStatus): Conflict {
  const message = CONFLICT.invalidTransition.message(from, to, from ? TRANSITIONS[from] : [], EXCEPTION_STATUSES.includes(to));
  return new Conflict(CONFLICT.invalidTransition.code, message, { from, to });
}

/** Throws 409 transition_invalide unless `from` → `to` is allowed. */
export function checkTransition(from: CaseStatus, to: CaseStatus): void {
  if (!canTransition(from, to)) throw invalidTransition(from, to);
}

/** Throws 409 transition_invalide unless an exception may be set on a case in `from` (`to`: the status it would take). */
export function checkExceptionFrom(from: CaseStatus, to: CaseStatus): void {
  if (!EXCEPTION_FROM.includes(from)) throw invalidTransition(from, to);
}
