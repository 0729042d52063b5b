#!/usr/bin/env bash
# Every submission bundle this repository has held, ingested oldest first into one results database, then the
# changes `db regressions --faster` finds along them (docs/results_db.md, "A real history").
#   bench/compare/db_repo_history.sh AGGREGATE DB [WORK_DIR]
# AGGREGATE: an opmark-aggregate built with the database; DB: a SQLite file or postgresql:// URL; WORK_DIR: where the
# bundles of each commit are extracted (default: a temporary folder, removed at the end).
set -euo pipefail
[ $# -ge 2 ] || { sed -n 2,6p "$0"; exit 2; }
aggregate=$1 db=$2 work=${3:-}
if [ -z "$work" ]; then work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
bundles=()
for commit in $(git log --reverse --format=%h -- 'results/*/run/results.jsonl*'); do
  mkdir -p "$work/$commit"
  git archive "$commit" results | tar -x -C "$work/$commit"
  for dir in "$work/$commit"/results/*/; do [ -d "$dir/run" ] && bundles+=("${dir%/}"); done
done
echo "${#bundles[@]} bundle folders from $(git log --format=%h -- 'results/*/run/results.jsonl*' | wc -l) commits"
"$aggregate" db --db "$db" ingest "${bundles[@]}"
"$aggregate" db --db "$db" runs
"$aggregate" db --db "$db" regressions --faster || true  # exit 1: a case slower somewhere, as expected in a history
