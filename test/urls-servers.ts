import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttps } from "node:https";
import type { AddressInfo } from "node:net";
import { generate } from "selfsigned";

/**
 * Local HTTP and HTTPS servers for the URL scan tests and benchmark, with self-signed certificates
 * generated in JavaScript (the selfsigned package, over WebCrypto) with the validity asked for, an
 * expired certificate included: no openssl binary needed.
 */

export interface Cert {
  key: string;
  cert: string;
}

/** A self-signed certificate (EC P-256, SAN `cn`, and 127.0.0.1 for localhost) for `cn`, issued by organization `org`, valid from `notBefore` to `notAfter`. */
export async function selfSigned(opts: { cn: string; org: string; notBefore: Date; notAfter: Date }): Promise<Cert> {
  const pems = await generate(
    [
      { name: "organizationName", value: opts.org },
      { name: "commonName", value: opts.cn },
    ],
    { keyType: "ec", curve: "P-256", algorithm: "sha256", notBeforeDate: opts.notBefore, notAfterDate: opts.notAfter },
  );
  return { key: pems.private, cert: pems.cert };
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface LocalServer {
  server: Server;
  /** http://127.0.0.1:port or https://127.0.0.1:port */
  base: string;
  port: number;
  /** Requests received, by path. */
  seen: { url: string; headers: IncomingMessage["headers"] }[];
  close(): Promise<void>;
}

/** An HTTP (or, with `tls`, HTTPS) server on 127.0.0.1 answering `routes` by path (404 otherwise). */
export async function localServer(routes: Record<string, Handler>, tls?: Cert): Promise<LocalServer> {
  const seen: LocalServer["seen"] = [];
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    seen.push({ url: req.url!, headers: req.headers });
    const h = routes[req.url!.split("?")[0]!];
    if (h) h(req, res);
    else res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  };
  const server = tls ? createHttps({ key: tls.key, cert: tls.cert }, handle) : createHttp(handle);
  // Keep-alive off: the scanner opens a connection per request; the tests close the server promptly.
  server.keepAliveTimeout = 1;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    base: `${tls ? "https" : "http"}://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * A page of a WordPress site as such sites serve them (generator meta tag, jQuery and its Migrate
 * plugin from wp-includes, Bootstrap from jsDelivr, Google Tag Manager), `repeat` posts long.
 */
export function wordpressPage(repeat = 20): string {
  const head = `<!DOCTYPE html>
<html lang="fr-FR">
<head>
<meta charset="UTF-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="WordPress 6.4.2" />
<title>Blog &#8211; Exemple</title>
<link rel="stylesheet" id="wp-block-library-css" href="https://blog.example.org/wp-includes/css/dist/block-library/style.min.css?ver=6.4.2" media="all" />
<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/bootstrap@5.3.2/dist/css/bootstrap.min.css">
<script src="https://blog.example.org/wp-includes/js/jquery/jquery.min.js?ver=3.7.1" id="jquery-core-js"></script>
<script src="https://blog.example.org/wp-includes/js/jquery/jquery-migrate.min.js?ver=3.4.1" id="jquery-migrate-js"></script>
<script src="https://cdn.jsdelivr.net/npm/bootstrap@5.3.2/dist/js/bootstrap.bundle.min.js"></script>
<script async src="https://www.googletagmanager.com/gtag/js?id=G-ABCDEF1234"></script>
</head>
<body class="home blog wp-embed-responsive">
<div class="wp-site-blocks">
`;
  const post = (i: number) => `<div class="wp-block-group"><article id="post-${i}" class="post-${i} post type-post status-publish">
<h2 class="wp-block-post-title"><a href="https://blog.example.org/2024/01/${i}/billet-${i}/">Billet numéro ${i}</a></h2>
<div class="wp-block-post-excerpt"><p class="wp-block-post-excerpt__excerpt">Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris.</p></div>
<figure class="wp-block-post-featured-image"><img width="800" height="450" src="https://blog.example.org/wp-content/uploads/2024/01/image-${i}.jpg" alt="" loading="lazy" /></figure>
</article></div>
`;
  return `${head}${Array.from({ length: repeat }, (_, i) => post(i)).join("")}</div>
<script src="https://blog.example.org/wp-includes/js/dist/interactivity.min.js?ver=6.4.2" id="wp-interactivity-js"></script>
</body>
</html>
`;
}
