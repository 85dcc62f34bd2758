/**
 * Version ordering for vulnerability matching: one comparator for the many version syntaxes found
 * in CVE 5 records, NVD CPE ranges and OSV advisories (semver, PEP 440, Maven, RPM/Debian, vendor
 * schemes such as PAN-OS hotfixes or OpenSSH portable releases). It never throws: a string that
 * follows no known scheme is still ordered, token by token.
 *
 * A version is read as `[epoch:]core[suffix]`, after trimming and lower-casing (so "RC1" = "rc1"):
 *
 * 1. Epoch (Debian/RPM `1:2.3-4`): compared first, numerically; a missing epoch is 0.
 * 2. A leading "v" (or "go", for Go toolchain versions) before a digit is ignored.
 * 3. Build metadata `+…` is ignored (semver), except when the record has an epoch or the part after
 *    "+" is a Debian/Ubuntu revision marker (`+deb12u3`, `+ubuntu1`, `+dfsg`…): there it counts as
 *    a later revision, so a Debian security update sorts after the version it patches.
 * 4. Core: the leading dotted (or `_`-joined) numbers, compared numerically with missing parts read
 *    as 0 (10.2.9 < 10.2.10, 1.0 == 1.0.0, 1.8.0_281 > 1.8.0).
 * 5. Suffix: everything after the core, as words and numbers. Its FIRST token decides whether the
 *    version sorts before or after its core:
 *    - pre-release words, lowest first: `~` (Debian) < `-0` (semver/Go "lowest pre-release",
 *      the `1.19.0-0` of Go vulndb ranges, and Go pseudo-versions) < dev = nightly = canary (PEP 440
 *      `.devN`) < alpha = a = ea < beta = b < milestone = m < rc = c = cr = pre = preview < snapshot
 *      (Maven: a snapshot is the build just before its release) < the release itself;
 *    - neutral words are dropped: ga, final, release, stable (Maven `1.0.Final`, `5.3.0.RELEASE`);
 *    - everything else sorts after the release: p/pl/patch (OpenSSH `9.6p1`), post/rev/r
 *      (PEP 440 `.post1`), h/hotfix/hf (PAN-OS `10.2.9-h1`), u/update (Java `8u281`), sp (also
 *      written "Service Pack": `9.1 Service Pack 3` = `9.1-sp3`; likewise "Cumulative Update" = cu
 *      and "Fix Pack" = fp, as CPE update fields write them), and any
 *      other word, ordered alphabetically: OpenSSL letter releases `1.0.2k` < `1.0.2l` < `1.0.2za`;
 *    - a number after a hyphen is a package revision / build (RPM `2.3-4.el8`, Citrix `13.1-49.15`,
 *      PEP 440 `1.0-1` = `1.0.post1`), so also after the release.
 *    The single letters a, b, c, m, p, r, u, h are qualifiers only when a number follows (`4.2a1`,
 *    `9.6p1`, `10.2.9-h1`); alone they are letter releases (`1.0.2a`, `1.0.2h`), which is the only
 *    reading that keeps OpenSSL in order (PEP 440 always writes the number in normalised form).
 * 6. Later suffix tokens follow semver precedence with the same word ranks: numbers compare
 *    numerically; more fields sort after fewer (`rc.1` < `rc.1.1`, `el9` < `el9_4.1`) except for
 *    the development markers ~, dev and snapshot, which sort before what precedes them
 *    (`1.0a1.dev1` < `1.0a1`, `1.0-rc1-SNAPSHOT` < `1.0-rc1`); a number sorts before a pre-release
 *    word (semver `alpha.1` < `alpha.beta`) and after any other word (RPM `38.1.el9` > `38.el9`).
 *
 * Go pseudo-versions (`v0.0.0-20210220033148-5ea612d1eb83`, `vX.Y.Z-0.<ts>-<hash>`,
 * `vX.Y.Z-pre.0.<ts>-<hash>`) lose their commit hash and compare by timestamp, as the semver
 * pre-releases they are. Known deviations: a purely numeric semver pre-release other than `-0`
 * (`1.0.0-1`) reads as a revision, i.e. after `1.0.0`; unknown pre-release words (`-next.1`)
 * sort after the release; a bare PEP 440 `1.0a` (no number) is an OpenSSL-style letter release.
 */

/** Ranks: negative sorts before the release, positive after; see the module comment. */
const R_TILDE = -9;
const R_MIN = -8;
const R_DEV = -7;
const R_SNAPSHOT = -2;
const R_POST = 1;

