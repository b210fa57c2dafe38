#!/bin/sh
# A wrapper around etcd for the exit oracle's test: member n3 prints a
# panic and exits 2 six seconds after it starts; the others are etcd.
# The etcd to run is $MODELFUZZ_TEST_ETCD.
name=""
prev=""
for a in "$@"; do
	[ "$prev" = "--name" ] && name="$a"
	prev="$a"
done
if [ "$name" != "n3" ]; then
	exec "$MODELFUZZ_TEST_ETCD" "$@"
fi
"$MODELFUZZ_TEST_ETCD" "$@" &
pid=$!
sleep 6
echo "panic: injected by the test wrapper" >&2
kill -9 "$pid"
exit 2
