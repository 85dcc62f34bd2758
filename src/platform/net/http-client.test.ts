import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedIpv4, forbiddenAddress } from "./address.js";
import { createHttpClient, OutboundError, type HttpClientOptions } from "./http-client.js";

let server: Server;
let base: string;
let port: number;
const seen: { method: string; url: string; body: string; host: string }[] = [];
const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, body, host: req.headers.host! });
      const handler = routes[req.url!.split("?")[0]!];
      if (handler) handler(req, res);
      else res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const client = (o: Partial<HttpClientOptions> = {}) => createHttpClient({ allowPrivate: false, timeoutMs: 2000, ...o });

async function refusal(p: Promise<unknown>): Promise<OutboundError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OutboundError);
  return err as OutboundError;
}

describe("forbiddenAddress", () => {
  it.each([
    ["127.0.0.1", "de bouclage"],
    ["10.1.2.3", "privée"],
    ["172.31.255.255", "privée"],
    ["192.168.0.10", "privée"],
    ["169.254.169.254", "métadonnées cloud"],
    ["169.254.1.1", "lien-local"],
    ["100.64.0.1", "CGNAT partagée"],
    ["0.0.0.0", "non spécifiée"],
    ["224.0.0.251", "multidiffusion"],
    ["255.255.255.255", "réservée"],
    ["::1", "de bouclage"],
    ["::", "non spécifiée"],
    ["fd12:3456::1", "privée"],
    ["fc00::1", "privée"],
    ["fe80::1%eth0", "lien-local"],
    ["fd00:ec2::254", "métadonnées cloud"],
    ["ff02::1", "multidiffusion"],
    ["::ffff:127.0.0.1", "de bouclage"],
    ["::ffff:7f00:1", "de bouclage"],
    ["::ffff:169.254.169.254", "métadonnées cloud"],
    ["64:ff9b::a00:1", "privée"],
    ["2002:c0a8:0101::1", "privée"],
    ["not-an-ip", "réservée"],
  ])("%s is refused as %s", (address, kind) => {
    expect(forbiddenAddress(address)).toBe(kind);
  });

  it.each(["93.184.215.14", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "2002:0808:0808::1"])(
    "%s is public",
    (address) => {
      expect(forbiddenAddress(address)).toBeNull();
    },
  );

  it("reads the IPv4 address inside IPv6 forms", () => {
    expect(embeddedIpv4("::ffff:10.0.0.1")).toBe("10.0.0.1");
    expect(embeddedIpv4("::ffff:a00:1")).toBe("10.0.0.1");
    expect(embeddedIpv4("2606:4700::1")).toBeNull();
    expect(embeddedIpv4("::1")).toBeNull();
  });
});

