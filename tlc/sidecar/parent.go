package sidecar

import (
	"context"
	"os"
	"strconv"
	"time"
)

// ParentEnv names the process that launched a sidecar (its pid): the
// sidecar stops when that process is gone, so a fuzzer killed with SIGKILL
// leaves no model engine behind.
const ParentEnv = "MODELFUZZ_TLC_PARENT"

// WatchParent returns a context cancelled when the process named by
// ParentEnv is no longer this process's parent (it died and the sidecar was
// reparented). Without ParentEnv it is never cancelled.
func WatchParent(ctx context.Context) context.Context {
	pid, err := strconv.Atoi(os.Getenv(ParentEnv))
	if err != nil || pid <= 0 {
		return ctx
	}
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if os.Getppid() != pid {
					cancel()
					return
				}
			}
		}
	}()
	return ctx
}
