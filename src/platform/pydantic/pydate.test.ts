/**
 * `datetime.date` query parameters. Every expected answer below is what FastAPI 0.142.2 + Pydantic
 * 2.13.5 (pydantic-core 2.46.5) answered for `published_from: Optional[datetime.date] = None` on
 * GET /d?published_from=<case> (reference app run on 2026-11-24): the 200 value, or the 422 item
 * (loc ["query", "published_from"], input the case itself).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { validate, type PydanticError } from "./validate.js";
import { parsePythonDate } from "./pydate.js";

type Expected = string | { type: string; msg: string; ctx?: { error: string } };

// biome-ignore format: one line per FastAPI answer, as captured
const FASTAPI: [string, Expected][] = [
  ["2024-13-45", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, month value is outside expected range of 1-12", "ctx": {"error": "month value is outside expected range of 1-12"}}],
  ["0000-00-00", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, month value is outside expected range of 1-12", "ctx": {"error": "month value is outside expected range of 1-12"}}],
  ["2024-02-30", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, day value is outside expected range", "ctx": {"error": "day value is outside expected range"}}],
  ["2024-02-29", "2024-02-29"],
  ["2023-02-29", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, day value is outside expected range", "ctx": {"error": "day value is outside expected range"}}],
  ["2000-02-29", "2000-02-29"],
  ["1900-02-29", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, day value is outside expected range", "ctx": {"error": "day value is outside expected range"}}],
  ["2024-1-1", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, input is too short", "ctx": {"error": "input is too short"}}],
  ["x", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, input is too short", "ctx": {"error": "input is too short"}}],
  ["", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, input is too short", "ctx": {"error": "input is too short"}}],
  ["2024-01-01T00:00:00", "2024-01-01"],
  ["2024-01-01T10:00:00", {"type": "date_from_datetime_inexact", "msg": "Datetimes provided to dates should have zero time - e.g. be exact dates"}],
  ["2024-01-01t00:00", "2024-01-01"],
  ["2024-01-01_00:00:00Z", "2024-01-01"],
  ["2024-01-01 00:00:00+01:00", "2024-01-01"],
  ["2024-01-01T00:00:00-0130", "2024-01-01"],
  ["2024-01-01T00:00:00+24:00", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, timezone offset must be less than 24 hours", "ctx": {"error": "timezone offset must be less than 24 hours"}}],
  ["2024-01-01T00:00:00+01:60", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, timezone minute value is outside expected range of 0-59", "ctx": {"error": "timezone minute value is outside expected range of 0-59"}}],
  ["2024-01-01T00:00:00+1", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, invalid timezone hour", "ctx": {"error": "invalid timezone hour"}}],
  ["2024-01-01T00:00:00x", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, invalid timezone sign", "ctx": {"error": "invalid timezone sign"}}],
  ["2024-01-01T00:00:00.", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, second fraction digits missing after `.`", "ctx": {"error": "second fraction digits missing after `.`"}}],
  ["2024-01-01T00:00:00.000000000", "2024-01-01"],
  ["2024-01-01T00:00:00.0000001", "2024-01-01"],
  ["2024-01-01T00:00:00.5", {"type": "date_from_datetime_inexact", "msg": "Datetimes provided to dates should have zero time - e.g. be exact dates"}],
  ["2024-01-01T24:00", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, hour value is outside expected range of 0-23", "ctx": {"error": "hour value is outside expected range of 0-23"}}],
  ["2024-01-01T23:60", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, minute value is outside expected range of 0-59", "ctx": {"error": "minute value is outside expected range of 0-59"}}],
  ["2024-01-01T23:59:60", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, second value is outside expected range of 0-59", "ctx": {"error": "second value is outside expected range of 0-59"}}],
  ["2024-01-01T0", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, input is too short", "ctx": {"error": "input is too short"}}],
  ["2024-01-01T00:0", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, input is too short", "ctx": {"error": "input is too short"}}],
  ["2024-01-01T00-00", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, invalid time separator, expected `:`", "ctx": {"error": "invalid time separator, expected `:`"}}],
  ["2024-01-01T00:00:0", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, invalid character in second", "ctx": {"error": "invalid character in second"}}],
  ["1700000000", {"type": "date_from_datetime_inexact", "msg": "Datetimes provided to dates should have zero time - e.g. be exact dates"}],
  ["1704067200", "2024-01-01"],
  ["20240101", {"type": "date_from_datetime_inexact", "msg": "Datetimes provided to dates should have zero time - e.g. be exact dates"}],
  ["0", "1970-01-01"],
  ["-1", {"type": "date_from_datetime_inexact", "msg": "Datetimes provided to dates should have zero time - e.g. be exact dates"}],
  ["1e5", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, input is too short", "ctx": {"error": "input is too short"}}],
  ["+5", {"type": "date_from_datetime_inexact", "msg": "Datetimes provided to dates should have zero time - e.g. be exact dates"}],
  ["5.", {"type": "date_from_datetime_inexact", "msg": "Datetimes provided to dates should have zero time - e.g. be exact dates"}],
  ["5.0", {"type": "date_from_datetime_inexact", "msg": "Datetimes provided to dates should have zero time - e.g. be exact dates"}],
  ["-0", "1970-01-01"],
  ["1704067200.0", "2024-01-01"],
  ["1704067200000", "2024-01-01"],
  ["99999999999", {"type": "date_from_datetime_inexact", "msg": "Datetimes provided to dates should have zero time - e.g. be exact dates"}],
  ["99999999999999999999", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, invalid date separator, expected `-`", "ctx": {"error": "invalid date separator, expected `-`"}}],
  ["-99999999999999", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, dates before 0000 are not supported as unix timestamps", "ctx": {"error": "dates before 0000 are not supported as unix timestamps"}}],
  ["253402300800", {"type": "date_from_datetime_inexact", "msg": "Datetimes provided to dates should have zero time - e.g. be exact dates"}],
  ["-62167219201", {"type": "date_from_datetime_inexact", "msg": "Datetimes provided to dates should have zero time - e.g. be exact dates"}],
  ["2024-01-01Z", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, invalid datetime separator, expected `T`, `t`, `_` or space", "ctx": {"error": "invalid datetime separator, expected `T`, `t`, `_` or space"}}],
  ["2024-01-01 ", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, input is too short", "ctx": {"error": "input is too short"}}],
  ["2024/01/01", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, invalid date separator, expected `-`", "ctx": {"error": "invalid date separator, expected `-`"}}],
  ["24-01-01", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, input is too short", "ctx": {"error": "input is too short"}}],
  ["2024-001-01", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, invalid date separator, expected `-`", "ctx": {"error": "invalid date separator, expected `-`"}}],
  ["abcd-01-01", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, invalid character in year", "ctx": {"error": "invalid character in year"}}],
  ["2024-ab-01", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, invalid character in month", "ctx": {"error": "invalid character in month"}}],
  ["2024-01-ab", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, invalid character in day", "ctx": {"error": "invalid character in day"}}],
  ["0000-01-01", {"type": "date_parsing", "msg": "Input should be a valid date in the format YYYY-MM-DD, year 0 is out of range", "ctx": {"error": "year 0 is out of range"}}],
  ["9999-12-31", "9999-12-31"],
  ["2024-01-01T00:00:00Z ", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, unexpected extra characters at the end of the input", "ctx": {"error": "unexpected extra characters at the end of the input"}}],
  ["２０２４-01-01", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, invalid character in year", "ctx": {"error": "invalid character in year"}}],
  ["2024-01-01T00:00:00−01:00", "2024-01-01"],
  [" 2024-01-01", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, invalid character in year", "ctx": {"error": "invalid character in year"}}],
  ["2024-00-10", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, month value is outside expected range of 1-12", "ctx": {"error": "month value is outside expected range of 1-12"}}],
  ["2024-04-31", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, day value is outside expected range", "ctx": {"error": "day value is outside expected range"}}],
  ["2024-01-00", {"type": "date_from_datetime_parsing", "msg": "Input should be a valid date or datetime, day value is outside expected range", "ctx": {"error": "day value is outside expected range"}}],
  ["2024-01-01T00:00:00.123+00:00", {"type": "date_from_datetime_inexact", "msg": "Datetimes provided to dates should have zero time - e.g. be exact dates"}],
  ["1704067200.5", {"type": "date_from_datetime_inexact", "msg": "Datetimes provided to dates should have zero time - e.g. be exact dates"}],
  ["00000000001", {"type": "date_from_datetime_inexact", "msg": "Datetimes provided to dates should have zero time - e.g. be exact dates"}],
];

describe("z.iso.date() is datetime.date (lax), as FastAPI answers", () => {
  const schema = z.iso.date().optional();
  it.each(FASTAPI)("%j", (input, expected) => {
    const errors: PydanticError[] = [];
    const value = validate(schema, input, ["query", "published_from"], errors);
    if (typeof expected === "string") {
      expect(errors).toEqual([]);
      expect(value).toBe(expected);
    } else {
      expect(errors).toEqual([
        { type: expected.type, loc: ["query", "published_from"], msg: expected.msg, input, ...(expected.ctx ? { ctx: expected.ctx } : {}) },
      ]);
    }
  });

  it("the issue's cases: 2024-13-45 and 0000-00-00 are 422s (were a 500 RangeError), 2024-02-30 is refused (was accepted)", () => {
    expect(parsePythonDate("2024-13-45")).toEqual({
      ok: false,
      type: "date_from_datetime_parsing",
      error: "month value is outside expected range of 1-12",
    });
    expect(parsePythonDate("0000-00-00")).toEqual({
      ok: false,
      type: "date_from_datetime_parsing",
      error: "month value is outside expected range of 1-12",
    });
    expect(parsePythonDate("2024-02-30")).toEqual({
      ok: false,
      type: "date_from_datetime_parsing",
      error: "day value is outside expected range",
    });
  });

  it("JSON body values (TypeAdapter(date).validate_python): numbers are timestamps, other types date_type", () => {
    const errors: PydanticError[] = [];
    expect(validate(z.iso.date(), 86400, ["body", "a"], errors)).toBe("1970-01-02");
    validate(z.iso.date(), 1.5, ["body", "b"], errors);
    validate(z.iso.date(), true, ["body", "d"], errors);
    validate(z.iso.date(), [1], ["body", "c"], errors);
    validate(z.iso.date(), "\ud800", ["body", "e"], errors);
    expect(errors).toEqual([
      {
        type: "date_from_datetime_inexact",
        loc: ["body", "b"],
        msg: "Datetimes provided to dates should have zero time - e.g. be exact dates",
        input: 1.5,
      },
      { type: "date_type", loc: ["body", "d"], msg: "Input should be a valid date", input: true },
      { type: "date_type", loc: ["body", "c"], msg: "Input should be a valid date", input: [1] },
      {
        type: "string_unicode",
        loc: ["body", "e"],
        msg: "Input should be a valid string, unable to parse raw data as a unicode string",
        input: "\ud800",
      },
    ]);
  });
});
