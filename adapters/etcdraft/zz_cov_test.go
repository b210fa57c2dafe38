package etcdraft

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/modelfuzz/modelfuzz/schedule"
)

func TestZZCoverage(t *testing.T) {
	cfg := DefaultConfig()
	if v := os.Getenv("ZZCFG"); v != "" {
		if err := json.Unmarshal([]byte(v), &cfg); err != nil {
			t.Fatal(err)
		}
	}
	shape := schedule.Shape{Steps: 100, MaxMessages: 5, CrashQuota: 10, Requests: 5}
	if v := os.Getenv("ZZSHAPE"); v != "" {
		if err := json.Unmarshal([]byte(v), &shape); err != nil {
			t.Fatal(err)
		}
	}
	f, s := newSystem(t, cfg)
	g, err := schedule.NewGenerator(f.Spec(), shape)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 10000; i++ {
		ex, _ := run(t, s, g.Random(r))
		if len(ex.Failures) > 0 {
			t.Fatalf("failure %+v", ex.Failures[0])
		}
	}
}
