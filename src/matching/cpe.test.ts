import { readFileSync } from "node:fs";
import { describe, it, expect } from "vitest";
import { cpe22UriTo23, formatCpe23, normalizeName, parseCpe, parseCpe22Uri, parseCpe23, parseCpe23Head } from "./cpe.js";

const FIXTURES = new URL("../../test/fixtures/feeds/", import.meta.url);
const fixture = (rel: string): unknown => JSON.parse(readFileSync(new URL(rel, FIXTURES), "utf8"));

/** Every CPE string of the NVD fixtures (1.1 `cpe23Uri` and 2.0 `criteria`). */
function fixtureCpes(): string[] {
  const out: string[] = [];
  type ConfigNode = { cpe_match?: CpeMatch[]; cpeMatch?: CpeMatch[]; children?: ConfigNode[] };
  type CpeMatch = { cpe23Uri?: string; criteria?: string };
  type Configurations = { configurations: { nodes: ConfigNode[] } };
  const walk = (n: ConfigNode): void => {
    for (const m of n.cpe_match ?? n.cpeMatch ?? []) out.push((m.cpe23Uri ?? m.criteria)!);
    for (const c of n.children ?? []) walk(c);
  };
  for (const f of ["nvd11/CVE-2018-0257.json", "nvd11/CVE-2021-31799.json"]) {
    for (const n of (fixture(f) as Configurations).configurations.nodes) walk(n);
  }
  for (const conf of (fixture("nvd20/CVE-2023-4966.json") as { configurations: { nodes: ConfigNode[] }[] }).configurations)
    for (const n of conf.nodes) walk(n);
  return out;
}

describe("parseCpe23 (CPE 2.3 formatted string, NISTIR 7695 §6.2)", () => {
  it("splits a real NVD CPE into its 11 attributes", () => {
    // nvd20/CVE-2023-4966.json
    expect(parseCpe23("cpe:2.3:a:citrix:netscaler_application_delivery_controller:*:*:*:*:fips:*:*:*")).toEqual({
      part: "a",
      vendor: "citrix",
      product: "netscaler_application_delivery_controller",
      version: "*",
      update: "*",
      edition: "*",
      language: "*",
      sw_edition: "fips",
      target_sw: "*",
      target_hw: "*",
      other: "*",
    });
  });

  it("unescapes quoted characters and does not split on \\:", () => {
    // nvd11/CVE-2018-0257.json
    const ios = parseCpe23("cpe:2.3:o:cisco:ios_xe:15.6\\(2\\)sp:*:*:*:*:*:*:*");
    expect(ios).not.toBeNull();
    expect(ios!.part).toBe("o");
    expect(ios!.version).toBe("15.6(2)sp");
    // a real NVD 1.1 match criterion (Perl's Archive::Tar)
    const tar = parseCpe23("cpe:2.3:a:archive\\:\\:tar_project:archive\\:\\:tar:*:*:*:*:*:perl:*:*");
    expect(tar).not.toBeNull();
    expect(tar!.vendor).toBe("archive::tar_project");
    expect(tar!.product).toBe("archive::tar");
    expect(tar!.target_sw).toBe("perl");
    expect(tar!.other).toBe("*");
  });

  it("keeps NA (-) and ANY (*) as their one-character forms", () => {
    // ADP cpes of cve5/CVE-2024-3400.json
    const p = parseCpe23("cpe:2.3:o:paloaltonetworks:pan-os:11.1.0:-:*:*:*:*:*:*");
    expect(p).toMatchObject({ vendor: "paloaltonetworks", product: "pan-os", version: "11.1.0", update: "-", edition: "*" });
  });

  it("rejects malformed strings", () => {
    expect(parseCpe23("cpe:/o:redhat:enterprise_linux:9::baseos")).toBeNull(); // 2.2 URI
    expect(parseCpe23("cpe:2.3:a:vendor:product:1.0:*:*:*:*:*:*")).toBeNull(); // 10 attributes
    expect(parseCpe23("cpe:2.3:a:vendor:product:1.0:*:*:*:*:*:*:*:*")).toBeNull(); // 12 attributes
    expect(parseCpe23("cpe:2.3:a::product:1.0:*:*:*:*:*:*:*")).toBeNull(); // empty vendor
    expect(parseCpe23("cpe:2.3:x:vendor:product:1.0:*:*:*:*:*:*:*")).toBeNull(); // bad part
    expect(parseCpe23("cpe:2.3:a:vendor:product:1.0:*:*:*:*:*:*:abc\\")).toBeNull(); // dangling escape
    expect(parseCpe23("")).toBeNull();
  });
});

describe("parseCpe23Head", () => {
  it("gives the same vendor/product/version as parseCpe23 on every real fixture CPE", () => {
    const cpes = fixtureCpes();
    expect(cpes.length).toBe(19);
    for (const c of cpes) {
      const full = parseCpe23(c);
      expect(full).not.toBeNull();
      expect(parseCpe23Head(c)).toEqual({ vendor: full!.vendor, product: full!.product, version: full!.version });
    }
  });

  it("rejects what parseCpe23 rejects", () => {
    for (const bad of [
      "cpe:2.3:a:vendor:product:1.0:*:*:*:*:*:*",
      "cpe:2.3:a:vendor:product:1.0:*:*:*:*:*:*:*:*",
      "cpe:2.3:a::product:1.0:*:*:*:*:*:*:*",
      "cpe:2.3:a:vendor:product:1.0:*::*:*:*:*:*",
      "cpe:2.3:q:vendor:product:1.0:*:*:*:*:*:*:*",
      "cpe:/a:vendor:product",
    ]) {
      expect(parseCpe23(bad)).toBeNull();
      expect(parseCpe23Head(bad)).toBeNull();
    }
  });
});

