#!/bin/sh
# Builds $BUILD/vm/initrd.gz: busybox, tierd and tierctl with their shared
# libraries, the static test workloads, the scenarios and their configs.
set -eu
: "${BUILD:=build}"
VM=$BUILD/vm
R=$VM/initramfs
rm -rf "$R"
mkdir -p "$R/bin" "$R/proc" "$R/sys" "$R/dev" "$R/tmp" "$R/run" "$R/etc" "$R/scenarios"
cp /bin/busybox "$R/bin/"
for app in $(/bin/busybox --list); do
	[ -e "$R/bin/$app" ] || ln -s busybox "$R/bin/$app"
done
cp "$BUILD/tierd" "$BUILD/tierctl" "$R/bin/"
# journald and journalctl, to check tierd's structured fields on a real journal.
JOURNALD=/lib/systemd/systemd-journald
mkdir -p "$R/lib/systemd"
cp "$JOURNALD" "$R/lib/systemd/"
cp /usr/bin/journalctl "$R/bin/"
for lib in $(ldd "$BUILD/tierd" "$BUILD/tierctl" "$JOURNALD" /usr/bin/journalctl |
	awk '/=>/ { print $3 } /ld-linux/ { print $1 }' | sort -u); do
	mkdir -p "$R$(dirname "$lib")"
	cp -L "$lib" "$R$lib"
done
# Test programs, static (the initramfs has no libnuma); a line
# "vm-link: FILE..." in a program names the tierd sources it links.
for src in tests/vm/*.c; do
	extra=$(sed -n 's|.*vm-link: *\([^*]*\).*|\1|p' "$src")
	gcc -static -O2 -std=gnu17 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$BUILD/bpf" \
		-o "$R/bin/$(basename "$src" .c)" "$src" $extra
done
cp tests/vm/init "$R/init"
# memcached and memcaslap with bookworm's libraries (setup.sh).
cp -a "$VM/memcached/root" "$R/mc"
cp tests/vm/scenarios/*.sh "$R/scenarios/"
cp -r tests/vm/etc/. "$R/etc/"
mkdir -p "$R/etc/tierd/examples.d"
cp configs/policies.d/*.json "$R/etc/tierd/examples.d/"
(cd "$R" && find . | cpio -o -H newc --quiet | gzip -1) >"$VM/initrd.gz"
