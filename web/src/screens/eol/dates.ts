import type { Lang } from "../../i18n/messages";

const LOCALES: Record<Lang, string> = { fr: "fr-FR", en: "en-GB" };

/** A calendar day (YYYY-MM-DD, upstream's dates: no time, no zone) in words: « 7 avr. 2026 ». */
export function formatDay(day: string, lang: Lang): string {
  return new Intl.DateTimeFormat(LOCALES[lang], { dateStyle: "medium", timeZone: "UTC" }).format(new Date(`${day}T00:00:00Z`));
}

/** A month (YYYY-MM) in words: « avril 2026 ». */
export function formatMonth(month: string, lang: Lang): string {
  return new Intl.DateTimeFormat(LOCALES[lang], { month: "long", year: "numeric", timeZone: "UTC" }).format(
    new Date(`${month}-01T00:00:00Z`),
  );
}

/** The month `n` months after `month` (YYYY-MM). */
export function addMonths(month: string, n: number): string {
  const [y, m] = month.split("-").map(Number) as [number, number];
  const d = new Date(Date.UTC(y, m - 1 + n, 1));
  return d.toISOString().slice(0, 7);
}

/** Whole days from `from` to `to` (YYYY-MM-DD or ISO instants). */
export function daysBetween(from: string, to: string): number {
  return Math.round(
    (Date.parse(to.length === 10 ? `${to}T00:00:00Z` : to) - Date.parse(from.length === 10 ? `${from}T00:00:00Z` : from)) / 86_400_000,
  );
}
