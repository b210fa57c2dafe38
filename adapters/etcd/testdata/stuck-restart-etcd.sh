#!/bin/sh
# A wrapper around etcd for the rejoin oracle's test: member n3, started
# again on its data directory, never comes up (it waits without starting
# etcd); every other start is etcd's. The etcd to run is
# $MODELFUZZ_TEST_ETCD.
name=""
data=""
prev=""
for a in "$@"; do
	[ "$prev" = "--name" ] && name="$a"
	[ "$prev" = "--data-dir" ] && data="$a"
	prev="$a"
done
if [ "$name" = "n3" ] && [ -d "$data/member" ]; then
	echo "stuck: n3 does not start again" >&2
	exec sleep 3600
fi
exec "$MODELFUZZ_TEST_ETCD" "$@"
