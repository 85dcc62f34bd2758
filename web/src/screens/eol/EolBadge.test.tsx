import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { I18nProvider } from "../../i18n/i18n";
import { calendarMonths } from "./calendar";
import { EolBadge } from "./EolBadge";
import { eolStatus, parisToday } from "./status";

afterEach(cleanup);

describe("a cycle's EOL status from its dates", () => {
  // Django 4.2 (test/fixtures/eol): support ended 2023-12-04, end of life 2026-04-07.
  const django42 = { eol: "2026-04-07", support: "2023-12-04" };
  it("is supported before both dates, support ended between them, EOL from the end-of-life day", () => {
    expect(eolStatus(django42, "2023-06-01")).toBe("supported");
    expect(eolStatus(django42, "2023-12-03")).toBe("supported");
    expect(eolStatus(django42, "2023-12-04")).toBe("support_ended");
    expect(eolStatus(django42, "2026-04-06")).toBe("support_ended");
    expect(eolStatus(django42, "2026-04-07")).toBe("eol");
  });
  it("reads upstream's booleans: true is reached, false not planned; nothing known is unknown", () => {
    expect(eolStatus({ eol: true, support: null }, "2026-01-01")).toBe("eol");
    expect(eolStatus({ eol: false, support: true }, "2026-01-01")).toBe("support_ended");
    expect(eolStatus({ eol: false, support: false }, "2026-01-01")).toBe("supported");
    expect(eolStatus({ eol: null, support: null }, "2026-01-01")).toBe("unknown");
    expect(eolStatus({ eol: "not a date", support: null }, "2026-01-01")).toBe("unknown");
  });
  it("counts the day in Paris", () => {
    // 23:30 UTC on 31 December is already 1 January in Paris.
    expect(parisToday(new Date("2025-12-31T23:30:00Z"))).toBe("2026-01-01");
  });
});

describe("the EOL badge", () => {
  const badge = (cycle: { eol: string | boolean | null; support: string | boolean | null }, today: string, lang: "fr" | "en" = "fr") => {
    render(
      <I18nProvider initial={lang}>
        <EolBadge cycle={cycle} today={today} />
      </I18nProvider>,
    );
    return screen.getByText((_, el) => el?.classList.contains("badge") ?? false);
  };
  it("says the status in words with its tone, and the dates for screen readers and in its tooltip", () => {
    const b = badge({ eol: "2026-04-07", support: "2023-12-04" }, "2025-01-15");
    expect(b.className).toBe("badge badge-warn");
    expect(b.textContent).toBe("support terminé (fin du support : 4 déc. 2023 · fin de vie : 7 avr. 2026)");
    expect(b.getAttribute("title")).toBe("fin du support : 4 déc. 2023 · fin de vie : 7 avr. 2026");
  });
  it("is red at the end of life, green when supported, grey when unknown (English too)", () => {
    expect(badge({ eol: "2026-04-07", support: "2023-12-04" }, "2026-04-07").className).toBe("badge badge-bad");
    cleanup();
    const ok = badge({ eol: "2030-01-01", support: false }, "2026-04-07", "en");
    expect(ok.className).toBe("badge badge-ok");
    expect(ok.textContent).toBe("supported (end of life: 1 Jan 2030)");
    cleanup();
    const unknown = badge({ eol: null, support: null }, "2026-04-07");
    expect(unknown.className).toBe("badge badge-idle");
    expect(unknown.textContent).toBe("inconnu");
    expect(unknown.hasAttribute("title")).toBe(false);
  });
});

describe("the EOL calendar", () => {
  const products = new Map([
    [
      "django",
      {
        name: "Django",
        cycles: [
          { cycle: "5.2", eol: "2028-04-30", support: "2025-12-31" },
          { cycle: "4.2", eol: "2026-04-07", support: "2023-12-04" },
        ],
      },
    ],
    ["ubuntu", { name: "Ubuntu", cycles: [{ cycle: "24.04", eol: "2029-05-31", support: true }] }],
  ]);
  it("places each subscribed cycle's support and EOL dates in their months, only within the 12 months shown", () => {
    const months = calendarMonths([{ product_id: "django", cycle: "4.2" }], products, "2026-01");
    expect(months.map((m) => m.month)).toEqual([
      "2026-01",
      "2026-02",
      "2026-03",
      "2026-04",
      "2026-05",
      "2026-06",
      "2026-07",
      "2026-08",
      "2026-09",
      "2026-10",
      "2026-11",
      "2026-12",
    ]);
    expect(months.flatMap((m) => m.events)).toEqual([
      { day: "2026-04-07", kind: "eol", productId: "django", productName: "Django", cycle: "4.2" },
    ]);
    expect(months[3]!.events).toHaveLength(1);
  });
  it("places every cycle of a subscription to all cycles, once even when subscribed twice, in date order; a date `true` is not placed", () => {
    const subs = [
      { product_id: "django", cycle: null },
      { product_id: "django", cycle: "5.2" },
      { product_id: "ubuntu", cycle: "24.04" },
    ];
    const events = calendarMonths(subs, products, "2023-12", 72).flatMap((m) =>
      m.events.map((e) => `${e.day} ${e.productName} ${e.cycle} ${e.kind}`),
    );
    expect(events).toEqual([
      "2023-12-04 Django 4.2 support",
      "2025-12-31 Django 5.2 support",
      "2026-04-07 Django 4.2 eol",
      "2028-04-30 Django 5.2 eol",
      "2029-05-31 Ubuntu 24.04 eol",
    ]);
  });
});
