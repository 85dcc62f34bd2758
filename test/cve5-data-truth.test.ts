// CVE 5 data truth on real records (test/fixtures/matching/SOURCES.md), parsed and merged as
// stored, then decided as the matcher does for a concrete version: the CNA decides over the CISA
// ADP for its product, `changes` inside ranges, VMware update-style versions against CVE 5 ranges
// and NVD CPE updates.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseCve5 } from "../src/feeds/cve5.js";
import { mergeCve } from "../src/feeds/merge.js";
import { parseNvd11Item } from "../src/feeds/nvd.js";
import type { CveContribution } from "../src/feeds/types.js";
import { decideAffected, type AffectedRow } from "../src/matching/decide.js";
import { itemKeys } from "../src/matching/items.js";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/matching/${name}`, import.meta.url), "utf8");

type Stored = AffectedRow & { product_norm: string | null };

function merged(source: "cve5" | "nvd", data: CveContribution): [string, Stored[]] {
  const m = mergeCve({ cve_id: data.cve_id, contributions: [{ source, data, source_modified: null }], advisories: [] })!;
  return [data.cve_id, m.affected as unknown as Stored[]];
}

const RECORDS = new Map<string, Stored[]>([
  ...["cve5-cna-adp.jsonl", "cve5-changes.jsonl"].flatMap((file) =>
    fixture(file)
      .split("\n")
      .filter(Boolean)
      .map((line) => merged("cve5", parseCve5(JSON.parse(line)) as CveContribution)),
  ),
  merged("nvd", parseNvd11Item(JSON.parse(fixture("nvd11-CVE-2025-22224.json")))),
]);

/** The rows an item naming these products finds (its own name and, through learned equivalences, the others). */
const rows = (id: string, ...products: string[]) => RECORDS.get(id)!.filter((r) => products.includes(r.product_norm ?? ""));
const only = (list: AffectedRow[], origin: string) => list.filter((r) => r.origin === origin);

describe("the CNA decides over the ADP for a product it gives versions of", () => {
  it("dapr CVE-2024-35223 (CNA >= 1.13.0, < 1.13.3; ADP 1.11.2 ≤ 1.13.3): 1.13.3 and 1.12.0 are not alerted, 1.13.2 is", () => {
    const dapr = rows("CVE-2024-35223", "dapr");
    // The ADP range alone holds both: without the rule they alerted.
    for (const v of ["1.13.3", "1.12.0"]) expect(decideAffected(only(dapr, "adp"), "dapr", v), v).not.toBeNull();
    for (const v of ["1.13.3", "1.12.0", "1.11.2"]) expect(decideAffected(dapr, "dapr", v), v).toBeNull();
    expect(decideAffected(dapr, "dapr", "1.13.2")).toMatchObject({ rule: "version_range", origin: "cna", range: "[1.13.0, 1.13.3[" });
  });

  it("sing-box CVE-2023-43644 (CNA < 1.4.5; ADP < 1.5.0-rc.5): 1.4.5 is not alerted, 1.4.4 and 1.5.0-rc.3 are", () => {
    const box = rows("CVE-2023-43644", "sing-box");
    expect(decideAffected(only(box, "adp"), "sagernet", "1.4.5")).not.toBeNull();
    expect(decideAffected(box, "sagernet", "1.4.5")).toBeNull();
    expect(decideAffected(box, "sagernet", "1.4.4")).toMatchObject({ origin: "cna" });
    expect(decideAffected(box, "sagernet", "1.5.0-rc.3")).toMatchObject({ origin: "cna", range: "[1.5.0-beta.1, 1.5.0-rc.4[" });
  });

  it("VMware ESXi CVE-2024-22252 (ADP from 0, the CNA names 7.0 and 8.0): 6.7 is not alerted", () => {
    const esxi = rows("CVE-2024-22252", "vmware_esxi", "esxi");
    expect(decideAffected(only(esxi, "adp"), "vmware", "6.7")).toMatchObject({ origin: "adp", range: "]*, 8.0 U2b[" });
    expect(decideAffected(esxi, "vmware", "6.7")).toBeNull();
    // Where the CNA is not linked to the item's name (no learned equivalence), the ADP speaks.
    expect(decideAffected(rows("CVE-2024-22252", "esxi"), "vmware", "6.7")).toMatchObject({ origin: "adp" });
  });

  it("the ADP range stands where the CNA gives no version: Little Software Stats CVE-2015-10057 (CNA n/a, ADP < 0.2)", () => {
    const stats = rows("CVE-2015-10057", "little_software_stats");
    expect(decideAffected(stats, null, "0.1")).toMatchObject({ rule: "version_range", origin: "adp", range: "]*, 0.2[" });
  });

  it("…where its only range holds nothing: Chrome CVE-2024-5844 ([126.0.6478.54, 126.0.6478.54[; ADP < 126.0.6478.54)", () => {
    const chrome = rows("CVE-2024-5844", "chrome");
    expect(decideAffected(chrome, "google", "125.0.6422.141")).toMatchObject({ origin: "adp", range: "]*, 126.0.6478.54[" });
    expect(decideAffected(chrome, "google", "126.0.6478.54")).toBeNull();
  });

  it('…where its version is text: IBM Cognos Controller CVE-2021-20451 ("10.4.1, 10.4.2, 11.0.0"; ADP three versions)', () => {
    const cognos = rows("CVE-2021-20451", "cognos_controller");
    expect(decideAffected(cognos, "ibm", "10.4.2")).toMatchObject({ origin: "adp", range: "= 10.4.2" });
    expect(decideAffected(cognos, "ibm", "10.4.3")).toBeNull();
  });
});

describe("changes inside version ranges", () => {
  it("HashiCorp Vault CVE-2024-5798 ([0.11.0, 1.16.2[, unaffected at 1.14.13 and 1.15.9): each fix holds in its line", () => {
    const vault = rows("CVE-2024-5798", "vault");
    for (const v of ["1.14.12", "1.15.0", "1.15.8", "1.16.1", "0.11.0"]) expect(decideAffected(vault, "hashicorp", v), v).not.toBeNull();
    for (const v of ["1.14.13", "1.14.20", "1.15.9", "1.16.2", "0.10.9"]) expect(decideAffected(vault, "hashicorp", v), v).toBeNull();
  });

  it("GitHub Enterprise Server CVE-2024-6337 (≤ 3.11.14, unaffected at 3.11.14): 3.11.14 is not alerted, 3.11.13 is", () => {
    const ghes = rows("CVE-2024-6337", "github_enterprise_server");
    expect(decideAffected(ghes, "github", "3.11.14")).toBeNull();
    expect(decideAffected(ghes, "github", "3.11.13")).toMatchObject({ rule: "version_range", range: "[3.11.0, 3.11.14[" });
  });

  it("gRPC CVE-2023-4785 (each change just past its lessThanOrEqual): those ranges stay whole", () => {
    const grpc = rows("CVE-2023-4785", "grpc");
    expect(decideAffected(grpc, "google", "1.53.1")).toMatchObject({ origin: "cna", range: "[1.53.0, 1.53.1]" });
    expect(decideAffected(grpc, "google", "1.53.2")).toBeNull();
    // The CNA's typo "lessThanOrEqual: 154.2" puts its change at 1.54.3 inside [1.54.0, 154.2]: read
    // as written, unaffected from 1.54.3 to 154.2, which vetoes 1.56.1 (affected in [1.56.0, 1.56.1]).
    expect(decideAffected(grpc, "google", "1.56.1")).toBeNull();
  });
});

describe("VMware update-style versions", () => {
  const version = (type: "product" | "cpe", value: string) => itemKeys(type, value).matchVersion!;

  it("vCenter CVE-2024-37079 ([8.0, 8.0 U1e[ and [8.0, 8.0 U2d[ are two update lines): 8.0 U1e is fixed, 8.0 U2c is not", () => {
    const vc = rows("CVE-2024-37079", "vmware_vcenter_server", "vcenter_server");
    expect(decideAffected(vc, "vmware", "8.0 U1d")).toMatchObject({ range: "[8.0, 8.0 U1e[" });
    expect(decideAffected(vc, "vmware", version("product", "vmware:vcenter_server@8.0:update2c"))).toMatchObject({
      range: "[8.0 U2, 8.0 U2d[",
    });
    expect(decideAffected(vc, "vmware", "7.0 Update 3q")).toMatchObject({ range: "[7.0, 7.0 U3r[" });
    for (const v of ["8.0 U1e", "8.0 U2d", "8.0 U3", "7.0 U3r", "7.0U3s"]) expect(decideAffected(vc, "vmware", v), v).toBeNull();
  });

  it("ESXi CVE-2024-22252: ranges ending at image names (ESXi80U1d-23299997, ESXi80U2sb-23305545) compare as updates", () => {
    const esxi = rows("CVE-2024-22252", "vmware_esxi", "esxi");
    expect(decideAffected(esxi, "vmware", version("product", "vmware:esxi@8.0 U1c"))).toMatchObject({ range: "[8.0, 8.0 U1d[" });
    expect(decideAffected(esxi, "vmware", version("cpe", "cpe:2.3:o:vmware:esxi:8.0:update2a:*:*:*:*:*:*"))).toMatchObject({
      range: "[8.0 U2, 8.0 U2b[",
    });
    expect(decideAffected(esxi, "vmware", "7.0 Update 3o")).toMatchObject({ range: "[7.0, 7.0 U3p[" });
    for (const v of ["8.0 U1d", "8.0 U2b", "8.0 U2c", "8.0 U3", "7.0 U3p"]) expect(decideAffected(esxi, "vmware", v), v).toBeNull();
  });

  it("NVD CVE-2025-22224 names each vulnerable update in the CPE (esxi:8.0:update_2c, esxi:8.0:c)", () => {
    const esxi = rows("CVE-2025-22224", "esxi");
    expect(decideAffected(esxi, "vmware", version("product", "vmware:esxi@8.0 U2c"))).toMatchObject({ range: "= 8.0-update_2c" });
    expect(decideAffected(esxi, "vmware", version("product", "vmware:esxi@8.0:update2c"))).toMatchObject({ range: "= 8.0-update_2c" });
    expect(decideAffected(esxi, "vmware", "7.0 Update 3r")).toMatchObject({ range: "= 7.0-update_3r" });
    expect(decideAffected(esxi, "vmware", "8.0c")).toMatchObject({ range: "= 8.0-c" });
    for (const v of ["8.0 U2d", "8.0 U3d", "7.0 U3s"]) expect(decideAffected(esxi, "vmware", v), v).toBeNull();
  });
});
