import { cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { I18nProvider } from "../../i18n/i18n";
import { Countdown } from "./common";
import { effectiveExpiry, parisDaysLeft, parisToday } from "./paris";

afterEach(cleanup);

describe("an exception's countdown, in Paris calendar days", () => {
  it("counts from the Paris day, not the UTC one: 23:30 UTC on 28 March is already 29 March in Paris", () => {
    const now = new Date("2026-03-28T23:30:00Z");
    expect(parisToday(now)).toBe("2026-03-29");
    // Ends tonight at 00:00 Paris: 0 days left, where a UTC count would say 1.
    expect(parisDaysLeft("2026-03-29", now)).toBe(0);
    expect(parisDaysLeft("2026-03-28", now)).toBe(-1);
  });

  it("moves the day's end from 23:00 to 22:00 UTC across the spring DST change (29 March 2026)", () => {
    // Winter, before the change: 00:00 Paris is 23:00 UTC.
    expect(parisDaysLeft("2026-03-29", new Date("2026-03-28T22:59:59Z"))).toBe(1);
    expect(parisDaysLeft("2026-03-29", new Date("2026-03-28T23:00:00Z"))).toBe(0);
    // Summer, after it: 00:00 Paris is 22:00 UTC.
    expect(parisDaysLeft("2026-03-30", new Date("2026-03-29T21:59:59Z"))).toBe(1);
    expect(parisDaysLeft("2026-03-30", new Date("2026-03-29T22:00:00Z"))).toBe(0);
  });

  it("counts whole calendar days over a 23-hour or a 25-hour day", () => {
    // 30 days from 28 March 13:00 Paris, the 29th lasting 23 hours.
    expect(parisDaysLeft("2026-04-27", new Date("2026-03-28T12:00:00Z"))).toBe(30);
    // 30 days from 24 October 13:00 Paris (CEST), the 25th lasting 25 hours (back to CET).
    expect(parisDaysLeft("2026-11-23", new Date("2026-10-24T11:00:00Z"))).toBe(30);
    // Just after 00:00 Paris on 26 October (23:00 UTC, CET): one day fewer.
    expect(parisDaysLeft("2026-11-23", new Date("2026-10-25T23:00:00Z"))).toBe(28);
    expect(parisDaysLeft("2026-11-23", new Date("2026-10-25T22:59:59Z"))).toBe(29);
  });

  it("takes the case's own exception before the register entry covering it", () => {
    expect(effectiveExpiry({ exception: { expires_on: "2030-06-30" }, risque: { expires_on: "2030-12-31" } })).toBe("2030-06-30");
    expect(effectiveExpiry({ exception: null, risque: { expires_on: "2030-12-31" } })).toBe("2030-12-31");
    expect(effectiveExpiry({ exception: null, risque: null })).toBeNull();
  });

  it("says « expire dans N jours (jours calendaires de Paris) » and the last day in Paris time", () => {
    const { container, rerender } = render(
      <I18nProvider initial="fr">
        <Countdown expiresOn="2026-04-27" now={new Date("2026-03-28T12:00:00Z")} long />
      </I18nProvider>,
    );
    expect(container.textContent).toBe(
      "expire dans 30 jours (jours calendaires de Paris)valable jusqu'au 27 avril 2026 (heure de Paris) inclus",
    );
    rerender(
      <I18nProvider initial="fr">
        <Countdown expiresOn="2026-03-30" now={new Date("2026-03-29T22:30:00Z")} />
      </I18nProvider>,
    );
    expect(container.textContent).toBe("expire ce soir à minuit (jours calendaires de Paris)");
    cleanup();
    const en = render(
      <I18nProvider initial="en">
        <Countdown expiresOn="2026-03-31" now={new Date("2026-03-29T22:30:00Z")} long />
      </I18nProvider>,
    );
    expect(en.container.textContent).toBe("expires in 1 day (Paris calendar days)valid through 31 March 2026 (Paris time)");
  });
});
