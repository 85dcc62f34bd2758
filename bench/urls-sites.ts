/**
 * The sites scanned by bench/urls.ts, in their own process (their CPU is not the scanner's): one
 * HTTP and one HTTPS server (a self-signed certificate valid a year, made by openssl) serving page
 * `i` of bench/urls-pages.ts at /p/i. Prints {"http", "https"} (the bases) once listening.
 */
import { localServer, selfSigned } from "../test/urls-servers.js";
import { benchPage, type BenchPage } from "./urls-pages.js";

const N = Number(process.env.BENCH_URLS ?? 500);
const pages: BenchPage[] = Array.from({ length: N }, (_, i) => benchPage(i));
const routes = Object.fromEntries(
  pages.map((p, i) => [
    `/p/${i}`,
    (_req: unknown, res: import("node:http").ServerResponse) =>
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", ...p.headers }).end(p.html),
  ]),
);
const http = await localServer(routes);
const https = await localServer(
  routes,
  await selfSigned({
    cn: "localhost",
    org: "Bench CA",
    notBefore: new Date(Date.now() - 86_400_000),
    notAfter: new Date(Date.now() + 365 * 86_400_000),
  }),
);
console.log(JSON.stringify({ http: http.base, https: https.base }));
