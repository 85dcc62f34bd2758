/**
 * Proof-of-concept (public exploit) evidence per CVE, from two sources:
 *
 * - **trickest/cve** (MIT): one JSONL line per CVE, derived from the per-CVE Markdown files:
 *   `{"cve","products","versions","cwes","description","reference_pocs":[],"github_pocs":[]}`
 *   → {@link parseTrickestLine}.
 * - **nomi-sec/PoC-in-GitHub**: a per-CVE file `YYYY/CVE-….json` holding a JSON array of GitHub
 *   repository objects → {@link parseNomiSecFile}; or the JSONL re-packaging
 *   `{"cve","repos":[…]}` (openpoc's verbatim nomi-sec arrays) → {@link parseNomiSecLine}.
 *
 * Both give a {@link PocRecord}. {@link exploitMaturity} turns the evidence into a scale.
 */
import { RecordError } from "./types.js";

export interface PocRecord {
  cve_id: string;
  source: "trickest" | "nomi-sec";
  /**
   * URLs counted as proof-of-concept evidence, deduplicated: GitHub repositories (without the
   * generic aggregators, see {@link AGGREGATOR_REPOS}) and, for trickest, reference URLs on
   * exploit-code hosts (Exploit-DB `/exploits/`, Packet Storm `/files/`, GitHub gists).
   */
  urls: string[];
  /** Earliest known publication of a PoC (ISO 8601), or null (trickest has no dates). */
  first_seen: string | null;
  /**
   * trickest's other "Reference" URLs, not counted as PoCs: they are mostly NVD references
   * (vendor advisories, Oracle CPU pages, VulDB, mailing lists…). Empty for nomi-sec.
   */
  references: string[];
  /** nomi-sec: each repository's GitHub stars (stargazers_count) when the record gives them, by URL. */
  stars?: Record<string, number>;
}

export type ExploitMaturity = "none" | "poc" | "functional" | "weaponised" | "in_the_wild";

/** Number of independent PoCs from which exploitation is considered "functional". */
export const FUNCTIONAL_POC_THRESHOLD = 3;

/**
 * Repositories that mention CVEs in bulk without being a proof of concept for one of them:
 * CVE/NVD data mirrors, PoC-link indexes (nomi-sec/PoC-in-GitHub and its copies), scanner
 * template packs, "awesome" lists, daily digests, course notes and scan reports.
 *
 * How the list was made: counting, over the whole trickest corpus
 * (trickest/cve @ 9572286f, 2026-08-22: 167,093 CVEs, 274,676 GitHub links), the number of
 * distinct CVEs each repository is listed for, and keeping every repository listed for
 * **≥ 100 CVEs** (229 repositories holding 149,410 of the 274,676 links — 54 %; e.g.
 * fkie-cad/nvd-json-data-feeds 21,454 CVEs, 20142995/nuclei-templates 21,295,
 * ARPSyndicate/cvemon 17,910, nomi-sec/PoC-in-GitHub 5,671). A repository that would be "the
 * PoC" for a hundred different CVEs is a collection, not independent evidence (even template
 * packs and exploit collections only copy PoCs found elsewhere). Added by hand: the bulk CVE
 * mirrors trickest/cve, CVEProject/cvelistV5 and cvelist, github/advisory-database,
 * cisagov/vulnrichment and cisagov/kev-data. Keys are lower-case `owner/name`.
 * See also {@link AGGREGATOR_NAME_RE} for copies of the big mirrors under other owners.
 */
