#!/usr/bin/env bash
# Before and after of the store's own cost (kstore's BenchmarkOwnCost, on a
# driver that does nothing): the benchmark binaries of commit BASE and of
# the working tree, run alternately (BASE, tree, BASE, tree, ...) so that
# the machine's drift falls on both. Prints, per benchmark, the fastest
# and the median ns/op of each: on a noisy machine the fastest is the
# figure to compare, the median says how noisy it was. BASE runs the
# working tree's owncost_test.go (its cases may be newer than BASE).
#
#   scripts/owncost-ab.sh BASE [REGEX] [RUNS]
#
#   REGEX  the benchmarks, as -test.bench takes them (OwnCost)
#   RUNS   runs of each tree (10), 300 ms per benchmark each
#
# Example: scripts/owncost-ab.sh 2c66eca 'OwnCost/(update|delete)' 10
set -euo pipefail
cd "$(dirname "$0")/.."
base=$1 re=${2:-OwnCost} runs=${3:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git archive "$base" | tar -x -C "$work"
cp kstore/owncost_test.go "$work/kstore/"
export GOFLAGS=-tags=kandra_dynamic
(cd "$work" && go test -c -o "$work/a.test" ./kstore)
go test -c -o "$work/b.test" ./kstore
for _ in $(seq "$runs"); do
	for t in a b; do
		"$work/$t.test" -test.run '^$' -test.bench "$re" -test.benchtime 300ms | sed -n "s/^\(Benchmark[^ ]*\) .* \([0-9.]*\) ns\/op.*/$t \1 \2/p"
	done
done | sort -k2,2 -k1,1 -k3,3g | awk '
	{ k = $2 " " $1; v[k, ++n[k]] = $3 }
	END { for (k in n) { m = n[k]; printf "%s fastest %s median %s (%d runs)\n", k, v[k, 1], v[k, int((m + 1) / 2)], m } }' | sort
