#!/usr/bin/env bash
# The release check: can a user `go get` kandra's published modules at a
# candidate version and use them? It lays out the modules (the root and
# both adapters, from the files git tracks at HEAD) as a module proxy on
# local disk (tools/release, which also refuses a go.mod with a directory
# replace or another kandra version), adds the third-party modules from
# the module cache (whose download directory is a proxy layout), and
# builds the scratch application scripts/release/app.go.txt outside the
# repository with GOWORK=off, GOFLAGS=-mod=mod, that proxy as the only
# GOPROXY, an empty module cache, and the checksum database off for
# kandra's modules only; then runs it against the node on
# KANDRA_CASSANDRA_HOST:KANDRA_CASSANDRA_PORT (scripts/cassandra.sh start).
#
#   scripts/release-check.sh [VERSION]     (default v0.1.0)
#
# Prints "release: modules=N consumed=N ok=true" on success.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VERSION=${1:-v0.1.0}
WORK=$(mktemp -d)
trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT
PROXY=$WORK/proxy
published=(. driver/kgocql driver/kgocqlv2 otelkandra)
paths=(github.com/kandra-go/kandra github.com/kandra-go/kandra/driver/kgocql github.com/kandra-go/kandra/driver/kgocqlv2 github.com/kandra-go/kandra/otelkandra)

summary() { echo "release: modules=${#published[@]} consumed=$1 ok=$2"; }
fail() { echo "release-check: $*" >&2; summary 0 false; exit 1; }

(cd "$ROOT" && go run ./tools/release -version "$VERSION" -out "$PROXY" -rev HEAD "${published[@]}") || fail "the modules are not fit to publish"
# The third-party modules the published ones need, into the module cache
# (on a fresh machine nothing has fetched them yet).
for m in "${published[@]}"; do
  (cd "$ROOT/$m" && go mod download && go list -deps -test ./... >/dev/null) || fail "cannot download the dependencies of $m"
done
cache=$(go env GOMODCACHE)/cache/download
[ -d "$cache" ] || fail "no module cache at $cache"
cp -rs "$cache/." "$PROXY/" 2>/dev/null || true # links; kandra's own files stay

APP=$WORK/app
mkdir -p "$APP"
cp "$ROOT/scripts/release/app.go.txt" "$APP/main.go"
printf 'module example.com/kandraapp\n\ngo 1.23\n' >"$APP/go.mod"
# The third-party checksums the repository already trusts; kandra's own
# come from the proxy with the checksum database off for them.
cat "$ROOT"/go.sum "$ROOT"/*/go.sum "$ROOT"/*/*/go.sum 2>/dev/null | sort -u >"$APP/go.sum"

export GOWORK=off GOFLAGS=-mod=mod GOPROXY="file://$PROXY" GOMODCACHE="$WORK/modcache" \
  GONOSUMDB=github.com/kandra-go GOTOOLCHAIN=local
gets=()
for p in "${paths[@]}"; do gets+=("$p@$VERSION"); done
(cd "$APP" && go get "${gets[@]}" && go build -o "$WORK/kandraapp" .) || fail "the scratch application does not build from the proxy"
consumed=0
for p in "${paths[@]}"; do
  if grep -q "^	$p $VERSION\$\|^require $p $VERSION\$" "$APP/go.mod"; then consumed=$((consumed + 1)); fi
done
[ "$consumed" -eq "${#published[@]}" ] || { cat "$APP/go.mod"; fail "go.mod requires $consumed of ${#published[@]} modules at $VERSION"; }
"$WORK/kandraapp" || fail "the scratch application failed against the node"
summary "$consumed" true
