package main

import (
	"fmt"
	"github.com/modelfuzz/modelfuzz/internal/cmdline"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/campaign"
	"github.com/modelfuzz/modelfuzz/repro"
)

func newBugsExportCmd(dir *string) *cobra.Command {
	var (
		goTest, out string
		original    bool
		af          campaign.SystemFlags
		timeout     time.Duration
	)
	cmd := &cobra.Command{
		Use:   "export (--corpus DIR BUG_ID | [adapter flags] INPUT.json) (--go-test DIR | --out DIR)",
		Short: "Write a bug's reproducer for people who do not run modelfuzz",
		Long: `Write what a maintainer needs to reproduce a bug without modelfuzz.

--go-test DIR (etcdraft adapter): a self-contained Go test, the standard
library and go.etcd.io/raft/v3 only, that runs the bug's minimized schedule
through the same application of the library the fuzzer ran (carried along
as harness_test.go) and fails with the bug's signature:

  cd DIR && go mod init x && go get go.etcd.io/raft/v3@v3.7.0 && go test

--out DIR (any adapter): README.md with the report header (versions,
settings, replay command), input.json (the minimized input, with the system
it ran on), for the process adapter cluster.json, the cluster file, and for
a campaign that validated the library's own trace (--model etcdraft.tla,
e.g. a spec-divergence) trace.ndjson, that trace as the maintainers'
tla/validate.sh reads it, with the validate.sh and TLC command lines that
check it against their Traceetcdraft.tla.

The bug is a stored one (--corpus DIR BUG_ID) or the failure that replaying
an input file shows (INPUT.json with the adapter flags it ran with).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if goTest == "" && out == "" {
				return fmt.Errorf("bugs export needs --go-test DIR or --out DIR: where to write")
			}
			if err := cmdline.NotNegative("--exec-timeout", timeout); err != nil {
				return err
			}
			for flag, d := range map[string]string{"--out": out, "--go-test": goTest} {
				if d != "" {
					if err := cmdline.OutDir(flag, d); err != nil {
						return err
					}
				}
			}
			var (
				e   *campaign.BugExport
				err error
			)
			if *dir != "" {
				e, err = campaign.ExportStoredBug(*dir, args[0], original, timeout)
			} else {
				e, err = campaign.ExportInputFile(args[0], af, cmd.Flags(), timeout)
			}
			if err != nil {
				return err
			}
			return writeExport(cmd.OutOrStdout(), e, out, goTest)
		},
	}
	cmd.Flags().StringVar(&goTest, "go-test", "", "write a Go test that reproduces the bug into this directory (etcdraft)")
	cmd.Flags().StringVar(&out, "out", "", "write the input, the cluster file and the report header into this directory")
	cmd.Flags().BoolVar(&original, "original", false, "export the input that found the bug, not the minimized one")
	cmd.Flags().DurationVar(&timeout, "exec-timeout", 10*time.Second, "stop a replay that runs longer (a hang)")
	af.Register(cmd.Flags())
	return cmd
}

// writeExport writes the bug's files into out and its Go test into goTest
// ("": not asked for), and says what it wrote.
func writeExport(w io.Writer, e *campaign.BugExport, out, goTest string) error {
	if out != "" {
		if err := campaign.WriteFiles(out, e.Files(out)); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote %s's input and report header to %s\n", e.Bug.ID, out)
		if e.SpecTrace != nil {
			fmt.Fprintf(w, "wrote the library's trace (%d events) to %s; README.md has the validate.sh and TLC command lines that check it\n",
				e.SpecEvents, filepath.Join(out, "trace.ndjson"))
		}
	}
	if goTest != "" {
		files, err := e.GoTest()
		if err != nil {
			return err
		}
		if err := campaign.WriteFiles(goTest, files); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote a Go test of %s to %s (%s, %s)\nrun it: cd %s && go mod init x && go get go.etcd.io/raft/v3@v3.7.0 && go test\n",
			e.Bug.ID, goTest, repro.TestFile, repro.HarnessFile, goTest)
	}
	return nil
}
