#!/usr/bin/env bash
# Engine self-checks: builds the engine jar (jvm/build.sh), compiles jvm/test (checks and the example
# strategies of jvm/test/examples) against it, verifies that every file in jvm/test/negative fails to
# compile with the error its "// expect:" line names (removed API, wrong emit overloads), then runs the
# checks. Exits non-zero on any failure. BENCH=1 also runs the throughput benchmark.
# Usage: jvm/check.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$here/build.sh"

jar_path="$here/build/backtestd-engine.jar"
out="$here/build/test-classes"
tmp="$(mktemp -d "$here/build/check.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

rm -rf "$out"
mkdir -p "$out"
find "$here/test/com" "$here/test/examples" -name '*.java' -type f | LC_ALL=C sort > "$tmp/sources.txt"
if ! javac --release 17 -g -encoding UTF-8 -nowarn -Xlint:none -cp "$jar_path" -d "$out" @"$tmp/sources.txt" \
      > "$tmp/javac.log" 2>&1; then
  cat "$tmp/javac.log" >&2
  echo "jvm/check.sh: compiling the checks and examples failed" >&2
  exit 1
fi

failed=0
count=0
# One javac for every negative file first (a JVM start costs seconds on a small machine, and javac
# reports each file's errors under its path); a file whose expected error is not in its part of
# that log (javac stops early after syntax errors, say) is compiled alone, as the check was before.
mkdir -p "$tmp/neg-all"
javac --release 17 -nowarn -Xmaxerrs 10000 -cp "$jar_path" -d "$tmp/neg-all" "$here"/test/negative/*.java \
  > "$tmp/neg-all.log" 2>&1 || true
for f in "$here"/test/negative/*.java; do
  count=$((count + 1))
  expect="$(sed -n 's|^// expect: ||p' "$f" | head -n 1)"
  name="$(basename "$f")"
  # this file's part of the batch log: from a line naming it to the next line naming a source file
  awk -v f="$f:" 'index($0, f) == 1 { on = 1; print; next }
                  /^\/.*\.java:[0-9]+: / { on = 0 }
                  /^[0-9]+ errors?$/ { on = 0 }
                  on { print }' "$tmp/neg-all.log" > "$tmp/neg-part.log"
  if [ -n "$expect" ] && grep -q ': error: ' "$tmp/neg-part.log" && grep -qF -- "$expect" "$tmp/neg-part.log"; then
    continue
  fi
  mkdir -p "$tmp/neg"
  if javac --release 17 -nowarn -cp "$jar_path" -d "$tmp/neg" "$f" > "$tmp/neg.log" 2>&1; then
    echo "FAIL negative/$name compiled, but must not" >&2
    failed=1
  elif [ -z "$expect" ] || ! grep -qF -- "$expect" "$tmp/neg.log"; then
    echo "FAIL negative/$name did not fail with '$expect':" >&2
    cat "$tmp/neg.log" >&2
    failed=1
  fi
done
[ "$failed" -eq 0 ] || exit 1
echo "negative compile checks: $count files rejected as expected"

java -cp "$jar_path:$out" com.wualabs.qtsurfer.engine.checks.AllChecks

if [ "${BENCH:-0}" = "1" ]; then
  java -Xms2g -Xmx2g -cp "$jar_path:$out" com.wualabs.qtsurfer.engine.checks.Bench
fi
