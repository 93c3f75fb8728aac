#!/bin/sh
# Garbage collections per 1,000 answers of one route (issue 24): the API of this checkout under
# `node --trace-gc`, asked for the route REQUESTS times (1000) by CONNECTIONS (4) concurrent
# fetch loops after 50 warm-up requests. A fixed count, not a duration: the collections per page
# do not depend on how much CPU a loaded host leaves the run. Prints one JSON line: API CPU µs per
# request (/proc), scavenges and mark-compacts per 1,000 requests, their pause ms per request.
#
#   flock /tmp/ri-bench.lock sh bench/api/gc.sh postgres://…/ri_bench_api '/indexer/tx/v1/txs?pagination.limit=100'
set -eu
url=$1 path=$2 port=${PORT:-18181}
log=$(mktemp)
DATABASE_READ_URL=$url LOG_LEVEL=warn node --trace-gc --import tsx src/bin/cli.ts api \
  --port "$port" --host 127.0.0.1 --no-cache >"$log" 2>/dev/null &
api=$!
trap 'kill $api 2>/dev/null; rm -f "$log"' EXIT
until curl -sf "http://127.0.0.1:$port/health" >/dev/null; do sleep 0.2; done
ask() {
  node -e 'const [u, n, c] = [process.argv[1], +process.argv[2], +process.argv[3]];
    let left = n;
    const loop = async () => { while (left-- > 0) { const r = await fetch(u); if (r.status !== 200) throw new Error(`HTTP ${r.status}`); await r.arrayBuffer(); } };
    Promise.all(Array.from({ length: c }, loop)).catch((e) => { console.error(e.message); process.exit(1); });' \
    "http://127.0.0.1:$port$path" "$1" "${CONNECTIONS:-4}"
}
ask 50
cpu() { awk '{print $14 + $15}' "/proc/$api/stat"; }
n=${REQUESTS:-1000} mark=$(wc -l <"$log") cpu0=$(cpu)
ask "$n"
cpu1=$(cpu) ticks=$(getconf CLK_TCK)
tail -n +"$((mark + 1))" "$log" | awk -v n="$n" -v cpu="$((cpu1 - cpu0))" -v hz="$ticks" '
  /Scavenge/ { sc++; split($0, a, "MB, "); split(a[2], b, " "); scMs += b[1] }
  /Mark-Compact/ { mc++; split($0, a, "MB, "); split(a[2], b, " "); mcMs += b[1] }
  END {
    printf "{\"requests\":%d,\"apiCpuUsPerReq\":%.0f,\"scavengesPer1000\":%.1f,", n, cpu / hz * 1e6 / n, sc * 1000 / n
    printf "\"markCompactsPer1000\":%.1f,\"scavengeMsPerReq\":%.3f,\"markCompactMsPerReq\":%.3f}\n", mc * 1000 / n, scMs / n, mcMs / n
  }'