describe("createHttpClient", () => {
  it("refuses a local server without VIGIE_ALLOW_PRIVATE_TARGETS, before any connection", async () => {
    const before = seen.length;
    const err = await refusal(client().call(null, { method: "GET", url: `${base}/hello` }));
    expect(err.code).toBe("adresse_interdite");
    expect(err.retryable).toBe(false);
    expect(err.message).toContain("127.0.0.1");
    expect(err.message).toContain("de bouclage");
    expect(seen.length).toBe(before);
  });

  it("reaches it when private targets are allowed, and posts the body", async () => {
    const res = await client({ allowPrivate: true })({ method: "POST", url: `${base}/hello`, body: '{"a":1}' });
    expect(res.status).toBe(200);
    expect(res.body).toBe("ok");
    expect(seen.at(-1)).toMatchObject({ method: "POST", url: "/hello", body: '{"a":1}' });
  });

  it("refuses the IPv4-mapped IPv6 form of loopback", async () => {
    const err = await refusal(client()({ method: "GET", url: `http://[::ffff:127.0.0.1]:${port}/` }));
    expect(err.code).toBe("adresse_interdite");
    expect(err.message).toContain("de bouclage");
  });

  it("refuses a name that resolves to a private address, and one with any private address among public ones", async () => {
    const resolveTo =
      (...addresses: string[]) =>
      async () =>
        addresses.map((address) => ({ address, family: 4 as const }));
    let err = await refusal(client({ resolve: resolveTo("10.0.0.5") })({ method: "GET", url: "http://intranet.example/" }));
    expect(err.message).toContain("intranet.example mène à une adresse privée (10.0.0.5)");
    err = await refusal(client({ resolve: resolveTo("93.184.215.14", "127.0.0.1") })({ method: "GET", url: "http://mixed.example/" }));
    expect(err.code).toBe("adresse_interdite");
  });

  it("connects to the address it checked, not to a second resolution of the name", async () => {
    // The system cannot resolve .invalid: reaching the server proves the pinned address was used.
    const resolve = async () => [{ address: "127.0.0.1", family: 4 as const }];
    const res = await client({ allowPrivate: true, resolve })({ method: "GET", url: `http://receiver.invalid:${port}/pinned` });
    expect(res.status).toBe(200);
    expect(seen.at(-1)).toMatchObject({ url: "/pinned", host: `receiver.invalid:${port}` });
  });

  it("checks every redirect: a redirect to the metadata address is refused", async () => {
    routes["/to-metadata"] = (_req, res) => res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
    // The first hop is let through by exception; the redirect's target is not.
    const err = await refusal(client({ allowAddresses: ["127.0.0.1"] })({ method: "GET", url: `${base}/to-metadata` }));
    expect(err.code).toBe("adresse_interdite");
    expect(err.message).toContain("métadonnées cloud");
  });

  it("checks every redirect: a redirect to another private address is refused", async () => {
    routes["/to-private"] = (_req, res) => res.writeHead(307, { location: `http://127.0.0.2:${port}/hello` }).end();
    const err = await refusal(client({ allowAddresses: ["127.0.0.1"] })({ method: "POST", url: `${base}/to-private`, body: "x" }));
    expect(err.code).toBe("adresse_interdite");
    expect(err.message).toContain("127.0.0.2");
  });

  it("follows at most 3 redirects, keeping the method on 307 and turning a POST into a GET on 302", async () => {
    routes["/r307"] = (_req, res) => res.writeHead(307, { location: "/r302" }).end();
    routes["/r302"] = (_req, res) => res.writeHead(302, { location: "/final" }).end();
    routes["/final"] = (req, res) => res.writeHead(200).end(`final ${req.method}`);
    const c = client({ allowPrivate: true });
    const before = seen.length;
    const res = await c({ method: "POST", url: `${base}/r307`, body: "payload" });
    expect(res).toMatchObject({ status: 200, body: "final GET", redirects: 2, url: `${base}/final` });
    expect(seen.slice(before).map((s) => `${s.method} ${s.url} ${s.body}`)).toEqual([
      "POST /r307 payload",
      "POST /r302 payload",
      "GET /final ",
    ]);

    routes["/loop"] = (_req, res) => res.writeHead(301, { location: "/loop" }).end();
    const err = await refusal(c({ method: "GET", url: `${base}/loop` }));
    expect(err.code).toBe("trop_de_redirections");
  });

  it("caps the body it reads", async () => {
    routes["/big"] = (_req, res) => res.writeHead(200).end("x".repeat(100_000));
    const res = await client({ allowPrivate: true, maxBodyBytes: 1000 })({ method: "GET", url: `${base}/big` });
    expect(res.body.length).toBe(1000);
    expect(res.truncated).toBe(true);
  });

  it("gives up after its timeout, as a retryable failure", async () => {
    routes["/silent"] = () => undefined; // never answers
    const err = await refusal(client({ allowPrivate: true, timeoutMs: 200 })({ method: "GET", url: `${base}/silent` }));
    expect(err.code).toBe("delai_depasse");
    expect(err.retryable).toBe(true);
  });

  it("reports a refused connection as a retryable network error, and other schemes as invalid", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    let err = await refusal(client({ allowPrivate: true })({ method: "GET", url: `http://127.0.0.1:${freePort}/` }));
    expect(err).toMatchObject({ code: "reseau", retryable: true });
    err = await refusal(client({ allowPrivate: true })({ method: "GET", url: "file:///etc/passwd" }));
    expect(err.code).toBe("url_invalide");
  });

  it("stops when the caller's signal aborts", async () => {
    const controller = new AbortController();
    const p = client({ allowPrivate: true })({ method: "GET", url: `${base}/silent`, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const err = await refusal(p);
    expect(err).toMatchObject({ code: "annule", retryable: false });
  });
});

describe("createHttpClient over HTTPS", () => {
  it("refuses an unverified certificate by default; with readTls reads the answer and reports the leaf certificate", async () => {
    const { localServer, selfSigned } = await import("../../../test/urls-servers.js");
    const s = await localServer(
      { "/": (_req, res) => res.writeHead(200).end("tls ok") },
      await selfSigned({
        cn: "localhost",
        org: "Client Test CA",
        notBefore: new Date("2024-01-01T00:00:00Z"),
        notAfter: new Date("2099-01-01T00:00:00Z"),
      }),
    );
    try {
      const err = await refusal(client({ allowPrivate: true })({ method: "GET", url: `${s.base}/` }));
      expect(err.code).toBe("reseau");
      expect(err.errno).toBe("DEPTH_ZERO_SELF_SIGNED_CERT");
      const res = await client({ allowPrivate: true, readTls: true })({ method: "GET", url: `${s.base}/` });
      expect(res.body).toBe("tls ok");
      expect(res.tls).toMatchObject({
        authorized: false,
        error: "DEPTH_ZERO_SELF_SIGNED_CERT",
        cert: { subject: "localhost", issuer: "Client Test CA", validTo: new Date("2099-01-01T00:00:00Z") },
      });
    } finally {
      await s.close();
    }
  });

  it("keeps a URL's credentials to itself when told so", async () => {
    routes["/who"] = (req, res) => res.writeHead(200).end(req.headers.authorization ?? "none");
    const url = `http://user:secret@127.0.0.1:${port}/who`;
    expect((await client({ allowPrivate: true })({ method: "GET", url })).body).toMatch(/^Basic /);
    expect((await client({ allowPrivate: true, urlCredentials: false })({ method: "GET", url })).body).toBe("none");
  });
});
