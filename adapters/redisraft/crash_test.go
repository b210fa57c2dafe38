package redisraft

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The crash oracle reads what a dying node wrote; each kind of report
// gets a signature that names where it died and nothing that changes from
// one run to the next.
func TestCrashSignature(t *testing.T) {
	for _, tc := range []struct {
		name, log, sig string
	}{
		{"clean shutdown", "1:M 27 Nov 2026 21:00:00.000 # User requested shutdown...\n", ""},
		{"raft library assert",
			"redis-server: deps/raft/src/raft_server.c:1043: raft_recv_appendentries: Assertion `ety->id != 0' failed.\n",
			"assert: raft_server.c:1043 raft_recv_appendentries: ety->id != 0"},
		{"module assertion with backtrace",
			"=== REDIS BUG REPORT START: Cut & paste starting from here ===\n" +
				"1:M 27 Nov 2026 21:00:00.000 # === ASSERTION FAILED ===\n" +
				"1:M 27 Nov 2026 21:00:00.000 # ==> /src/redisraft/src/log.c:220 'idx > 0' is not true\n" +
				"------ STACK TRACE ------\nBacktrace:\n" +
				"/x/redis-server *:5001(RM__Assert+0x30)[0x1]\n" +
				"/x/redisraft.so(logGet+0x50)[0x2]\n" +
				"/x/redisraft.so(handleAppendEntries+0x90)[0x3]\n" +
				"/lib/libc.so.6(+0x1)[0x4]\n",
			"assert: log.c:220 'idx > 0' @ logGet < handleAppendEntries"},
		{"RedisRaft panic, numbers blanked",
			"1:M 27 Nov 2026 21:00:00.000 # <raft> \n\n!!! REDIS RAFT PANIC !!!\n1:M 27 Nov 2026 21:00:00.000 # <raft> Failed to apply entry 17 in term 4\n",
			"panic: Failed to apply entry N in term N"},
		{"segfault",
			"1:M 27 Nov 2026 21:00:00.000 # Redis 7.1 crashed by signal: 11, si_code: 1\nBacktrace:\n" +
				"/x/redis-server *:5001(sigsegvHandler+0x9)[0x1]\n/x/redisraft.so(raft_node_get_id+0x4)[0x2]\n/x/redisraft.so(callRaftPeriodic+0x8)[0x3]\n/x/redis-server *:5001(aeMain+0x1)[0x4]\n",
			"signal 11 @ raft_node_get_id < callRaftPeriodic < aeMain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sig, msg := crashSignature(tc.log)
			require.Equal(t, tc.sig, sig)
			require.Equal(t, tc.sig == "", msg == "", "message %q", msg)
			if tc.sig != "" {
				require.NotEmpty(t, crashReport("1:M noise before\n"+tc.log))
				require.NotContains(t, crashReport("1:M noise before\n"+tc.log), "noise before", "the report starts at the crash")
			}
		})
	}
}
