#!/bin/sh
# Builds tierd's Debian package into $BUILD/deb/ with
# `dpkg-buildpackage -us -uc -b`, on a copy of the tracked files (so that
# nothing is written beside the repository and build/ is not cleaned), and
# runs lintian on it into $BUILD/deb/lintian.log. Does nothing when the
# .deb is newer than every tracked file that goes into it.
set -eu
: "${BUILD:=build}"
OUT=$BUILD/deb
SRC=$OUT/tierd

deb=$(ls "$OUT"/tierd_*_amd64.deb 2>/dev/null | head -n 1) || true
INPUTS="Makefile debian bpf config controller policy report units configs docs/*.[58]"
newer() { git ls-files $INPUTS | while read -r f; do [ "$f" -nt "$1" ] && echo "$f"; done; }
if [ -n "$deb" ] && [ -z "$(newer "$deb" | head -n 1)" ]; then
	exit 0
fi
rm -rf "$OUT" && mkdir -p "$SRC"
git ls-files -z | cpio -0 -pdm --quiet "$SRC"
start=$(date +%s)
if ! (cd "$SRC" && dpkg-buildpackage -us -uc -b) >"$OUT/build.log" 2>&1; then
	tail -n 30 "$OUT/build.log" >&2
	exit 1
fi
echo "mkdeb: $(ls "$OUT"/tierd_*_amd64.deb) built in $(($(date +%s) - start)) s"
lintian --info --display-info --pedantic "$OUT"/tierd_*_amd64.changes >"$OUT/lintian.log" 2>&1 || true
