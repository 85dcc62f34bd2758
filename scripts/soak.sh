#!/usr/bin/env bash
# The soak test (README, Soak test): two api and two worker processes on a fresh database of the
# local PostgreSQL, mixed traffic, feed imports and syncs, a process killed with SIGKILL every
# SOAK_KILL_EVERY seconds (default 60) and one drop of every database connection, for SOAK_MINUTES
# (default 10); then the checks, printed. Exits non-zero when one fails.
#   SOAK_MINUTES=2 SOAK_KILL_EVERY=30 scripts/soak.sh     # what CI runs
# Other settings: DATABASE_URL (the server where the soak's database is created; default the local
# postgres://postgres@127.0.0.1:5432/test), SOAK_RATE (requests per second, default 50),
# SOAK_KEEP=1 (keep the database), SOAK_LOG_LEVEL (the processes' log level, default warn; logs in var/soak/).
set -euo pipefail
cd "$(dirname "$0")/.."
export SOAK_MINUTES="${SOAK_MINUTES:-10}"
node scripts/ensure-build.mjs
exec node_modules/.bin/tsx scripts/soak/main.ts
