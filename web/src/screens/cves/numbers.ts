import type { Lang } from "../../i18n/messages";

// The scores' and days' formats of the CVE screens and the inbox.

const LOCALE: Record<Lang, string> = { fr: "fr-FR", en: "en-GB" };

/** A day the sources give (YYYY-MM-DD, or a date-time at 00:00 UTC), in words: no time zone shifts it. */
export function formatDay(iso: string, lang: Lang): string {
  return new Intl.DateTimeFormat(LOCALE[lang], { dateStyle: "long", timeZone: "UTC" }).format(
    new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso),
  );
}

/** A probability (EPSS score, percentile) as a percentage: "90,5 %". */
export function percent(x: number, lang: Lang, digits = 1): string {
  return new Intl.NumberFormat(LOCALE[lang], { style: "percent", maximumFractionDigits: digits, minimumFractionDigits: digits }).format(x);
}

/** A CVSS score: "9,8". */
export function score(x: number, lang: Lang): string {
  return new Intl.NumberFormat(LOCALE[lang], { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(x);
}
