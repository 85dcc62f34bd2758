/**
 * Python `datetime.date` validation of a string, as pydantic-core 2.46 (speedate) does it in lax mode.
 *
 * pydantic-core `DateValidator`: `Date::parse_bytes` first (RFC 3339 `YYYY-MM-DD`, or a unix timestamp
 * that is an exact day); when that fails, `date_from_datetime` parses the text as a datetime
 * (`DateTime::parse_bytes`: `YYYY-MM-DD[T t _ space]HH:MM[:SS[.ffffff]][Z|±HH[:]MM]`, or an int/float
 * timestamp, seconds or — past 2e10 — milliseconds) and keeps it only at midnight. So a string gets
 * one of two errors, never `date_parsing`:
 *  - `date_from_datetime_parsing` "Input should be a valid date or datetime, {error}" (ctx {error}),
 *    error being speedate's message for the *datetime* parse;
 *  - `date_from_datetime_inexact` "Datetimes provided to dates should have zero time - e.g. be exact dates".
 * Messages: speedate `ParseError` documentation strings as compiled into pydantic-core 2.46.5; every
 * case in pydate.test.ts was answered by FastAPI 0.142 + Pydantic 2.13.5.
 */

export type DateResult =
  | { ok: true; value: string }
  | { ok: false; type: "date_from_datetime_parsing"; error: string }
  | { ok: false; type: "date_from_datetime_inexact" }
  | { ok: false; type: "date_parsing"; error: string };

const MSG = {
  tooShort: "input is too short",
  extra: "unexpected extra characters at the end of the input",
  dtSep: "invalid datetime separator, expected `T`, `t`, `_` or space",
  dateSep: "invalid date separator, expected `-`",
  year: "invalid character in year",
  month: "invalid character in month",
  day: "invalid character in day",
  timeSep: "invalid time separator, expected `:`",
  hour: "invalid character in hour",
  minute: "invalid character in minute",
  second: "invalid character in second",
  tzSign: "invalid timezone sign",
  tzHour: "invalid timezone hour",
  tzMinute: "invalid timezone minute",
  tzMinuteRange: "timezone minute value is outside expected range of 0-59",
  tzRange: "timezone offset must be less than 24 hours",
  monthRange: "month value is outside expected range of 1-12",
  dayRange: "day value is outside expected range",
  hourRange: "hour value is outside expected range of 0-23",
  minuteRange: "minute value is outside expected range of 0-59",
  secondRange: "second value is outside expected range of 0-59",
  fractionMissing: "second fraction digits missing after `.`",
  tooSmall: "dates before 0000 are not supported as unix timestamps",
  tooLarge: "dates after 9999 are not supported as unix timestamps",
} as const;

class ParseError {
  constructor(readonly message: string) {}
}

const MS_WATERSHED = 20_000_000_000;
const UNIX_0000 = -62_167_219_200;
const UNIX_9999 = 253_402_300_799;

/** Validates a string as a Python `date` (lax mode); the value is the ISO date `YYYY-MM-DD`. */
export function parsePythonDate(text: string): DateResult {
  // speedate works on the UTF-8 bytes; every structural character is ASCII, so a non-ASCII character
  // can only be "invalid" wherever it stands. Its byte length matters for the length checks.
  const b = new TextEncoder().encode(text);
  const date = tryParse(() => parseDatePartial(b));
  if (date && b.length === 10) return pyDate(date);
  // Date::parse_bytes also accepts an exact-day integer timestamp; date_from_datetime gives the same
  // answer for those, so only the datetime path is run below.
  try {
    const dt = parseDateTime(b);
    if (dt.seconds !== 0 || dt.micro !== 0) return { ok: false, type: "date_from_datetime_inexact" };
    return pyDate(dt.date);
  } catch (e) {
    if (e instanceof ParseError) return { ok: false, type: "date_from_datetime_parsing", error: e.message };
    throw e;
  }
}

/** speedate accepts year 0; Python's `date()` does not ("year 0 is out of range", a date_parsing error). */
function pyDate(d: YMD): DateResult {
  return d.year === 0 ? { ok: false, type: "date_parsing", error: "year 0 is out of range" } : { ok: true, value: iso(d) };
}

interface YMD {
  year: number;
  month: number;
  day: number;
}

function tryParse<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch (e) {
    if (e instanceof ParseError) return undefined;
    throw e;
  }
}

const iso = (d: YMD) => `${String(d.year).padStart(4, "0")}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`;

function digit(b: Uint8Array, i: number, message: string): number {
  const c = b[i];
  if (c === undefined || c < 0x30 || c > 0x39) throw new ParseError(message);
  return c - 0x30;
}

/** Date::parse_bytes_partial: `YYYY-MM-DD` at the start, nothing checked after it. */
function parseDatePartial(b: Uint8Array): YMD {
  if (b.length < 10) throw new ParseError(MSG.tooShort);
  const year = digit(b, 0, MSG.year) * 1000 + digit(b, 1, MSG.year) * 100 + digit(b, 2, MSG.year) * 10 + digit(b, 3, MSG.year);
  if (b[4] !== 0x2d) throw new ParseError(MSG.dateSep);
  const month = digit(b, 5, MSG.month) * 10 + digit(b, 6, MSG.month);
  if (b[7] !== 0x2d) throw new ParseError(MSG.dateSep);
  const day = digit(b, 8, MSG.day) * 10 + digit(b, 9, MSG.day);
  let max: number;
  if ([1, 3, 5, 7, 8, 10, 12].includes(month)) max = 31;
  else if ([4, 6, 9, 11].includes(month)) max = 30;
  else if (month === 2) max = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  else throw new ParseError(MSG.monthRange);
  if (day < 1 || day > max) throw new ParseError(MSG.dayRange);
  return { year, month, day };
}

