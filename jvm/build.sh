#!/usr/bin/env bash
# Builds the strategy engine: compiles every .java file under jvm/src (engine API, runtime and whatever
# else lives there, e.g. the engine host) into jvm/build/classes and packs jvm/build/backtestd-engine.jar.
# Prints one summary line on success; on failure prints the compiler output and exits non-zero.
# Skips the work when the jar is newer than every source and the set of sources is unchanged.
# Usage: jvm/build.sh            (ENGINE_VERSION=x.y.z overrides the engine version, default below)
set -euo pipefail

ENGINE_VERSION="${ENGINE_VERSION:-1.0.0}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$here/src"
prime="$here/prime"
build="$here/build"
classes="$build/classes"
jar_path="$build/backtestd-engine.jar"
stamp="$build/.build-stamp"
archive="$build/backtestd-engine.jsa"

die() { echo "jvm/build.sh: $*" >&2; exit 1; }

command -v javac >/dev/null 2>&1 || die "javac not found (Java 17 JDK required)"
command -v jar >/dev/null 2>&1 || die "jar not found (Java 17 JDK required)"
[ -d "$src" ] || die "no source directory $src"
mkdir -p "$build"

# One build at a time in this tree (other sessions may build concurrently).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$build/.lock"
  flock 9
fi

sources="$(cd "$src" && find . -name '*.java' -type f | LC_ALL=C sort)"
[ -n "$sources" ] || die "no .java files under $src"
count="$(printf '%s\n' "$sources" | wc -l | tr -d ' ')"
prime_sources="$(cd "$prime" && find . -name '*.java' -type f | LC_ALL=C sort)"
wanted="version=$ENGINE_VERSION
$sources
prime:
$prime_sources"

# The class-data archive every engine host maps (docs/engine-host.md, "Class-data archive"):
# written by one run of ArchiveTraining against this very jar (the JVM checks the jar's path,
# size and time when a host maps it, and ignores an archive that does not match). Optional: a
# JVM that cannot write it leaves no archive, and hosts then start without one.
make_archive() {
  if [ -f "$archive" ] && [ "$archive" -nt "$jar_path" ]; then
    return 0
  fi
  rm -f "$archive"
  local out="$build/archive.$$.jsa"
  if java -Xmx512m -XX:+UseSerialGC -XX:-UsePerfData -Xshare:auto -XX:ArchiveClassesAtExit="$out" \
       -Xlog:disable -Xlog:all=warning:stderr -cp "$jar_path" com.wualabs.backtestd.host.ArchiveTraining "Training$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')" \
       > "$build/archive.log" 2>&1 && [ -s "$out" ] \
     && java -Xshare:on -XX:SharedArchiveFile="$out" -cp "$jar_path" -version >> "$build/archive.log" 2>&1; then
    # -Xshare:on: the JVM maps every region or refuses, so a damaged archive never reaches a host
    mv -f "$out" "$archive"
    echo "backtestd-engine.jsa: class-data archive written ($(( $(wc -c < "$archive") / 1024 )) KiB)"
  else
    rm -f "$out"
    echo "backtestd-engine.jsa: not written (hosts start without it; see $build/archive.log)" >&2
  fi
}

if [ -f "$jar_path" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] \
   && [ -z "$(find "$src" "$prime" -newer "$jar_path" -print -quit)" ] \
   && [ ! "$here/build.sh" -nt "$jar_path" ]; then
  echo "backtestd-engine.jar: up to date ($count sources, engine $ENGINE_VERSION)"
  make_archive
  exit 0
fi

start=$(date +%s)
tmp="$(mktemp -d "$build/tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/classes"
printf '%s\n' "$sources" | sed "s|^\./|$src/|" > "$tmp/sources.txt"

if ! javac --release 17 -g -encoding UTF-8 -nowarn -Xlint:none -d "$tmp/classes" @"$tmp/sources.txt" \
      > "$tmp/javac.log" 2>&1; then
  cat "$tmp/javac.log" >&2
  die "compilation failed"
fi

# The host's priming strategies (jvm/prime, HostMain's Prime): compiled as javac compiles a user's
# source, against the engine just built, and packed as resources (.class.bin, listed in classes.txt)
# that no class loader finds by name: the host hands their bytes to its sandbox as a user's.
mkdir -p "$tmp/prime" "$tmp/classes/com/wualabs/backtestd/host/prime"
if ! javac --release 17 -g -proc:none -implicit:none -encoding UTF-8 -nowarn -Xlint:none \
      -cp "$tmp/classes" -d "$tmp/prime" "$prime"/*.java > "$tmp/javac-prime.log" 2>&1; then
  cat "$tmp/javac-prime.log" >&2
  die "compilation of the priming strategies failed"
fi
(cd "$tmp/prime" && for f in *.class; do
  cp "$f" "$tmp/classes/com/wualabs/backtestd/host/prime/$f.bin"
  printf '%s\n' "$f"
done) > "$tmp/classes/com/wualabs/backtestd/host/prime/classes.txt"

res="$tmp/classes/com/wualabs/qtsurfer/engine"
mkdir -p "$res"
printf 'version=%s\n' "$ENGINE_VERSION" > "$res/engine-version.properties"

printf 'Implementation-Title: backtestd-engine\nImplementation-Version: %s\n' "$ENGINE_VERSION" > "$tmp/manifest.txt"
if ! jar --create --file "$tmp/engine.jar" --manifest "$tmp/manifest.txt" -C "$tmp/classes" . > "$tmp/jar.log" 2>&1; then
  cat "$tmp/jar.log" >&2
  die "jar failed"
fi

rm -rf "$classes"
mv "$tmp/classes" "$classes"
mv -f "$tmp/engine.jar" "$jar_path"
printf '%s' "$wanted" > "$stamp"

echo "backtestd-engine.jar: built $count sources (engine $ENGINE_VERSION) in $(( $(date +%s) - start ))s"
make_archive