// biome-ignore format: a list of names, read as a block
export const AGGREGATOR_REPOS: ReadonlySet<string> = new Set([
  "fkie-cad/nvd-json-data-feeds", "20142995/nuclei-templates", "arpsyndicate/cvemon",
  "arpsyndicate/cve-scores", "cyb3r-w0lf/nuclei-template-collection", "nomi-sec/poc-in-github",
  "w4zu/debian_security", "arpsyndicate/kenzer-templates", "ostorlab/kev", "nainsec/cve-list",
  "0xt11/cve-poc", "ostorlab/known_exploited_vulnerbilities_detectors",
  "developer3000s/poc-in-github", "hectorgie/poc-in-github", "qazbnm456/awesome-cve-poc",
  "lnick2023/nicenice", "xbl3/awesome-cve-poc_qazbnm456", "n0-traces/cve_monitor", "soosmile/poc",
  "zecool/cve", "whooamii/poc_to_review", "nainsec/cve-poc-in-github",
  "plzheheplztrying/cve_monitor", "youwizard/cve-poc", "manas3c/cve-poc", "whoforget/cve-poc",
  "k0mi-tg/cve-poc", "syrti/poc_to_review", "trhacknon/pocingit", "puddincat/githubrepospider",
  "0xcybery/cve-t4pdf", "404notf0und/cve-flow", "karimhabush/cyberowl", "tanjiti/sec_profile",
  "cvedb/awesome-cve-repo", "sexybeast233/secbooks", "thdusdl1219/cve-study",
  "d4n-sec/d4n-sec.github.io", "andir/nixos-issue-db-example", "chnzzh/openssl-cve-lib",
  "cvedb/poc-list", "threekiii/awesome-poc", "ghosttroops/top",
  "xiaomingx/awesome-poc-for-red-team", "fokypoky/places-list", "20142995/sectool", "cvedb/top",
  "elsfa7-110/kenzer-templates", "hktalent/top", "mr-xn/penetration_testing_poc",
  "pedr0alencar/vlab-metasploitable2", "mrash/afl-cve", "lekctut/sdb-hw-13-01",
  "gh-ost00/iot-vulnerable_poc", "laphilosophie/iot-vulnerable", "mudongliang/linuxflaw",
  "oneoy/cve-", "palindromelabs/java-deserialization-cves", "lions2012/penetration_testing_poc",
  "zhanpengliu-tencent/medium-cve", "xairy/linux-kernel-exploitation", "nyxazrael/goby_poc",
  "himmelaward/goby_poc", "z0fhack/goby_poc", "cku-heise/euvd-api-doc",
  "ycdxsb/windowsprivilegeescalation", "xuetusummer/penetration_testing_poc",
  "seal-community/patches", "weeka10/-hktalent-top", "j1ezds/vulnerability-wiki-page",
  "cyberanand1337x/bug-bounty-2022", "akaganeite/cve4pp", "jbmihoub/all-poc", "jerry123s/all-poc",
  "intercladire/awesome-poc", "cnetsec/south-america-cve-hall", "alphaseclab/sec-daily-2019",
  "tinyniko/android_bulletin_notes", "hktalent/bug-bounty", "cruxer8mech/idk",
  "kaychenvip/vulnerability-poc", "0day404/vulnerability-poc", "20142995/goby",
  "adegoodyer/kubernetes-admin-toolkit", "eeeeeeeeee-code/poc", "oly0/vulnerability",
  "lern0n/lernon-poc", "laoa1573/wy876", "runwhen-contrib/helm-charts", "ums91/cisa_bot",
  "12442rf/poc", "dmw11525708/wiki", "adysec/poc", "cve-hunters/cve-hunters", "threekiii/cve",
  "winterwolf32/cve-s---penetration_testing_poc-", "packetinside/cisa_bot",
  "alphaseclab/sec-daily-2020", "yembors64632/cve_monitor_public", "jev770/badmoodle-scan",
  "tunz/js-vuln-db", "otravidaahora2t/js-vuln-db", "wy876/poc", "kdn111/linux-kernel-exploitation",
  "khanhdn111/linux-kernel-exploitation", "knd06/linux-kernel-exploitation",
  "khnhdz/linux-kernel-exploitation", "khanhhdz/linux-kernel-exploitation",
  "ndk191/linux-kernel-exploitation", "ssr-111/linux-kernel-exploitation",
  "wkhnh06/linux-kernel-exploitation", "ndk06/linux-kernel-exploitation",
  "khanhhdz06/linux-kernel-exploitation", "addicjanov/js-vuln-db", "tzwlhack/vulnerability",
  "iemotion/poc", "greenberglinken/2023hvv_1", "pokerfacett/my_cve_credit",
  "khanhnd123/linux-kernel-exploitation", "khanhdz-06/linux-kernel-exploitation",
  "khanhdz191/linux-kernel-exploitation", "edgesecurityteam/vulnerability",
  "miraitowa70/poc-notes", "sobinge/nuclei-templates", "neoonix/5attack",
  "dbutter/whitehat_public", "furious992/hw13-01", "threekiii/vulhub-reproduce",
  "houjingyi233/macos-ios-system-security", "googleprojectzero/winafl", "zhivarev/13-01-hw",
  "smabramov/vulnerabilities-and-attacks-on-information-systems", "mrt2h/dz", "nikulinms/13-01-hw",
  "dokukin1/metasploitable", "iknowmyname/nmap-scans-m2", "zzzwtf/db-13-01",
  "brittanykuhn/javascript-tutorial", "adelianitzsche/java-deserialization-cheat-sheet",
  "grrrdog/java-deserialization-cheat-sheet", "yrime/winaflcustommutate",
  "ssumachai/cs182-project", "huike007/penetration_poc", "huisetiankong478/penetration_poc",
  "artisan-lab/rust-memory-safety-bugs", "team-bt5/winafl-rdp",
  "bacon-tomato-spaghetti/winafl-rdp", "bakery312/vulhub-reproduce", "farrhouq/inpt-report",
  "linxloop/fork_poc", "zulloper/cve-poc",
  "mishmashclone/grrrdog-java-deserialization-cheat-sheet", "merlinepedra/nuclei-templates",
  "arrestx/--poc", "merlinepedra25/nuclei-templates", "diraltvein/memory-corruption-examples",
  "afine-com/research", "anquanscan/sec-tools", "samaritin/osint", "0xmarcio/cve",
  "danielebert/winafl", "jiayy/android_vuln_poc-exp", "2lambda123/cve-mitre",
  "nu11secur1ty/cve-mitre", "8-cm/kube-dump", "cisp-pte/poc-20241008-sec-fork", "wy876/wiki",
  "pawan-shivarkar/pawan-shivarkar", "drewtwitchell/scancompare", "oogasawa/utility-security",
  "hardik05/winafl-powermopt", "offensive-penetration-security/opsec-hall-of-fame",
  "pranav0408/winafl", "yixinshuwu/penetration_testing_poc", "wooluo/poc00", "whosga/mywiki",
  "admin772/poc", "pawan-shivarkar/list-of-cve-s-", "ztk-009/penetration_poc",
  "cnhack3r/penetration_poc", "echogin404/gongkaishouji", "yedada-wei/gongkaishouji",
  "pentration/gongkaishouji", "hasee2018/penetration_testing_poc", "password520/penetration_poc",
  "echogin404/-", "yedada-wei/-", "tyro-shan/gongkaishouji", "cvjark/poc",
  "superlink996/chunqiuyunjingbachang", "trojanazhen/self_back",
  "bygregonline/devsec-fastapi-report", "yuan08o/pocs", "adminlove520/pocwiki",
  "20142995/pocsuite3", "11notes/docker-paperless-ngx", "pen4uin/vulnerability-research",
  "ascotbe/kernelhub", "0day404/hv-2024-poc", "pen4uin/vulnerability-research-list",
  "pen4uin/awesome-vulnerability-research",
  "g1san/agents-for-vulnerable-dockers-and-related-benchmarks", "attilaszia/linux-iot-cves",
  "seviezhou/kraken", "m3n0sd0n4ld/ucve", "taielab/awesome-hacking-lists", "huisetiankong478/poc",
  "huike007/poc", "zhengminghui1234/enfuzzer", "sardchen/enfuzzer", "cyllective/cves",
  "superfish9/pt", "wjlin0/poc-doc", "apit-review-account/apit-tool", "youcans896768/apiv_tool",
  "anonymous364872/rapier_tool", "apif-review/apif_tool_2024", "pjqwudi/my_vuln", "cc8700619/poc",
  "awrrays/framevul", "egi-federation/svg-advisories", "marklogic/marklogic-docker",
  "0xor0ne/awesome-list", "giterlizzi/secdb-feeds", "kolaarionvull/awesome-list",
  "p3gecth8ujiyfvkb7lin/awesome-list", "afetter618/wordpress-pentest", "starcrossportal/scalpel",
  "nu11secur1ty/cve-nu11secur1ty", "trickest/cve", "cveproject/cvelistv5", "cveproject/cvelist",
  "github/advisory-database", "cisagov/vulnrichment", "cisagov/kev-data",
]);

