# Vigie's image: `docker build -t vigie .`, or `docker compose up --build` (compose.yaml).
# Three stages on Debian's slim Node 20: the toolchain (libxmljs2, the CycloneDX XML schema
# validator, is compiled by node-gyp when npm installs it), the build (every dependency, then
# dist/: server, migrations, web application), and the production dependencies, installed by
# `npm ci --omit=dev` with the toolchain. The image that runs copies dist/ and those node_modules
# onto a clean slim base: no compiler, no devDependency, no source, run as the `node` user.
# test/packaging.test.ts checks this file against package.json and compose.yaml (no Docker engine
# runs where the tests run).
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS toolchain
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./

FROM toolchain AS build
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/copy-assets.mjs scripts/
COPY src src
COPY web web
RUN npm run build

FROM toolchain AS production-dependencies
RUN npm ci --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE}
# HOST: reachable from outside the container. VIGIE_DATA_DIR: the embedded database when no
# DATABASE_URL is given (mount a volume there), the feed downloads' cache otherwise.
# MALLOC_ARENA_MAX and the heap ceiling below are those of `npm start` (README, Configuration).
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=8080 \
  VIGIE_DATA_DIR=/var/lib/vigie \
  MALLOC_ARENA_MAX=2
WORKDIR /app
COPY package.json ./
COPY --from=production-dependencies /app/node_modules node_modules
COPY --from=build /app/dist dist
# Read at run time beside dist/: fingerprints and SPDX/CSAF/OpenVEX schemas, the bundled snapshot.
COPY assets assets
COPY fixtures/snapshot fixtures/snapshot
RUN mkdir -p /var/lib/vigie && chown node:node /var/lib/vigie
USER node
EXPOSE 8080
# Alive (the process answers); compose.yaml asks /readyz instead (database, migrations, listener, jobs).
HEALTHCHECK --interval=10s --timeout=3s --start-period=120s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--max-old-space-size=1024", "dist/cli.js", "serve"]
