package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/campaign"
	"github.com/modelfuzz/modelfuzz/hub"
	"github.com/modelfuzz/modelfuzz/internal/cmdline"
)

func newHubCmd() *cobra.Command {
	var opt hub.ServerOptions
	var httpAddr, logLevel string
	cmd := &cobra.Command{
		Use:   "hub --dir DIR [--listen HOST:PORT] | --nats URL",
		Short: "Hold one campaign's shared state for workers on many machines (NATS JetStream)",
		Long: `Hold the shared state of one campaign whose workers ("modelfuzz run
--join URL") run on many machines: its settings, the inputs that reached new
coverage, the coverage items, the bugs (one a signature, each worker's hits,
one minimized reproducer) and each worker's stats. It embeds a NATS server
with JetStream on --listen, its file store in --dir (started again on the
same --dir, it goes on), or uses an existing cluster (--nats). It runs
until SIGINT or SIGTERM, then prints the union coverage, the workers'
iterations and the bugs. docs/distributed.md shows deployments.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logger, err := cmdline.NewLogger(logLevel)
			if err != nil {
				return err
			}
			ln, err := listenLive(httpAddr)
			if err != nil {
				return err
			}
			h, err := hub.Start(opt)
			if err != nil {
				if ln != nil {
					ln.Close()
				}
				return err
			}
			defer h.Close()
			fmt.Fprintf(cmd.OutOrStdout(), "hub: workers join with modelfuzz run --join %s\n", h.URL())
			if ln != nil {
				cl, err := h.Client()
				if err != nil {
					return err
				}
				stop := serveLive(ln, &campaign.HubPage{Client: cl}, logger)
				defer stop()
				fmt.Fprintf(os.Stderr, "hub page: http://%s/\n", ln.Addr())
			}
			ctx, stop := signalContext(logger, newProgress(os.Stderr, logger))
			defer stop()
			<-ctx.Done()
			return withHub(h.URL(), func(cl *hub.Client) error {
				text, err := campaign.HubSummaryText(cl)
				fmt.Fprint(cmd.OutOrStdout(), text)
				return err
			})
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opt.Dir, "dir", "", "the hub's directory: its JetStream file store (embedded server)")
	fs.StringVar(&opt.Listen, "listen", "127.0.0.1:4222", "the embedded server's address for workers (0.0.0.0:4222 for other machines)")
	fs.StringVar(&opt.URL, "nats", "", "an existing NATS cluster with JetStream (nats://HOST:4222,...): nothing is embedded")
	fs.IntVar(&opt.Replicas, "replicas", 1, "with --nats: replicas of the campaign's stream and bucket")
	fs.StringVar(&httpAddr, "http", "", "serve a page of the whole campaign at this address (127.0.0.1:PORT): workers' rates, union coverage over time, bugs")
	fs.StringVar(&logLevel, "log-level", "info", "log level: error, warn, info, debug")
	return cmd
}

// withHub runs fn on the campaign of the hub at url (--hub).
func withHub(url string, fn func(*hub.Client) error) error {
	cl, err := hub.Open(url)
	if err != nil {
		return err
	}
	defer cl.Close()
	return fn(cl)
}