/**
 * Repository names that are copies of the big CVE/PoC mirrors whatever their owner
 * (forks of nomi-sec/PoC-in-GitHub, cvelistV5, NVD JSON feeds, the GitHub advisory database).
 */
export const AGGREGATOR_NAME_RE = /^(poc-in-github|cvelistv5|cvelist|nvd-json-data-feeds|advisory-database|vulnrichment|kev-data)$/;

const CVE_RE = /^CVE-\d{4}-\d{4,19}$/;

/** `owner/name` (lower-case) of a github.com URL, or null for other URLs. */
export function githubRepoKey(url: string): string | null {
  const m = /^https?:\/\/(?:www\.)?github\.com\/([^/?#\s]+)\/([^/?#\s]+)/i.exec(url.trim());
  if (!m) return null;
  const name = m[2]!.replace(/\.git$/i, "");
  return `${m[1]!.toLowerCase()}/${name.toLowerCase()}`;
}

/** True for a github.com URL pointing into one of the generic aggregator repositories. */
export function isAggregatorRepo(url: string): boolean {
  const key = githubRepoKey(url);
  if (key === null) return false;
  if (AGGREGATOR_REPOS.has(key)) return true;
  return AGGREGATOR_NAME_RE.test(key.slice(key.indexOf("/") + 1));
}

/** Reference hosts whose URLs are exploit code rather than advisories. */
function isExploitReference(url: string): boolean {
  return (
    /^https?:\/\/(?:www\.)?exploit-db\.com\/exploits\/\d+/i.test(url) ||
    /^https?:\/\/(?:www\.)?packetstormsecurity\.(?:com|org)\/files\//i.test(url) ||
    /^https?:\/\/gist\.github\.com\/[^/]+\/[0-9a-f]+/i.test(url)
  );
}

function cveId(v: unknown, what: string): string {
  if (typeof v !== "string") throw new RecordError(`missing ${what}`);
  const id = v.trim().toUpperCase();
  if (!CVE_RE.test(id)) throw new RecordError(`invalid ${what} ${JSON.stringify(v)}`);
  return id;
}

function stringArray(v: unknown, what: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new RecordError(`${what} is not an array`);
  const out: string[] = [];
  for (const x of v) {
    if (typeof x !== "string") throw new RecordError(`${what} holds a non-string`);
    const t = x.trim();
    if (t !== "") out.push(t);
  }
  return out;
}

/** Case-insensitive (for GitHub) / exact (otherwise) de-duplication, first spelling kept. */
function pushUnique(out: string[], seen: Set<string>, url: string): void {
  const gh = githubRepoKey(url);
  const key = gh !== null && /^https?:\/\/(?:www\.)?github\.com\/[^/]+\/[^/]+\/?$/i.test(url) ? `gh:${gh}` : url.replace(/\/+$/, "");
  if (seen.has(key)) return;
  seen.add(key);
  out.push(url);
}

/**
 * One line of the trickest JSONL (already JSON-parsed). The GitHub PoCs are kept minus the
 * aggregators; reference PoCs on exploit hosts are added to `urls`, the others go to
 * `references`.
 */
export function parseTrickestLine(v: unknown): PocRecord {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw new RecordError("trickest line is not an object");
  }
  const o = v as Record<string, unknown>;
  const cve_id = cveId(o.cve, "cve");
  const urls: string[] = [];
  const seen = new Set<string>();
  for (const u of stringArray(o.github_pocs, "github_pocs")) {
    if (!isAggregatorRepo(u)) pushUnique(urls, seen, u);
  }
  const references: string[] = [];
  const refSeen = new Set<string>();
  for (const u of stringArray(o.reference_pocs, "reference_pocs")) {
    if (isAggregatorRepo(u)) continue;
    if (isExploitReference(u)) pushUnique(urls, seen, u);
    else pushUnique(references, refSeen, u);
  }
  return { cve_id, source: "trickest", urls, first_seen: null, references };
}

function isoDate(v: unknown): string | null {
  if (typeof v !== "string" || v.trim() === "") return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

function nomiSecRecord(cve_id: string, repos: unknown): PocRecord {
  if (!Array.isArray(repos)) throw new RecordError("nomi-sec repos is not an array");
  const urls: string[] = [];
  const seen = new Set<string>();
  let first: string | null = null;
  const stars: Record<string, number> = {};
  for (const r of repos) {
    if (typeof r !== "object" || r === null) throw new RecordError("nomi-sec repo is not an object");
    const repo = r as Record<string, unknown>;
    // A fork is a copy of another PoC, not independent evidence.
    if (repo.fork === true) continue;
    let url: string | null = typeof repo.html_url === "string" ? repo.html_url.trim() : null;
    if (!url && typeof repo.full_name === "string") url = `https://github.com/${repo.full_name}`;
    if (!url) throw new RecordError("nomi-sec repo without html_url");
    if (isAggregatorRepo(url)) continue;
    pushUnique(urls, seen, url);
    if (typeof repo.stargazers_count === "number" && Number.isInteger(repo.stargazers_count)) stars[url] = repo.stargazers_count;
    const created = isoDate(repo.created_at);
    if (created !== null && (first === null || created < first)) first = created;
  }
  return { cve_id, source: "nomi-sec", urls, first_seen: first, references: [], ...(Object.keys(stars).length ? { stars } : {}) };
}

/**
 * One nomi-sec/PoC-in-GitHub file: `fileName` is its name or path (`2024/CVE-2024-0001.json`),
 * which carries the CVE id; `v` the parsed JSON array of repository objects.
 */
export function parseNomiSecFile(fileName: string, v: unknown): PocRecord {
  const m = /(CVE-\d{4}-\d{4,19})(?:\.json)?$/i.exec(fileName.trim());
  if (!m) throw new RecordError(`no CVE id in file name ${JSON.stringify(fileName)}`);
  return nomiSecRecord(cveId(m[1], "file name CVE id"), v);
}

/** One line `{"cve","repos":[…]}` of the nomi-sec JSONL (already JSON-parsed). */
export function parseNomiSecLine(v: unknown): PocRecord {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw new RecordError("nomi-sec line is not an object");
  }
  const o = v as Record<string, unknown>;
  return nomiSecRecord(cveId(o.cve, "cve"), o.repos);
}

/**
 * Exploit maturity of a CVE, from the strongest evidence available:
 *
 * - `in_the_wild` — exploited in the wild: the CVE is in CISA KEV (`is_kev`);
 * - `weaponised` — an exploit-framework module exists (Metasploit, or an equivalent weaponised
 *   exploit: `has_metasploit_or_weaponized`);
 * - `functional` — at least {@link FUNCTIONAL_POC_THRESHOLD} (3) independent public PoCs
 *   (`poc_count`: distinct PoC URLs across sources, aggregators excluded);
 * - `poc` — at least one public PoC;
 * - `none` — no known public exploit.
 *
 * Threshold check on the data (trickest 2026-08-22 parsed by {@link parseTrickestLine}, KEV
 * 2025.08.25): of the 167,093 CVEs, 70.9 % have no PoC URL, 20.1 % one, 4.4 % two and 4.6 % three
 * or more; of the 1,398 KEV CVEs present in trickest, 56.8 % have three or more (a 12×
 * enrichment) against 67.7 % / 9.0 % of all CVEs with a threshold of two. Three keeps
 * "functional" rare outside exploited CVEs, so the suggested threshold is kept. Without the
 * aggregator filter almost every CVE would have 2+ "PoCs".
 */
export function exploitMaturity(input: { is_kev: boolean; poc_count: number; has_metasploit_or_weaponized?: boolean }): ExploitMaturity {
  if (input.is_kev) return "in_the_wild";
  if (input.has_metasploit_or_weaponized) return "weaponised";
  const n = Number.isFinite(input.poc_count) ? input.poc_count : 0;
  if (n >= FUNCTIONAL_POC_THRESHOLD) return "functional";
  if (n >= 1) return "poc";
  return "none";
}