describe("CPE 2.2 URI (NISTIR 7695 §6.1)", () => {
  it("converts Red Hat's URIs from CVE-2024-6387 to formatted strings", () => {
    expect(cpe22UriTo23("cpe:/o:redhat:enterprise_linux:9::baseos")).toBe("cpe:2.3:o:redhat:enterprise_linux:9:*:baseos:*:*:*:*:*");
    expect(cpe22UriTo23("cpe:/a:redhat:openshift:4.13::el8")).toBe("cpe:2.3:a:redhat:openshift:4.13:*:el8:*:*:*:*:*");
    expect(cpe22UriTo23("cpe:/a:redhat:ceph_storage:5")).toBe("cpe:2.3:a:redhat:ceph_storage:5:*:*:*:*:*:*:*");
    expect(cpe22UriTo23("cpe:/o:redhat:enterprise_linux:6")).toBe("cpe:2.3:o:redhat:enterprise_linux:6:*:*:*:*:*:*:*");
  });

  it("unpacks the ~-packed edition and decodes percent-escapes (NISTIR 7695 examples)", () => {
    expect(cpe22UriTo23("cpe:/a:hp:insight_diagnostics:7.4.0.1570::~~online~win2003~x64~")).toBe(
      "cpe:2.3:a:hp:insight_diagnostics:7.4.0.1570:*:*:*:online:win2003:x64:*",
    );
    expect(cpe22UriTo23("cpe:/a:hp:insight_diagnostics:7.4.0.1570:-:~~online~win2003~x64~")).toBe(
      "cpe:2.3:a:hp:insight_diagnostics:7.4.0.1570:-:*:*:online:win2003:x64:*",
    );
    const p = parseCpe22Uri("cpe:/a:foo%5cbar:big%24money_manager_2010");
    expect(p).toMatchObject({ vendor: "foo\\bar", product: "big$money_manager_2010", version: "*" });
    // and the formatted string escapes them again
    expect(formatCpe23(p!)).toBe("cpe:2.3:a:foo\\\\bar:big\\$money_manager_2010:*:*:*:*:*:*:*:*");
    expect(parseCpe23(formatCpe23(p!))).toEqual(p);
  });

  it("rejects malformed URIs", () => {
    expect(parseCpe22Uri("cpe:/z:vendor:product")).toBeNull();
    expect(parseCpe22Uri("cpe:/a:vendor:product:1:2:3:4:5")).toBeNull();
    expect(parseCpe22Uri("cpe:/a:ven%zzdor")).toBeNull();
    expect(cpe22UriTo23("cpe:2.3:a:vendor:product:*:*:*:*:*:*:*:*")).toBeNull();
  });

  it("parseCpe accepts either binding", () => {
    expect(parseCpe("cpe:/o:redhat:enterprise_linux:9::baseos")).toEqual(
      parseCpe23("cpe:2.3:o:redhat:enterprise_linux:9:*:baseos:*:*:*:*:*"),
    );
  });
});

describe("formatCpe23", () => {
  it("round-trips every real fixture CPE", () => {
    for (const c of fixtureCpes()) expect(formatCpe23(parseCpe23(c)!)).toBe(c);
  });
});

describe("normalizeName", () => {
  it("follows the CPE naming style: lower case, whitespace → _, collapsed, trimmed", () => {
    expect(normalizeName("Palo Alto Networks")).toBe("palo_alto_networks");
    expect(normalizeName("PAN-OS")).toBe("pan-os");
    expect(normalizeName("  Red  Hat ")).toBe("red_hat");
    expect(normalizeName("Red Hat Enterprise Linux 9")).toBe("red_hat_enterprise_linux_9");
    expect(normalizeName("foo__bar")).toBe("foo_bar");
    expect(normalizeName("_foo_ _bar_")).toBe("foo_bar");
    expect(normalizeName("Node.js")).toBe("node.js");
    expect(normalizeName("Windows Server, version 1803  (Server Core Installation)")).toBe(
      "windows_server,_version_1803_(server_core_installation)",
    );
    expect(normalizeName("SuperSign\u00a0CMS")).toBe("supersign_cms");
    expect(normalizeName("")).toBe("");
    expect(normalizeName("   ")).toBe("");
  });

  it("matches CPE products but not every CPE vendor (CVE-2024-3400: CNA display vs CISA ADP CPE)", () => {
    // CNA: vendor "Palo Alto Networks", product "PAN-OS"; ADP CPE: paloaltonetworks:pan-os
    expect(normalizeName("PAN-OS")).toBe(parseCpe23("cpe:2.3:o:paloaltonetworks:pan-os:10.2.0:*:*:*:*:*:*:*")!.product);
    expect(normalizeName("Palo Alto Networks")).not.toBe("paloaltonetworks"); // needs an alias table
  });
});
