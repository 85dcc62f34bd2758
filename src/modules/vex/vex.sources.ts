import { isCveId } from "../../feeds/merge.js";

/**
 * The database a vulnerability id belongs to, with the page that shows it: what the three VEX
 * serializers say of each id (CycloneDX `source`, CSAF `ids[].system_name`, the alias list). An
 * alert is keyed by its CVE id, or by the advisory's own id when no advisory names a CVE
 * (src/feeds/merge.ts): a GO-, GHSA-, PYSEC- or RUSTSEC- id is not NVD's, and a consumer that
 * matches on source and id (Dependency-Track does) only finds it under its own database. Pure.
 */

export interface VulnSource {
  /** The database's name, as it names itself. */
  name: string;
  /** The id's page (the PyPA database has no page per id: its advisories are shown by OSV). */
  url: string;
}

/** Prefix → database; any other id is OSV's (the aggregator every one of these feeds into). */
const BY_PREFIX: Record<string, (id: string) => VulnSource> = {
  CVE: (id) => ({ name: "NVD", url: `https://nvd.nist.gov/vuln/detail/${id}` }),
  GHSA: (id) => ({ name: "GitHub Advisory Database", url: `https://github.com/advisories/${id}` }),
  GO: (id) => ({ name: "Go Vulnerability Database", url: `https://pkg.go.dev/vuln/${id}` }),
  PYSEC: (id) => ({ name: "PyPA Advisory Database", url: `https://osv.dev/vulnerability/${id}` }),
  RUSTSEC: (id) => ({ name: "RustSec Advisory Database", url: `https://rustsec.org/advisories/${id}.html` }),
};

export function sourceOf(id: string): VulnSource {
  const prefix = /^([A-Z]+)-/.exec(id)?.[1] ?? "";
  if (prefix === "CVE" && !isCveId(id)) return osv(id);
  return (BY_PREFIX[prefix] ?? osv)(id);
}

function osv(id: string): VulnSource {
  return { name: "OSV", url: `https://osv.dev/vulnerability/${encodeURIComponent(id)}` };
}
