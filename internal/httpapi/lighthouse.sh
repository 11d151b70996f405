#!/usr/bin/env bash
# Lighthouse (its mobile defaults: a phone's screen, a slow CPU and network
# simulated) on every page of the website of the demo market, as
# docs/performance.md reports it: performance, accessibility, best
# practices, SEO and CLS of each. It builds rynek, serves a new demo market
# without bots on 127.0.0.1:18199, installs Lighthouse 12.2.3 (the last to
# run on Node 20) from npm into a temporary folder, and needs Debian's
# chromium. A few minutes; not part of CI, whose browser tests hold every
# page's layout still (TestSitePagesInARealBrowser).
#   bash internal/httpapi/lighthouse.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
port=${PORT:-18199}
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
go build -o "$tmp/rynek" .
(cd "$tmp" && npm init -y >/dev/null && npm i -E --no-audit --no-fund lighthouse@12.2.3 >/dev/null)
"$tmp/rynek" serve --db "$tmp/m.db" --api "127.0.0.1:$port" --bots 0 >"$tmp/serve.log" 2>&1 &
pid=$!
a="http://127.0.0.1:$port"
for _ in $(seq 1 100); do curl -sf -o /dev/null "$a/api/health" && break; sleep 0.3; done
field() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
listing=$(curl -s "$a/api/listings?limit=1" | field 'd["items"][0]["id"]')
sold=$(curl -s "$a/api/history?limit=1" | field 'd["items"][0]["listingId"]')
player=$(curl -s "$a/api/stats" | field 'd["topSellers"][0]["seller"]["uuid"]')
export CHROME_PATH=${CHROME_PATH:-/usr/bin/chromium}
echo "$(date -u +%F) $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD)"
for path in / /item/DIAMOND "/listing/$listing" "/listing/$sold" "/player/$player" /stats /listing/999999 /nie-ma; do
  "$tmp/node_modules/.bin/lighthouse" "$a$path" --quiet --output=json --output-path="$tmp/report.json" \
    --chrome-flags="--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync --no-first-run" \
    >/dev/null 2>&1 || { echo "$path: lighthouse failed"; continue; }
  node -e '
    const r = require(process.argv[1]), c = r.categories, a = r.audits, p = (x) => Math.round(x.score * 100);
    console.log(process.argv[2].padEnd(50), "performance", p(c.performance), "accessibility", p(c.accessibility), "best practices", p(c["best-practices"]),
      "SEO", p(c.seo), "CLS", a["cumulative-layout-shift"].numericValue.toFixed(3), "TBT", Math.round(a["total-blocking-time"].numericValue), "ms");
  ' "$tmp/report.json" "$path"
done