/** Canonical name and rank of known qualifiers; rank 0 words are dropped. */
const QUALIFIERS = new Map<string, readonly [string, number]>();
function qualifiers(words: readonly string[], canonical: string, rank: number): void {
  for (const w of words) QUALIFIERS.set(w, [canonical, rank]);
}
qualifiers(["dev", "nightly", "canary"], "dev", R_DEV);
qualifiers(["alpha", "a", "ea"], "alpha", -6);
qualifiers(["beta", "b"], "beta", -5);
qualifiers(["milestone", "m"], "milestone", -4);
qualifiers(["rc", "c", "cr", "pre", "preview"], "rc", -3);
qualifiers(["snapshot"], "snapshot", R_SNAPSHOT);
qualifiers(["ga", "final", "release", "stable"], "", 0);
qualifiers(["post", "rev", "r"], "post", R_POST);
qualifiers(["p", "pl", "patch"], "p", R_POST);
qualifiers(["h", "hotfix", "hf"], "h", R_POST);
qualifiers(["u", "update"], "u", R_POST);

const MULTIWORD = /service[\s_.-]*pack|cumulative[\s_.-]*update|fix[\s_.-]*pack/g;
const MULTIWORD_SHORT: Record<string, string> = { s: "sp", c: "cu", f: "fp" };

/** Single letters that are also letter releases (OpenSSL 1.0.2a…) unless a number follows. */
const AMBIGUOUS_LETTERS = new Set(["a", "b", "c", "m", "p", "r", "u", "h"]);

/** After "+", these start a Debian/Ubuntu revision, not semver build metadata. */
const DEBIAN_PLUS = /^(?:deb\d|ubuntu|dfsg|ds|really|nmu|esm)/;

type Tok = { num: true; v: string } | { num: false; v: string; rank: number };

interface Parsed {
  epoch: string;
  core: string[];
  suffix: Tok[];
}

/** Digits without leading zeros, so numbers of any length compare as strings. */
function digits(s: string): string {
  const t = s.replace(/^0+/, "");
  return t === "" ? "0" : t;
}

