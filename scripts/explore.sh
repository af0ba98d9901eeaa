#!/usr/bin/env bash
# Random exploration with fresh seeds, to run before submitting (CI runs
# everything with fixed seeds and never fails by chance; this looks where
# CI does not). Whatever it finds is a bug to fix, with its seed kept as a
# regression case. It prints every seed it used.
#
#   scripts/explore.sh [seconds]  rapid tests, fuzzing (seconds in all, split
#                                 among the targets; default 60 s each), and
#                                 the storm, the partial writes' model and
#                                 the random schemas if a node runs
#
# Environment: KANDRA_EXPLORE_CHECKS (rapid checks per property, 2000),
# KANDRA_EXPLORE_FUZZTIME (per fuzz target, overrides the split),
# KANDRA_EXPLORE_STORMS (storm runs, 3), and the node's
# KANDRA_CASSANDRA_HOST/PORT.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export GOFLAGS=-tags=kandra_dynamic # the tests' run-time schemas (internal/dynamic)
CHECKS=${KANDRA_EXPLORE_CHECKS:-2000}
BUDGET=${1:-}
STORMS=${KANDRA_EXPLORE_STORMS:-3}
rc=0
seed() { od -An -N4 -tu4 /dev/urandom | tr -d ' '; }

# The packages whose tests use rapid (the others do not know its flags).
rapid_pkgs() {
  go list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./... | grep -F pgregory.net/rapid | cut -d' ' -f1
}
for dir in . driver/kgocql driver/kgocqlv2; do
  s=$(seed)
  mapfile -t pkgs < <(cd "$ROOT/$dir" && rapid_pkgs)
  echo "== rapid tests in $dir (${#pkgs[@]} packages), seed $s, $CHECKS checks"
  (cd "$ROOT/$dir" && go test -count=1 "${pkgs[@]}" -args -rapid.seed="$s" -rapid.checks="$CHECKS") || { echo "FOUND: rapid seed $s in $dir"; rc=1; }
done

# The fuzz targets .ci/run lists (DIR PKG TARGET).
mapfile -t targets < <(sed -n '/^fuzz_targets=(/,/^)/p' .ci/run | grep -o '"[^"]*"' | tr -d '"')
FUZZTIME=${KANDRA_EXPLORE_FUZZTIME:-}
if [ -z "$FUZZTIME" ]; then
  if [ -n "$BUDGET" ]; then
    FUZZTIME=$(( BUDGET / ${#targets[@]} > 2 ? BUDGET / ${#targets[@]} : 2 ))s
  else
    FUZZTIME=60s
  fi
fi
log=$(mktemp)
for spec in "${targets[@]}"; do
  read -r dir pkg t <<<"$spec"
  echo "== fuzzing $t ($dir $pkg) for $FUZZTIME"
  # Go's engine minimizes each new interesting input for up to
  # -fuzzminimizetime (60 s by default), counting no execs meanwhile, and
  # can end a run with "context deadline exceeded" when its time runs out
  # mid-minimization, with no failing input: that is no finding.
  (cd "$ROOT/$dir" && go test -run '^$' -fuzz "^$t\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 5s "$pkg") >"$log" 2>&1
  status=$?
  tail -n 3 "$log"
  if [ $status -ne 0 ]; then
    if grep -q 'Failing input written' "$log" || ! grep -q 'context deadline exceeded' "$log"; then
      cat "$log"
      echo "FOUND: $t (the failing input is in $dir/testdata/fuzz/$t)"
      rc=1
    else
      echo "$t: the engine's deadline ran out mid-minimization, with no failing input"
    fi
  fi
done
rm -f "$log"

if scripts/cassandra.sh status >/dev/null 2>&1 || [ -n "${KANDRA_CASSANDRA_PORT:-}" ]; then
  for i in $(seq "$STORMS"); do
    s=$(seed)
    echo "== integrity storm, seed $s"
    (cd integrity && KANDRA_STORM_SEED=$s KANDRA_REQUIRE_CASSANDRA=1 go test -count=1 -run '^TestStorm$' -v . | grep -E 'real-server|FAIL|storm_test') || { echo "FOUND: storm seed $s"; rc=1; }
  done
  for dir in driver/kgocql driver/kgocqlv2; do
    s=$(seed)
    echo "== partial writes against the model ($dir), seed $s, 1000 steps"
    (cd "$dir" && KANDRA_PARTIAL_SEED=$s KANDRA_PARTIAL_STEPS=1000 KANDRA_REQUIRE_CASSANDRA=1 go test -count=1 -run '^TestNode$/^Runtime$/^PartialWritesMatchTheModel$' -v . | grep -E 'real-server: partial|FAIL|partial.go') || { echo "FOUND: partial writes seed $s in $dir (KANDRA_PARTIAL_SEED=$s)"; rc=1; }
  done
  for dir in driver/kgocql driver/kgocqlv2; do
    s=$(seed)
    echo "== units of work against the model ($dir), seed $s, 1000 units"
    (cd "$dir" && KANDRA_UNITS_SEED=$s KANDRA_UNITS_STEPS=1000 KANDRA_REQUIRE_CASSANDRA=1 go test -count=1 -run '^TestNode$/^Runtime$/^UnitsMatchTheModel$' -v . | grep -E 'real-server: units-model|FAIL|units_model.go') || { echo "FOUND: units seed $s in $dir (KANDRA_UNITS_SEED=$s)"; rc=1; }
  done
  s=$(seed)
  echo "== 200 random schemas on the node, seed $s"
  (cd integration && KANDRA_RANDOM_SEED=$s KANDRA_REQUIRE_CASSANDRA=1 go test -count=1 -run '^TestRandomSchemas$' -v . | grep -E 'real-server: random|FAIL|random_test') || { echo "FOUND: random schemas seed $s (KANDRA_RANDOM_SEED=$s)"; rc=1; }
else
  echo "== no node: the storm and the random schemas are skipped (scripts/cassandra.sh start)"
fi
exit $rc
