#!/usr/bin/env bash
# Before and after: the bench of commit BASE and of the working tree, run
# alternately (BASE, tree, BASE, tree, ...) so that the machine's drift
# falls on both, each run a few interleaved rounds of the chosen cells
# with the matrix's method. Prints, per cell, each run's ratio
# kandra/hand-written and the allocations, BASE's line (a) above the
# tree's (b). Nothing else should run meanwhile.
#
#   scripts/bench-ab.sh BASE TEST REGEX [ROUNDS] [RUNS]
#
#   TEST   TestMatrix, or a test of other cells: TestWrites, TestUnits,
#          TestCounts, TestScans, TestGetMany, TestMerged, TestTimes
#   REGEX  the cells, as -matrix.run takes them: '^kgocqlv2/C48L0/update$'
#   ROUNDS interleaved rounds per run (10), RUNS runs of each tree (3)
#
# Example: scripts/bench-ab.sh 0c48dd8 TestMatrix '/C(4|12|48)L0/update$' 10 2
set -euo pipefail
cd "$(dirname "$0")/.."
base=$1 test=$2 re=$3 rounds=${4:-10} runs=${5:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git archive "$base" | tar -x -C "$work"
export GOFLAGS=-tags=kandra_dynamic
(cd "$work/bench" && go test -c -o "$work/a.test" .)
(cd bench && go test -c -o "$work/b.test" .)
for _ in $(seq "$runs"); do
	for t in a b; do
		(cd bench && KANDRA_MATRIX=1 "$work/$t.test" -test.run "^$test\$" -matrix.run "$re" -matrix.rounds "$rounds" -test.v 2>&1) |
			sed -nE "s/^matrix: adapter=([^ ]*) shape=([^ ]*) op=([^ ]*) .* ratio=([^ ]*) .* allocs=([^ ]*) .*/$t \1\/\2\/\3 \4 \5/p"
	done
done | awk '{k = $2 " " $1; r[k] = r[k] " " $3; al[k] = $4} END {for (k in r) print k, r[k], " allocs " al[k]}' | sort