function cmpNum(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function parse(raw: string): Parsed {
  let s = raw.trim().toLowerCase();
  let epoch = "0";
  const em = /^(\d+):(.+)$/.exec(s);
  if (em) {
    epoch = digits(em[1]!);
    s = em[2]!;
  }
  s = s.replace(/^(?:v|go)(?=\d)/, "");
  // Two-word qualifiers as CPE update fields abbreviate them: "9.1 Service Pack 3" (Trend Micro) is
  // 9.1:sp3, "8.2 Cumulative Update 8" 8.2:cu8, "11.5 Fix Pack 7" 11.5:fp7.
  s = s.replace(MULTIWORD, (w) => MULTIWORD_SHORT[w[0]!]!);
  const plus = s.indexOf("+");
  if (plus >= 0 && !em && !DEBIAN_PLUS.test(s.slice(plus + 1))) s = s.slice(0, plus);
  // Go pseudo-versions: drop the commit hash; "X.Y.Z-<ts>" becomes the pre-release "X.Y.Z-0.<ts>".
  s = s.replace(/-(\d{14})-[0-9a-f]{12}$/, "-0.$1").replace(/\.(\d{14})-[0-9a-f]{12}$/, ".$1");

  const raws: { v: string; kind: "num" | "word" | "tilde"; sep: string }[] = [];
  let sep = "";
  for (const m of s.matchAll(/(\d+)|([a-z]+)|(~)|([^a-z0-9~]+)/g)) {
    if (m[4] !== undefined) sep += m[4];
    else {
      raws.push({ v: m[0], kind: m[1] !== undefined ? "num" : m[2] !== undefined ? "word" : "tilde", sep });
      sep = "";
    }
  }

  const core: string[] = [];
  let i = 0;
  for (; i < raws.length; i++) {
    const t = raws[i]!;
    if (t.kind !== "num" || (i === 0 ? t.sep !== "" : t.sep !== "." && t.sep !== "_")) break;
    core.push(digits(t.v));
  }

  const suffix: Tok[] = [];
  for (; i < raws.length; i++) {
    const t = raws[i]!;
    const next = raws[i + 1];
    if (t.kind === "tilde") suffix.push({ num: false, v: "~", rank: R_TILDE });
    else if (t.kind === "num") {
      if (suffix.length === 0) {
        // "-0" alone or before ".": the lowest pre-release (semver, Go). Any other leading number
        // is a revision/build, like an explicit ".post".
        if (t.sep.includes("-") && digits(t.v) === "0" && (next === undefined || next.sep === ".")) {
          suffix.push({ num: false, v: "", rank: R_MIN });
          continue;
        }
        suffix.push({ num: false, v: "post", rank: R_POST });
      }
      suffix.push({ num: true, v: digits(t.v) });
    } else {
      const q = QUALIFIERS.get(t.v);
      const isQualifier = q !== undefined && (!AMBIGUOUS_LETTERS.has(t.v) || next?.kind === "num");
      if (!isQualifier) suffix.push({ num: false, v: t.v, rank: R_POST });
      else if (q[1] !== 0) suffix.push({ num: false, v: q[0], rank: q[1] });
    }
  }
  return { epoch, core, suffix };
}

/** Sign of a lone suffix token against the end of the other version's suffix. */
function vsEnd(t: Tok, index: number): number {
  if (t.num) return 1;
  if (index === 0) return t.rank < 0 ? -1 : 1;
  return t.rank <= R_DEV || t.rank === R_SNAPSHOT ? -1 : 1;
}

function cmpTok(x: Tok, y: Tok): number {
  if (x.num && y.num) return cmpNum(x.v, y.v);
  if (!x.num && !y.num) {
    if (x.rank !== y.rank) return x.rank < y.rank ? -1 : 1;
    return x.v < y.v ? -1 : x.v > y.v ? 1 : 0;
  }
  // Number vs word: never at index 0, where parse() always puts a word.
  const word = (x.num ? y : x) as Extract<Tok, { num: false }>;
  const numFirst = word.rank < 0 ? -1 : 1;
  return x.num ? numFirst : -numFirst;
}

function compareParsed(a: Parsed, b: Parsed): number {
  const e = cmpNum(a.epoch, b.epoch);
  if (e !== 0) return e;
  for (let i = 0; i < Math.max(a.core.length, b.core.length); i++) {
    const c = cmpNum(a.core[i] ?? "0", b.core[i] ?? "0");
    if (c !== 0) return c;
  }
  for (let i = 0; i < Math.max(a.suffix.length, b.suffix.length); i++) {
    const x = a.suffix[i];
    const y = b.suffix[i];
    if (x === undefined) return y === undefined ? 0 : -vsEnd(y, i);
    if (y === undefined) return vsEnd(x, i);
    const c = cmpTok(x, y);
    if (c !== 0) return c;
  }
  return 0;
}

/*
 * Parsed versions by their text (read-only once parsed). Matching compares an item's version with
 * every bound of its product's rows, and the same texts recur across items and CVEs (NVD lists each
 * release of linux_kernel thousands of times): parsing was the first cost of the full matching
 * (1.0 s of 8.5 s CPU on 4,000 items). Bounded: cleared when full.
 */
const PARSED = new Map<string, Parsed>();
const PARSED_MAX = 100_000;

function parseCached(raw: string): Parsed {
  let p = PARSED.get(raw);
  if (p === undefined) {
    if (PARSED.size >= PARSED_MAX) PARSED.clear();
    p = parse(raw);
    PARSED.set(raw, p);
  }
  return p;
}

/** Negative if a sorts before b, 0 if equivalent, positive if after. See the module comment. */
export function compareVersions(a: string, b: string): number {
  try {
    return compareParsed(parseCached(String(a ?? "")), parseCached(String(b ?? "")));
  } catch {
    // Defensive only: parse() has no throwing path, but callers rely on "never throws".
    const x = String(a);
    const y = String(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
}

export interface VersionRange {
  from: string | null;
  fromInclusive: boolean;
  to: string | null;
  toInclusive: boolean;
}

const NOT_CONCRETE = new Set(["", "*", "-", "all", "n/a", "unspecified"]);

/** False for the placeholders sources use instead of a version ("*", "-", "n/a", "unspecified"…). */
export function isConcreteVersion(v: string | null | undefined): boolean {
  return typeof v === "string" && !NOT_CONCRETE.has(v.trim().toLowerCase());
}

/**
 * Whether `version` lies in `r`. A null or placeholder bound ("*", "-", "") leaves that side open;
 * from === to with both ends inclusive is an exact version. A placeholder `version` is in no range:
 * it names no release, so it cannot be shown to be affected.
 */
export function inRange(version: string, r: VersionRange): boolean {
  if (!isConcreteVersion(version)) return false;
  if (isConcreteVersion(r.from)) {
    const c = compareVersions(version, r.from!);
    if (c < 0 || (c === 0 && !r.fromInclusive)) return false;
  }
  if (isConcreteVersion(r.to)) {
    const c = compareVersions(version, r.to!);
    if (c > 0 || (c === 0 && !r.toInclusive)) return false;
  }
  return true;
}
