#!/usr/bin/env bash
# Build and test the gocql adapter (driver/kgocql) against a source tree of
# ScyllaDB's fork of gocql (github.com/scylladb/gocql, whose go.mod keeps
# the module path github.com/gocql/gocql), without touching the repository:
# the go command runs with GOWORK pointing to a temporary copy of go.work
# (its directories made absolute, plus
# `replace github.com/gocql/gocql => DIR`), so go.work, go.work.sum and the
# modules' go.mod and go.sum stay as they are; property tests write no
# fail files (-rapid.nofailfile).
#
#   scripts/scylla-fork-check.sh DIR
#
#   git --git-dir=<bare clone> archive v1.19.0 | tar -x -C /tmp/gocql-v1.19.0
#   scripts/scylla-fork-check.sh /tmp/gocql-v1.19.0
#
# DIR may also be gocql v1.7.0 itself ($(go env GOMODCACHE)/github.com/gocql/gocql@v1.7.0).
# The real-server tests (TestNode, TestAuthNode) are
# skipped unless SCYLLA_FORK_NODE=1, which runs them against the node on
# KANDRA_CASSANDRA_HOST:KANDRA_CASSANDRA_PORT (scripts/cassandra.sh start).
# Prints "scylla-fork: tag=<tag or dir> vet=ok|FAIL tests=ok|FAIL";
# exits 1 unless both are ok.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
DIR=$(cd "$1" && pwd) || exit 2
grep -qE '^module[[:space:]]+github.com/gocql/gocql[[:space:]]*$' "$DIR/go.mod" 2>/dev/null ||
  { echo "scylla-fork-check: $DIR/go.mod is not module github.com/gocql/gocql" >&2; exit 2; }
TAG=$(basename "$DIR")
if [ "$(git -C "$DIR" rev-parse --show-toplevel 2>/dev/null)" = "$DIR" ]; then
  TAG=$(git -C "$DIR" describe --tags --exact-match 2>/dev/null || git -C "$DIR" rev-parse --short HEAD)
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# The repository's workspace, its relative directories made absolute (in
# the canonical form go work edit prints), then the fork in place of gocql
# (through a link: go work edit reads a path with "@" as path@version).
go work edit -print "$ROOT/go.work" | while IFS= read -r line; do
  if [[ $line =~ ^(use[[:space:]]+|[[:space:]]+)(\.[^[:space:]]*)[[:space:]]*$ ]] ||
     [[ $line =~ ^(.*=>[[:space:]]+)(\.[^[:space:]]*)[[:space:]]*$ ]]; then
    line="${BASH_REMATCH[1]}$(cd "$ROOT/${BASH_REMATCH[2]}" && pwd)"
  fi
  printf '%s\n' "$line"
done >"$WORK/go.work"
[ ! -f "$ROOT/go.work.sum" ] || cp "$ROOT/go.work.sum" "$WORK/go.work.sum"
ln -s "$DIR" "$WORK/gocql"
go work edit -dropreplace=github.com/gocql/gocql -replace=github.com/gocql/gocql="$WORK/gocql" "$WORK/go.work"
export GOWORK=$WORK/go.work
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-tags=kandra_dynamic"

skip=(-skip 'Node$')
[ "${SCYLLA_FORK_NODE:-0}" = 1 ] && skip=()

cd "$ROOT/driver/kgocql"
got=$(go list -m -f '{{with .Replace}}{{.Path}}{{end}}' github.com/gocql/gocql)
[ "$got" = "$WORK/gocql" ] || { echo "scylla-fork-check: gocql resolves to '${got:-its required version}', not $DIR" >&2; exit 2; }

vet=ok tests=FAIL
echo "== go vet ./... (gocql => $DIR)"
go vet ./... || vet=FAIL
echo "== go test -count=1 -short ./... ${skip[*]}"
if go test -count=1 -short "${skip[@]}" ./... -rapid.nofailfile; then tests=ok; else tests=FAIL; fi
echo "scylla-fork: tag=$TAG vet=$vet tests=$tests"
[ "$vet" = ok ] && [ "$tests" = ok ]
