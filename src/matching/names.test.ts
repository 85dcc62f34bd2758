// Names as the records of ../shared/data write them (cisagov/vulnrichment CNA entries, KEV, NVD CPEs);
// the SQL twins (vigie_product_core, vigie_name_words) were checked equal on every CNA/ADP/KEV name of the corpus.
import { describe, expect, it } from "vitest";
import { nameTails, nameWords, productBase, productCore, vendorKey, vendorWithin } from "./names.js";

describe("a product's display name without its vendor's words, folded", () => {
  it("drops the vendor's leading words: the CPE product is left", () => {
    // CVE-2024-27906 (CNA Apache Software Foundation / Apache Airflow), CVE-2023-20273 (KEV Cisco / Cisco IOS XE Web UI).
    expect(productCore("apache_software_foundation", "apache_airflow")).toBe("airflow");
    expect(productCore("vmware", "vmware_esxi")).toBe("esxi");
    expect(productCore("cisco", "cisco_ios_xe_web_ui")).toBe(vendorKey("ios_xe_web_ui"));
    // CVE-2024-7400: "ESET, spol. s r.o." / "ESET Endpoint Antivirus".
    expect(productCore("eset,_spol._s_r.o.", "eset_endpoint_antivirus")).toBe(vendorKey("endpoint_antivirus"));
  });

  it("folds case, spaces and punctuation: FortiClientEMS (CNA) = FortiClient EMS (KEV), RG-UAC = rg_uac", () => {
    expect(productCore("fortinet", "forticlientems")).toBe(vendorKey("forticlient_ems"));
    expect(productCore("ruijie", "rg-uac")).toBe(vendorKey("rg_uac"));
  });

  it("only leading words: Pulse Connect Secure keeps its 'secure'; a name that is all vendor leaves nothing", () => {
    expect(productCore("pulse_secure", "pulse_connect_secure")).toBe("connectsecure");
    expect(productCore("jenkins_project", "jenkins")).toBeNull();
    expect(productCore(null, "pan-os")).toBe("panos");
  });
});

describe("an item's vendor within a row's vendor", () => {
  it("all its words among the row's: a CNA's legal name holds the short one", () => {
    expect(vendorWithin("apache", "apache_software_foundation")).toBe(true);
    expect(vendorWithin("sudo", "sudo_project")).toBe(true);
    expect(vendorWithin("themepunch", "themepunch_ohg")).toBe(true);
    expect(vendorWithin("palo_alto_networks", "palo_alto_networks_inc")).toBe(true);
  });

  it("not a part of a word, not the reverse, never an empty name", () => {
    expect(vendorWithin("apache", "apachefriends")).toBe(false);
    expect(vendorWithin("apache_software_foundation", "apache")).toBe(false);
    expect(vendorWithin("-", "gnu")).toBe(false);
    expect(vendorWithin(null, "gnu")).toBe(false);
    expect(nameWords("eset,_spol._s_r.o.")).toEqual(["eset", "spol", "s", "r", "o"]);
  });
});

describe("a CNA display name without its edition words", () => {
  it("drops one trailing edition (Open Source, Community [Edition], Server), then the vendor's words", () => {
    // CVE-2024-7347 (F5 / NGINX Open Source), CVE-2021-43943 (Atlassian / Jira Service Management Server),
    // CVE-2024-0916 (Webkul Software / UvDesk Community), KEV CVE-2019-15752 (Docker / Desktop Community Edition).
    expect(productBase("f5", "nginx_open_source")).toBe("nginx");
    expect(productBase("atlassian", "jira_service_management_server")).toBe("jiraservicemanagement");
    expect(productBase("webkul_software", "uvdesk_community")).toBe("uvdesk");
    expect(productBase("docker", "desktop_community_edition")).toBe("desktop");
    expect(productBase("oracle_corporation", "mysql_server")).toBe("mysql");
  });

  it("nothing without an edition word, nor when nothing else is left: Enterprise is another product", () => {
    expect(productBase("f5", "nginx_plus")).toBeNull();
    expect(productBase("hashicorp", "vault_enterprise")).toBeNull();
    expect(productBase("acme", "server")).toBeNull();
    expect(productBase("plex", "plex_server")).toBeNull();
    expect(productBase("acme", "webserver")).toBeNull();
  });
});

describe("the names a display name has without its first words", () => {
  it("VMware vCenter Server (vendor n/a, CVE-2024-38812) → vcenterserver, server", () => {
    expect(nameTails("vmware_vcenter_server")).toEqual(["vcenterserver", "server"]);
    expect(nameTails("draytek_vigorconnect")).toEqual(["vigorconnect"]);
    expect(nameTails("esxi")).toEqual([]);
  });
});
