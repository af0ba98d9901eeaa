# failout.awk LOG: prints the output of every top-level test that failed in
# a `go test -v` log (its own lines and its subtests'), at most 120 lines a
# test, so that a failure's messages reach CI's summary.
FNR == NR {
  if (match($0, /^--- FAIL: [^ ]+/)) failed[substr($0, 11, RLENGTH - 10)] = 1
  next
}
/^=== (RUN|CONT|NAME|PAUSE) / {
  cur = $3; sub(/\/.*/, "", cur); next
}
/^(ok|FAIL|PASS)([ \t]|$)/ { cur = ""; next }
/^--- (PASS|FAIL|SKIP): / { top = $3; sub(/\/.*/, "", top); cur = (top in failed) ? top : ""; }
cur != "" && (cur in failed) && n[cur]++ < 120 { print cur ": " $0 }
