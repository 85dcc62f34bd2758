#!/usr/bin/env bash
# The soak test (README, Soak test): two api and two worker processes on a fresh database of the
# local PostgreSQL, mixed traffic, feed imports and syncs, a process killed with SIGKILL every
# SOAK_KILL_EVERY seconds (default 60) and one drop of every database connection, for SOAK_MINUTES
# (default 10); then the checks, printed. Exits non-zero when one fails.
#   SOAK_MINUTES=2 SOAK_KILL_EVERY=30 scripts/soak.sh     # what CI runs
# Other settings: DATABASE_URL (the server where the soak's database is created; default the local
# postgres://postgres@127.0.0.1:5432/test), SOAK_RATE (requests per second, default 50),
# SOAK_KEEP=1 (keep the database), SOAK_LOG_LEVEL (the processes' log level, default warn; logs in var/soak/),
# VIGIE_SHARED_DATA (the shared data directory: the 2024 CVE List file and the KEV catalog are read from
# it; default ../shared/data beside the checkout, so set it when the checkout is elsewhere).
# The soak's database is dropped whatever ends it (a failed set-up, Ctrl-C), unless SOAK_KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${VIGIE_SHARED_DATA:-../shared/data}
if [ ! -f "$data/cve-json5/vulnrichment-2024.jsonl.gz" ] || [ ! -f "$data/kev/known_exploited_vulnerabilities.json" ]; then
  echo "soak: no shared data at $data (cve-json5/vulnrichment-2024.jsonl.gz, kev/known_exploited_vulnerabilities.json):" >&2
  echo "      set VIGIE_SHARED_DATA to the shared/data directory (the default holds when the checkout sits beside shared/)" >&2
  exit 2
fi
export VIGIE_SHARED_DATA=$(cd "$data" && pwd)
export SOAK_MINUTES="${SOAK_MINUTES:-10}"
node scripts/ensure-build.mjs
exec node_modules/.bin/tsx scripts/soak/main.ts
