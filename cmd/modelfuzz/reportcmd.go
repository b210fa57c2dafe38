package main

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/modelfuzz/modelfuzz/internal/cmdline"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/campaign"
	"github.com/modelfuzz/modelfuzz/hub"
	"github.com/modelfuzz/modelfuzz/report"
)

func newReportCmd() *cobra.Command {
	var (
		dir     string
		hubURL  string
		out     string
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "report --corpus DIR --out FILE.html",
		Short: "Write a self-contained HTML report of one campaign: coverage over time and its bugs",
		Long: `Write one campaign as a self-contained HTML page (no network needed to open
it): its settings and totals, its coverage over fuzzing time from the stats
snapshots stored every --stats-every (across restarts), and every distinct
bug with its minimized reproducer replayed as a timeline and, when the
campaign has a model, the model states it visits.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return fmt.Errorf("report needs --out FILE.html")
			}
			if err := cmdline.NotNegative("--exec-timeout", timeout); err != nil {
				return err
			}
			if err := cmdline.OutFile("--out", out); err != nil {
				return err
			}
			cp, err := campaignReport(cmd, dir, hubURL, timeout)
			if err != nil {
				return err
			}
			var page bytes.Buffer
			if err := report.WriteCampaignHTML(&page, cp); err != nil {
				return err
			}
			if err := os.WriteFile(out, page.Bytes(), 0o644); err != nil {
				return fmt.Errorf("--out %s: cannot write it: %v", out, errors.Unwrap(err))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d figure(s), %d bug(s)\n", out, len(cp.Plots), len(cp.Bugs))
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "corpus", "", "campaign directory (required, unless --hub)")
	cmd.Flags().StringVar(&hubURL, "hub", "", "report the campaign at this hub (nats://HOST:4222): every worker, the union coverage, the bugs (not replayed)")
	cmd.Flags().StringVar(&out, "out", "", "the HTML file to write (required)")
	cmd.Flags().DurationVar(&timeout, "exec-timeout", 10*time.Second, "stop a replay that runs longer (a hang)")
	return cmd
}

// campaignReport gathers the report of the campaign in dir, or at the hub.
func campaignReport(cmd *cobra.Command, dir, hubURL string, timeout time.Duration) (cp *report.Campaign, err error) {
	if hubURL != "" {
		err = withHub(hubURL, func(cl *hub.Client) error { cp, err = campaign.HubReport(cl); return err })
		return cp, err
	}
	env, err := campaign.OpenEnvReadOnly(dir, nil)
	if err != nil {
		return nil, err
	}
	defer env.Close()
	noteSnapshot(cmd.ErrOrStderr(), env.Store)
	return env.Report(timeout)
}
