#!/bin/sh
# The decision core (policy/) is decisions only: no file of it includes
# json-c, systemd, libbpf or a header of the shell (config/, report/,
# controller/, bpf/), none opens, reads or writes a file, and its library
# (build/libtierd-core.a) links whole with libc and libm alone, so a call
# from the core into the shell cannot creep in.
set -u
: "${BUILD:=build}"
: "${CC:=gcc}"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL: $1" >&2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

hits=$(grep -nE '#include *[<"](json-c/|systemd/|bpf/|libbpf|numa|libcgroup|\.\./(config|report|controller|bpf)/)' \
	policy/*.c policy/*.h)
[ -z "$hits" ] && ok || no "the core includes the shell or an I/O library: $hits"

hits=$(grep -nE '\b(f?open|openat2?|opendir|fdopen|popen|read|write|pread|pwrite|close|unlink|mkdir|f?stat|ioctl|syscall|mmap|getenv|clock_gettime|time)\(' \
	policy/*.c policy/*.h)
[ -z "$hits" ] && ok || no "the core does I/O or reads the clock: $hits"

if [ ! -f "$BUILD/libtierd-core.a" ]; then
	no "no $BUILD/libtierd-core.a (make tests builds it)"
else
	echo 'int main(void) { return 0; }' >"$T/main.c"
	if $CC -o "$T/core" "$T/main.c" -Wl,--whole-archive "$BUILD/libtierd-core.a" \
		-Wl,--no-whole-archive -lm 2>"$T/err"; then
		ok
	else
		no "the core library does not link alone: $(cat "$T/err")"
	fi
fi
echo "$pass passed, $fail failed, 0 skipped"
[ $fail -eq 0 ]