interface ParsedDateTime {
  date: YMD;
  /** Seconds since midnight and microseconds: both 0 for an exact date. */
  seconds: number;
  micro: number;
}

/** DateTime::parse_bytes: RFC 3339 first, else a number read as a unix timestamp. */
function parseDateTime(b: Uint8Array): ParsedDateTime {
  try {
    return parseRfc3339(b);
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    const ts = parseTimestamp(b);
    if (ts === undefined) throw e;
    return ts;
  }
}

function parseRfc3339(b: Uint8Array): ParsedDateTime {
  const date = parseDatePartial(b);
  const sep = b[10];
  if (sep !== 0x54 && sep !== 0x74 && sep !== 0x20 && sep !== 0x5f) throw new ParseError(MSG.dtSep);
  // Time::parse_bytes_offset from byte 11.
  const o = 11;
  if (b.length - o < 5) throw new ParseError(MSG.tooShort);
  const hour = digit(b, o, MSG.hour) * 10 + digit(b, o + 1, MSG.hour);
  if (hour > 23) throw new ParseError(MSG.hourRange);
  if (b[o + 2] !== 0x3a) throw new ParseError(MSG.timeSep);
  const minute = digit(b, o + 3, MSG.minute) * 10 + digit(b, o + 4, MSG.minute);
  if (minute > 59) throw new ParseError(MSG.minuteRange);
  let pos = o + 5;
  let second = 0;
  let micro = 0;
  if (b[pos] === 0x3a) {
    second = digit(b, pos + 1, MSG.second) * 10 + digit(b, pos + 2, MSG.second);
    if (second > 59) throw new ParseError(MSG.secondRange);
    pos += 3;
    if (b[pos] === 0x2e || b[pos] === 0x2c) {
      pos++;
      let n = 0;
      // date_from_datetime truncates past 6 digits (MicrosecondsPrecisionOverflowBehavior::Truncate).
      while (b[pos] !== undefined && b[pos]! >= 0x30 && b[pos]! <= 0x39) {
        if (n < 6) micro = micro * 10 + (b[pos]! - 0x30);
        n++;
        pos++;
      }
      if (n === 0) throw new ParseError(MSG.fractionMissing);
      if (n < 6) micro *= 10 ** (6 - n);
    }
  }
  const c = b[pos];
  if (c !== undefined) {
    if (c === 0x5a || c === 0x7a) pos++;
    else {
      if (c === 0x2b || c === 0x2d) pos++;
      else if (c === 0xe2 && b[pos + 1] === 0x88 && b[pos + 2] === 0x92)
        pos += 3; // U+2212 minus sign
      else throw new ParseError(MSG.tzSign);
      const h = digit(b, pos, MSG.tzHour) * 10 + digit(b, pos + 1, MSG.tzHour);
      pos += 2;
      if (b[pos] === 0x3a) pos++;
      const m = digit(b, pos, MSG.tzMinute) * 10 + digit(b, pos + 1, MSG.tzMinute);
      pos += 2;
      if (m > 59) throw new ParseError(MSG.tzMinuteRange);
      if (h * 3600 + m * 60 >= 86_400) throw new ParseError(MSG.tzRange);
    }
  }
  if (b.length > pos) throw new ParseError(MSG.extra);
  return { date, seconds: hour * 3600 + minute * 60 + second, micro };
}

/** speedate `float_parse_bytes` then `from_timestamp`: digits with an optional sign and fraction. */
function parseTimestamp(b: Uint8Array): ParsedDateTime | undefined {
  const text = new TextDecoder().decode(b);
  const m = /^([+-]?)(\d+)(?:\.(\d*))?$/.exec(text);
  if (!m) return undefined;
  let seconds: number;
  let micro: number;
  if (m[3] === undefined) {
    // An i64; past it speedate gives up on the number and keeps the RFC 3339 error.
    const big = BigInt(`${m[1] === "-" ? "-" : ""}${m[2]}`);
    if (big > 9223372036854775807n || big < -9223372036854775808n) return undefined;
    const abs = big < 0n ? -big : big;
    if (abs > BigInt(MS_WATERSHED)) {
      // Rust integer division truncates; a negative remainder borrows one second.
      let s = big / 1000n;
      let ms = big % 1000n;
      if (ms < 0n) {
        s -= 1n;
        ms += 1000n;
      }
      seconds = Number(s);
      micro = Number(ms) * 1000;
    } else {
      seconds = Number(big);
      micro = 0;
    }
  } else {
    let f = Number(`${m[1]}${m[2]}.${m[3] || "0"}`);
    if (Math.abs(f) > MS_WATERSHED) f /= 1000;
    seconds = Math.floor(f);
    micro = Math.round((f - seconds) * 1_000_000);
  }
  if (seconds < UNIX_0000) throw new ParseError(MSG.tooSmall);
  if (seconds > UNIX_9999) throw new ParseError(MSG.tooLarge);
  const day = Math.floor(seconds / 86_400);
  const d = new Date(day * 86_400_000);
  return {
    date: { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() },
    seconds: seconds - day * 86_400,
    micro,
  };
}
