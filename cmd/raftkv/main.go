// Command raftkv runs one replica of raftkv, a key-value server on
// go.etcd.io/raft/v3: standalone, or under the modelfuzz fuzzer when
// --fuzzer (or MODELFUZZ_URL) is set. See package raftkv for the protocol,
// the events and the files of --data.
//
// This package is wiring only: flags, logging, signals.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/pflag"

	"github.com/modelfuzz/modelfuzz/raftkv"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stderr))
}

const usage = `Usage: raftkv --id N --cluster "1=HOST:PORT,2=..." --client HOST:PORT --data DIR [flags]

Runs replica N of a raftkv cluster. Without --fuzzer the replicas send their
messages to each other and a clock ticks; with it, every message goes to the
fuzzer, which delivers it, and elections start only when it says so.

Flags:
`

// run is main without the exit: it returns the exit code (0 on a signal,
// 1 on a failure, 2 on bad flags).
func run(args []string, getenv func(string) string, stderr io.Writer) int {
	cfg, level, err := parseFlags(args, getenv, stderr)
	if errors.Is(err, pflag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "raftkv: "+err.Error())
		return 2
	}
	cfg.Logger = hclog.New(&hclog.LoggerOptions{
		Name: "raftkv-" + strconv.FormatUint(cfg.ID, 10), Level: hclog.LevelFromString(level), Output: stderr,
	})
	srv, err := raftkv.Start(cfg)
	if err != nil {
		fmt.Fprintln(stderr, err.Error())
		return 1
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	select {
	case <-sig:
		srv.Close()
		return 0
	case err := <-srv.Fatal():
		fmt.Fprintln(stderr, err.Error())
		srv.Close()
		return 1
	}
}

// parseFlags reads the flags; MODELFUZZ_ID and MODELFUZZ_URL are the
// defaults of --id and --fuzzer.
func parseFlags(args []string, getenv func(string) string, stderr io.Writer) (raftkv.Config, string, error) {
	fs := pflag.NewFlagSet("raftkv", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	var cfg raftkv.Config
	var cluster, level string
	var id uint64
	if v := getenv("MODELFUZZ_ID"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return cfg, "", fmt.Errorf("MODELFUZZ_ID=%q is not a replica id", v)
		}
		id = n
	}
	fs.Uint64Var(&id, "id", id, "this replica's id, 1-based (default $MODELFUZZ_ID)")
	fs.StringVar(&cluster, "cluster", "", `every replica's peer address: "1=127.0.0.1:7101,2=127.0.0.1:7102,3=127.0.0.1:7103"`)
	fs.StringVar(&cfg.ClientAddr, "client", "", "address of the client HTTP API (PUT and GET /kv/<key>)")
	fs.StringVar(&cfg.DataDir, "data", "", "data directory (created and bootstrapped if empty)")
	fs.StringVar(&cfg.FuzzerURL, "fuzzer", getenv("MODELFUZZ_URL"), "URL of the fuzzer's interception server; empty: standalone (default $MODELFUZZ_URL)")
	fs.StringVar(&cfg.Inject, "inject", "", "seeded bug: send-before-persist or stale-read")
	fs.DurationVar(&cfg.Tick, "tick", raftkv.DefaultTick, "standalone: real-clock tick (election timeout 10 ticks, heartbeat 1)")
	fs.IntVar(&cfg.SnapshotEvery, "snapshot-every", raftkv.DefaultSnapshotEvery, "applied entries between snapshots")
	fs.StringVar(&level, "log-level", "warn", "trace, debug, info, warn or error (to stderr)")
	if err := fs.Parse(args); err != nil {
		return cfg, "", err
	}
	if fs.NArg() > 0 {
		return cfg, "", fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if id == 0 {
		return cfg, "", errors.New("--id (or MODELFUZZ_ID) is required")
	}
	if cluster == "" {
		return cfg, "", errors.New("--cluster is required")
	}
	if hclog.LevelFromString(level) == hclog.NoLevel {
		return cfg, "", fmt.Errorf("unknown --log-level %q", level)
	}
	cl, err := raftkv.ParseCluster(cluster)
	if err != nil {
		return cfg, "", err
	}
	cfg.ID, cfg.Cluster = id, cl
	return cfg, level, cfg.Validate()
}
