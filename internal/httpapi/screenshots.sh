#!/usr/bin/env bash
# Draws the website's pictures in docs/ from the real pages: the browser test
# that loads every page of the demo market in headless Chromium writes its
# screenshots (every page at a phone's and a desktop's width, light and dark)
# into a directory, and two of them become docs/website.png (the market at a
# desktop's width) and docs/website-phone.png (an item's price chart on a
# phone, dark). Run it from anywhere after a change the pictures show:
#   bash internal/httpapi/screenshots.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
RYNEK_REQUIRE_CHROMIUM=1 RYNEK_ARTIFACTS="$tmp" go test ./internal/httpapi -count=1 -run '^TestSitePagesInARealBrowser$'
cp "$tmp/market-desktop-light.png" docs/website.png
cp "$tmp/item-phone-dark.png" docs/website-phone.png
echo "drew docs/website.png and docs/website-phone.png"
