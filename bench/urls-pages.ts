/**
 * Pages for the URL scan benchmark: three kinds of site as they are served (a WordPress blog, a
 * Drupal site, a Next.js shop), each with the meta tags, script URLs and headers of its real
 * software, grown to a chosen size with the repeated structure such pages have (posts, teasers,
 * product cards). Deterministic: page `i` is always the same.
 */
import { wordpressPage } from "../test/urls-servers.js";

export interface BenchPage {
  headers: Record<string, string>;
  html: string;
}

const drupalHead = `<!DOCTYPE html>
<html lang="fr" dir="ltr">
<head>
<meta charset="utf-8" />
<meta name="Generator" content="Drupal 10 (https://www.drupal.org)" />
<meta name="MobileOptimized" content="width" />
<meta name="viewport" content="width=device-width, initial-scale=1.0" />
<link rel="stylesheet" media="all" href="/sites/default/files/css/css_Xy3.css?delta=0&amp;language=fr&amp;theme=olivero" />
<script src="/core/assets/vendor/jquery/jquery.min.js?v=3.7.1"></script>
<script src="/core/misc/drupal.js?v=10.1.6"></script>
<script src="/core/misc/drupalSettingsLoader.js?v=10.1.6"></script>
<title>Accueil | Mairie de Exemple</title>
</head>
<body class="path-frontpage">
<div class="dialog-off-canvas-main-canvas" data-off-canvas-main-canvas>
`;
const drupalTeaser = (i: number) => `<article data-history-node-id="${i}" class="node node--type-article node--view-mode-teaser">
<h2 class="node__title"><a href="/actualites/article-${i}" rel="bookmark"><span class="field field--name-title">Conseil municipal du ${(i % 28) + 1} mars</span></a></h2>
<div class="node__content"><div class="field field--name-body field--type-text-with-summary"><p>Le compte rendu de la séance est disponible. Ordre du jour : budget, voirie, écoles, associations, culture et sport.</p></div>
<img src="/sites/default/files/styles/large/public/2024-03/photo-${i}.jpg" width="480" height="320" alt="" loading="lazy" /></div>
</article>
`;

const nextHead = `<!DOCTYPE html><html lang="fr"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width"/>
<title>Boutique</title><meta name="next-head-count" content="3"/>
<link rel="preload" href="/_next/static/css/2a7c8a1d.css" as="style"/><link rel="stylesheet" href="/_next/static/css/2a7c8a1d.css" data-n-g=""/>
<script src="/_next/static/chunks/polyfills-c67a75d1b6f99dc8.js" defer=""></script>
<script src="/_next/static/chunks/webpack-38cee4c0e358b1a3.js" defer=""></script>
<script src="/_next/static/chunks/framework-5429a50ba5373c56.js" defer=""></script>
<script src="/_next/static/chunks/main-930f1a9bdc5b4a7d.js" defer=""></script>
<script src="/_next/static/chunks/pages/_app-8a7d7b9e3b1e0f2c.js" defer=""></script>
<script src="https://js.stripe.com/v3/" async=""></script>
</head><body><div id="__next"><main class="shop">
`;
const nextCard = (
  i: number,
) => `<div class="card" data-product="${i}"><a href="/produits/${i}"><img alt="Produit ${i}" src="/_next/image?url=%2Fimages%2Fp${i}.webp&amp;w=640&amp;q=75" width="320" height="320" decoding="async" loading="lazy"/></a><h3 class="card__title">Produit numéro ${i}</h3><p class="card__price">${(i % 97) + 9},90 €</p><button type="button" class="btn btn-primary">Ajouter au panier</button></div>
`;

/** Target size of page `i`: 50 to 500 KB, spread evenly. */
export function pageSize(i: number): number {
  return (50 + ((i * 7919) % 451)) * 1024;
}

function grow(head: string, block: (i: number) => string, tail: string, size: number): string {
  const parts = [head];
  let length = head.length + tail.length;
  for (let i = 0; length < size; i++) {
    const b = block(i);
    parts.push(b);
    length += b.length;
  }
  parts.push(tail);
  return parts.join("");
}

/** Page `i` with the headers its server sends. */
export function benchPage(i: number): BenchPage {
  const size = pageSize(i);
  switch (i % 3) {
    case 0: {
      const one = wordpressPage(1).length;
      const post = wordpressPage(2).length - one || 700;
      return {
        headers: {
          server: "nginx/1.24.0",
          "x-powered-by": "PHP/8.2.7",
          link: '<https://blog.example.org/wp-json/>; rel="https://api.w.org/"',
        },
        html: wordpressPage(Math.max(1, Math.round((size - one) / post))),
      };
    }
    case 1:
      return {
        headers: { server: "Apache/2.4.57 (Debian)", "x-generator": "Drupal 10 (https://www.drupal.org)", "x-drupal-cache": "HIT" },
        html: grow(drupalHead, drupalTeaser, "</div>\n</body>\n</html>\n", size),
      };
    default:
      return {
        headers: { "x-powered-by": "Next.js", "set-cookie": "__stripe_mid=abc; path=/" },
        html: grow(
          nextHead,
          nextCard,
          '</main></div><script id="__NEXT_DATA__" type="application/json">{"props":{},"page":"/"}</script></body></html>',
          size,
        ),
      };
  }
}
