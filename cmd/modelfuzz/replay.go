package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/fuzzer"
)

func newReplayCmd() *cobra.Command {
	var (
		af        adapterFlags
		corpusDir string
		jsonOut   bool
	)
	cmd := &cobra.Command{
		Use:   "replay [--corpus DIR] (INPUT.json | INPUT_ID | BUG_ID)",
		Short: "Re-execute an input and print its event trace as a timeline",
		Long: `Re-execute one input and print what happened, step by step.

The input is a JSON file, or the id of an input (12) or of a bug (B1) stored
in --corpus. With --corpus, the system is configured as the campaign was;
otherwise from the adapter flags. Executions are deterministic: the same
input always gives the same trace, byte for byte (--json prints it).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			fac, in, what, err := loadReplayInput(&af, corpusDir, args[0])
			if err != nil {
				return err
			}
			sys, err := fac.New()
			if err != nil {
				return err
			}
			ex, err := sys.Execute(in)
			if err != nil {
				return fmt.Errorf("replay %s: %v", what, err)
			}
			w := cmd.OutOrStdout()
			if jsonOut {
				w.Write(fuzzer.EncodeTrace(ex.Trace))
				return nil
			}
			fmt.Fprintf(w, "replay of %s on %s: %d steps, %d events, %d skipped\n\n", what, fac.Spec().Name, in.Len(), len(ex.Trace), ex.Skipped)
			fmt.Fprint(w, fuzzer.Timeline(fac.Spec(), in, ex))
			if len(ex.Failures) == 0 {
				fmt.Fprintln(w, "\nno failure")
			}
			for _, f := range ex.Failures {
				fmt.Fprintf(w, "\nFAILURE at step %d: %s: %s\nsignature: %s\n", f.Step, f.Kind, f.Message, f.Signature)
			}
			return nil
		},
	}
	af.register(cmd.Flags())
	cmd.Flags().StringVar(&corpusDir, "corpus", "", "campaign directory holding the input, and the system's configuration")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the event trace as JSON instead of a timeline")
	return cmd
}

// loadReplayInput resolves the argument of replay to a system and an input.
func loadReplayInput(af *adapterFlags, corpusDir, arg string) (fuzzer.Factory, *fuzzer.Input, string, error) {
	if corpusDir == "" {
		data, err := os.ReadFile(arg)
		if err != nil {
			return nil, nil, "", fmt.Errorf("replay: %v (give a JSON file, or an id with --corpus DIR)", err)
		}
		in, err := fuzzer.DecodeInput(data)
		if err != nil {
			return nil, nil, "", fmt.Errorf("%s: %v", arg, err)
		}
		fac, _, err := af.factory()
		return fac, in, arg, err
	}
	store, err := corpus.Open(corpusDir, corpus.Options{MustExist: true})
	if err != nil {
		return nil, nil, "", err
	}
	defer store.Close()
	camp, err := store.Campaign()
	if err != nil {
		return nil, nil, "", err
	}
	if camp == nil {
		return nil, nil, "", fmt.Errorf("corpus %s: holds no campaign yet", corpusDir)
	}
	info, err := lookupAdapter(camp.Adapter)
	if err != nil {
		return nil, nil, "", fmt.Errorf("corpus %s: %v", corpusDir, err)
	}
	fac, err := info.fromConfig(camp.AdapterConfig)
	if err != nil {
		return nil, nil, "", err
	}
	if data, err := os.ReadFile(arg); err == nil {
		in, err := fuzzer.DecodeInput(data)
		if err != nil {
			return nil, nil, "", fmt.Errorf("%s: %v", arg, err)
		}
		return fac, in, arg, nil
	}
	if strings.HasPrefix(arg, "B") {
		bug, err := store.Bug(arg)
		if err != nil {
			return nil, nil, "", err
		}
		return fac, bug.Input, "bug " + bug.ID, nil
	}
	id, err := strconv.ParseUint(arg, 10, 64)
	if err != nil {
		return nil, nil, "", fmt.Errorf("replay: %q is neither a file, an input id (12) nor a bug id (B1)", arg)
	}
	rec, err := store.Input(id)
	if err != nil {
		return nil, nil, "", err
	}
	return fac, rec.Input, "input " + arg, nil
}
