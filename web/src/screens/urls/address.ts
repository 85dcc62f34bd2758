// The server's SSRF guard (src/platform/net/address.ts) mirrored for the addresses a user types
// literally: a loopback, private, link-local, metadata… address (or `localhost`) is refused in the
// form, in words for the user, when the server does not let its scans reach them. A name that
// resolves to such an address is only known to the server: its scan ends « adresse bloquée ».

/** Why the server refuses an address: the words' keys (urls/words.ts `refused`). */
export type RefusedKind = "loopback" | "private" | "linkLocal" | "metadata" | "reserved";

// The server's ranges, same order (metadata before link-local): [first address, prefix, kind].
const V4: [string, number, RefusedKind][] = [
  ["169.254.169.254", 32, "metadata"],
  ["0.0.0.0", 8, "reserved"],
  ["127.0.0.0", 8, "loopback"],
  ["10.0.0.0", 8, "private"],
  ["172.16.0.0", 12, "private"],
  ["192.168.0.0", 16, "private"],
  ["169.254.0.0", 16, "linkLocal"],
  ["100.64.0.0", 10, "private"],
  ["224.0.0.0", 4, "reserved"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "reserved"],
  ["198.51.100.0", 24, "reserved"],
  ["203.0.113.0", 24, "reserved"],
  ["198.18.0.0", 15, "reserved"],
  ["240.0.0.0", 4, "reserved"],
];

const V6: [string, number, RefusedKind][] = [
  ["fd00:ec2::254", 128, "metadata"],
  ["::", 128, "reserved"],
  ["::1", 128, "loopback"],
  ["fc00::", 7, "private"],
  ["fec0::", 10, "private"],
  ["fe80::", 10, "linkLocal"],
  ["ff00::", 8, "reserved"],
  ["100::", 64, "reserved"],
  ["2001:db8::", 32, "reserved"],
];

function v4Number(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

/** The 16 bytes of an IPv6 literal (with or without a dotted IPv4 tail), or null. */
function v6Bytes(text: string): number[] | null {
  let t = text.toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(t);
  if (tail) {
    const n = v4Number(tail[1] as string);
    if (n === null) return null;
    t = `${t.slice(0, -(tail[1] as string).length)}${Math.floor(n / 65536).toString(16)}:${(n % 65536).toString(16)}`;
  }
  const halves = t.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  const groups = [...head, ...Array(Math.max(0, fill)).fill("0"), ...rest];
  if (groups.length !== 8 || !groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.flatMap((g) => {
    const v = Number.parseInt(g, 16);
    return [v >> 8, v & 0xff];
  });
}

function inV6(bytes: number[], net: string, prefix: number): boolean {
  const base = v6Bytes(net) as number[];
  for (let bit = 0; bit < prefix; bit++) {
    const i = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if (((bytes[i] as number) & mask) !== ((base[i] as number) & mask)) return false;
  }
  return true;
}

function v4Kind(n: number): RefusedKind | null {
  for (const [net, prefix, kind] of V4) {
    const size = 2 ** (32 - prefix);
    const start = v4Number(net) as number;
    if (n >= start && n < start + size) return kind;
  }
  return null;
}

/**
 * Why the server's guard would refuse the host of `url` (as the browser's URL parser reads it, so
 * 0x7f.1 or 2130706433 are 127.0.0.1), or null: a public address, a name, or not a URL.
 */
export function refusedAddress(url: string): RefusedKind | null {
  let host: string;
  try {
    host = new URL(url.trim()).hostname.toLowerCase();
  } catch {
    return null;
  }
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  const v4 = v4Number(host);
  if (v4 !== null) return v4Kind(v4);
  if (!host.startsWith("[")) return null;
  const bytes = v6Bytes(host.slice(1, -1).split("%")[0] as string);
  if (!bytes) return null;
  const zero = (a: number, b: number) => bytes.slice(a, b).every((x) => x === 0);
  const carried = (o: number) =>
    (((bytes[o] as number) * 256 + (bytes[o + 1] as number)) * 256 + (bytes[o + 2] as number)) * 256 + (bytes[o + 3] as number);
  // IPv4 carried in IPv6 (mapped, compatible, NAT64, 6to4) is judged by the IPv4 address.
  if (zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return v4Kind(carried(12));
  if (zero(0, 12) && !zero(12, 16) && !(zero(12, 15) && bytes[15] === 1)) return v4Kind(carried(12));
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(4, 12)) return v4Kind(carried(12));
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return v4Kind(carried(2));
  return V6.find(([net, prefix]) => inV6(bytes, net, prefix))?.[2] ?? null;
}
