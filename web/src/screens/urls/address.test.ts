import { describe, expect, it } from "vitest";
import { refusedAddress } from "./address";

// The ranges of the server's guard (src/platform/net/address.ts, its cases in http-client.test.ts): the
// same verdicts for the addresses a user can type literally.
describe("refusedAddress mirrors the server's SSRF guard for literal addresses", () => {
  it("refuses loopback, private, link-local, metadata and reserved IPv4 addresses", () => {
    expect(refusedAddress("http://127.0.0.1:8080/")).toBe("loopback");
    expect(refusedAddress("http://localhost/")).toBe("loopback");
    expect(refusedAddress("https://app.localhost/")).toBe("loopback");
    expect(refusedAddress("http://10.1.2.3/")).toBe("private");
    expect(refusedAddress("http://172.31.255.255/")).toBe("private");
    expect(refusedAddress("http://192.168.1.10/admin")).toBe("private");
    expect(refusedAddress("http://100.64.0.1/")).toBe("private");
    expect(refusedAddress("http://169.254.169.254/latest/meta-data/")).toBe("metadata");
    expect(refusedAddress("http://169.254.1.1/")).toBe("linkLocal");
    expect(refusedAddress("http://0.0.0.0/")).toBe("reserved");
  });
  it("reads the address as the browser does: decimal and hexadecimal forms are 127.0.0.1", () => {
    expect(refusedAddress("http://2130706433/")).toBe("loopback");
    expect(refusedAddress("http://0x7f.1/")).toBe("loopback");
  });
  it("refuses IPv6 loopback, unique-local, link-local, and IPv4 carried in IPv6", () => {
    expect(refusedAddress("http://[::1]/")).toBe("loopback");
    expect(refusedAddress("http://[fd12:3456::1]/")).toBe("private");
    expect(refusedAddress("http://[fe80::1]/")).toBe("linkLocal");
    expect(refusedAddress("http://[::ffff:127.0.0.1]/")).toBe("loopback");
    expect(refusedAddress("http://[64:ff9b::a00:1]/")).toBe("private");
    expect(refusedAddress("http://[2002:c0a8:101::]/")).toBe("private");
    expect(refusedAddress("http://[fd00:ec2::254]/")).toBe("metadata");
  });
  it("lets public addresses, names and non-URLs through (the server decides)", () => {
    expect(refusedAddress("https://www.cert.ssi.gouv.fr/")).toBeNull();
    expect(refusedAddress("http://8.8.8.8/")).toBeNull();
    expect(refusedAddress("http://172.32.0.1/")).toBeNull();
    expect(refusedAddress("http://[2606:4700::1111]/")).toBeNull();
    expect(refusedAddress("not a url")).toBeNull();
  });
});
