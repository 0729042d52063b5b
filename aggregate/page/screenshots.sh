#!/usr/bin/env bash
# The committed screenshots of the results page, made again: the page over results/ (the bundles that pass the
# checker) as it opens in a 1400 px window, and, given a plain run's folder, the page over that run.
#   aggregate/page/screenshots.sh [BUILD_DIR] [RUN_FOLDER]     (default build/release; needs Chromium)
# Writes results/index.html, results/page_1400.png and, with a run, results/page_run_1400.png.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release}
run=${2:-}
chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$chromium" ] || { echo "screenshots.sh: no Chromium found (Debian: apt-get install chromium)" >&2; exit 1; }
shoot() {  # page, picture
  "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,1000 \
    --virtual-time-budget=20000 "--screenshot=$2" "file://$(realpath "$1")" 2>/dev/null
  echo "wrote $2"
}
"$build/aggregate/opmark-aggregate" page results
shoot results/index.html results/page_1400.png
if [ -n "$run" ]; then
  tmp=$(mktemp -d)
  "$build/aggregate/opmark-aggregate" page "$run" --runs --out="$tmp/run.html"
  shoot "$tmp/run.html" results/page_run_1400.png
  rm -rf "$tmp"
fi
