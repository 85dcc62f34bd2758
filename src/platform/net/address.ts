import { BlockList, isIP } from "node:net";

/**
 * Which IP addresses an outbound request to a user-given URL must never reach: the machine
 * itself, the private networks around it, link-local and cloud metadata endpoints, and the
 * addresses that are not unicast destinations at all. IPv6 forms that carry an IPv4 address
 * (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16)
 * are judged by the IPv4 address they carry, so ::ffff:127.0.0.1 is loopback.
 */

/** Why an address is refused; each reads after "adresse " in a message. */
export type ForbiddenKind =
  | "métadonnées cloud"
  | "de bouclage"
  | "privée"
  | "lien-local"
  | "CGNAT partagée"
  | "non spécifiée"
  | "multidiffusion"
  | "réservée";

// Order matters: the first range that holds the address names the reason (metadata before link-local).
const V4: [string, number, ForbiddenKind][] = [
  ["169.254.169.254", 32, "métadonnées cloud"],
  ["0.0.0.0", 8, "non spécifiée"],
  ["127.0.0.0", 8, "de bouclage"],
  ["10.0.0.0", 8, "privée"],
  ["172.16.0.0", 12, "privée"],
  ["192.168.0.0", 16, "privée"],
  ["169.254.0.0", 16, "lien-local"],
  ["100.64.0.0", 10, "CGNAT partagée"],
  ["224.0.0.0", 4, "multidiffusion"],
  ["192.0.0.0", 24, "réservée"], // IETF protocol assignments
  ["192.0.2.0", 24, "réservée"], // documentation (TEST-NET-1..3)
  ["198.51.100.0", 24, "réservée"],
  ["203.0.113.0", 24, "réservée"],
  ["198.18.0.0", 15, "réservée"], // benchmarking
  ["240.0.0.0", 4, "réservée"], // future use and 255.255.255.255 broadcast
];

const V6: [string, number, ForbiddenKind][] = [
  ["fd00:ec2::254", 128, "métadonnées cloud"], // AWS IMDS over IPv6
  ["::", 128, "non spécifiée"],
  ["::1", 128, "de bouclage"],
  ["fc00::", 7, "privée"], // unique local addresses, RFC 4193
  ["fec0::", 10, "privée"], // deprecated site-local
  ["fe80::", 10, "lien-local"],
  ["ff00::", 8, "multidiffusion"],
  ["100::", 64, "réservée"], // discard prefix
  ["2001:db8::", 32, "réservée"], // documentation
];

function lists(ranges: [string, number, ForbiddenKind][], family: "ipv4" | "ipv6") {
  return ranges.map(([net, prefix, kind]) => {
    const list = new BlockList();
    list.addSubnet(net, prefix, family);
    return { list, kind };
  });
}
const V4_LISTS = lists(V4, "ipv4");
const V6_LISTS = lists(V6, "ipv6");

/** The 16 bytes of an IPv6 address (any textual form, with or without a dotted IPv4 tail). */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase().split("%")[0]!;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail[1]!.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, -tail[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.includes("::") ? text.split("::") : [text, undefined];
  const h = head ? head.split(":") : [];
  const r = rest !== undefined && rest !== "" ? rest.split(":") : [];
  const groups = rest === undefined ? h : [...h, ...Array(8 - h.length - r.length).fill("0"), ...r];
  return groups.flatMap((g) => {
    const v = Number.parseInt(g, 16);
    return [v >> 8, v & 0xff];
  });
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), if any. */
export function embeddedIpv4(address: string): string | null {
  const b = ipv6Bytes(address);
  const v4 = (o: number) => `${b[o]}.${b[o + 1]}.${b[o + 2]}.${b[o + 3]}`;
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(12); // ::ffff:a.b.c.d
  if (zero(0, 12) && !zero(12, 16) && !(zero(12, 15) && b[15] === 1)) return v4(12); // ::a.b.c.d (not ::, ::1)
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return v4(12); // 64:ff9b::/96
  if (b[0] === 0x20 && b[1] === 0x02) return v4(2); // 2002:AABB:CCDD::/48
  return null;
}

/**
 * Why `address` (an IP literal) must not be reached, or null when it is a public unicast address.
 * Anything that is not an IP literal is refused as "réservée": the caller resolves names first.
 */
export function forbiddenAddress(address: string): ForbiddenKind | null {
  const family = isIP(address);
  if (family === 4) return V4_LISTS.find((r) => r.list.check(address, "ipv4"))?.kind ?? null;
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4) return forbiddenAddress(v4);
    const bare = address.split("%")[0]!;
    return V6_LISTS.find((r) => r.list.check(bare, "ipv6"))?.kind ?? null;
  }
  return "réservée";
}
