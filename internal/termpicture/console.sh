#!/usr/bin/env bash
# Draws docs/console.svg, the README's picture of the console, from the real
# program: a fresh demo market, the console in tmux at 132x40, a search and a
# purchase dialog open. Run it from anywhere after a change the picture shows:
#   bash internal/termpicture/console.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
session=rynek-picture-$$
tmp=$(mktemp -d)
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$tmp"' EXIT

go build -o "$tmp/rynek" .
go build -o "$tmp/termpicture" ./internal/termpicture
tmux new-session -d -s "$session" -x 132 -y 40 "$tmp/rynek --db $tmp/market.db"

# wait_for TEXT: until the screen shows TEXT (the demo seeds on first run).
wait_for() {
  for _ in $(seq 1 600); do
    if tmux capture-pane -p -t "$session" | grep -qF -- "$1"; then return 0; fi
    sleep 0.1
  done
  echo "console-picture: the console never showed \"$1\":" >&2
  tmux capture-pane -p -t "$session" >&2
  exit 1
}
keys() { tmux send-keys -t "$session" "$@"; sleep 0.6; }

wait_for "ready"
keys /
keys -l "diamond sword"
wait_for "matches"
keys Escape
keys b
wait_for "y/enter confirm"
tmux capture-pane -e -p -t "$session" | "$tmp/termpicture" -title "rynek — the demo market" > docs/console.svg
echo "wrote docs/console.svg"
