package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/modelfuzz/modelfuzz/internal/cmdline"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/tlc"
	"github.com/modelfuzz/modelfuzz/tlc/sidecar"
)

type serveFlags struct {
	model, config string
	consts        []string
	addr          string
	maxBody       int64
	cache         int
	logLevel      string
	cpuProfile    string
	memoryLimit   int64
	openExecute   bool
}

func newServeCmd() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve --model FILE|NAME",
		Short: "Serve trace simulation of a TLA+ model over HTTP (the fuzzer's sidecar)",
		Long: `Serve trace simulation of a TLA+ model on a loopback address, for a fuzzer
that runs the model engine as a subprocess (modelfuzz does so itself).

When it accepts requests it prints one line on stdout:

  listening on http://127.0.0.1:PORT

Every request must carry "Authorization: Bearer TOKEN", with the token from
the environment variable ` + sidecar.TokenEnv + `; when it is unset, a random
token is made and printed on stderr. The protocol (JSON):

  POST /v1/simulate  {"actions":[{"name":"Start","params":{"p":1}}],"include_states":false}
  GET  /v1/health
  GET  /v1/model
  POST /execute      the reference ModelFuzz TLC server's protocol:
                     [{"Name":"Start","Params":{"p":1}}, {"Reset":true}]
                     answers {"States":[...],"Keys":[...]}
                     (without the token with --open-execute)

--model is a .tla file (with FILE.cfg unless --config names another) or
the name of an embedded model (` + fmt.Sprint(models.Embedded()) + `). SIGINT or SIGTERM
stops the server after the requests in flight.`,
		Args: cmdline.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.OutOrStdout(), cmd.ErrOrStderr(), &f)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.model, "model", "", "the TLA+ model: a .tla file or an embedded model's name")
	fs.StringVar(&f.config, "config", "", "TLC configuration file (default: the model's .cfg)")
	fs.StringArrayVar(&f.consts, "const", nil, "replace a constant of the cfg: NAME=VALUE in cfg syntax (repeatable)")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:0", "loopback address to listen on (port 0: any free port)")
	fs.Int64Var(&f.maxBody, "max-body", sidecar.DefaultMaxBody, "largest request body in bytes")
	fs.IntVar(&f.cache, "cache", 0, "most memoized transitions (0: 16384)")
	fs.StringVar(&f.logLevel, "log-level", "warn", "log level on stderr: error, warn, info, debug")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a Go CPU profile of the server to this file")
	fs.Int64Var(&f.memoryLimit, "memory-limit", 768, "soft limit of the server's Go heap in MiB, as run's (0: none; $GOMEMLIMIT and $GOGC win)")
	fs.BoolVar(&f.openExecute, "open-execute", false, "answer POST /execute without the token, for the reference fuzzer's clients (which send none)")
	return cmd
}

func runServe(stdout, stderr io.Writer, f *serveFlags) error {
	if err := cmdline.ApplyMemoryLimit("--memory-limit", f.memoryLimit); err != nil {
		return err
	}
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %v", err)
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			return fmt.Errorf("--cpuprofile: %v", err)
		}
		defer func() { pprof.StopCPUProfile(); pf.Close() }()
	}
	logger, err := cmdline.NewLogger(f.logLevel)
	if err != nil {
		return err
	}
	if f.maxBody <= 0 {
		return fmt.Errorf("--max-body must be positive")
	}
	if f.cache < 0 {
		return fmt.Errorf("--cache must not be negative")
	}
	ln, err := sidecar.ListenLoopback(f.addr)
	if err != nil {
		return fmt.Errorf("--addr: %v", err)
	}
	defer ln.Close()
	m, err := models.Load(models.Spec{Model: f.model, Config: f.config, Consts: f.consts})
	if err != nil {
		code, _ := tlc.LoadFailure(err)
		return &ExitError{Code: code, Err: err}
	}
	m.Out = stderr // Print and PrintT must not mix with the ready line
	s, err := tlc.NewSimulator(m, f.cache)
	if err != nil {
		if strings.HasPrefix(err.Error(), "model "+f.model+":") {
			return err // it names the model already
		}
		return fmt.Errorf("model %s: %v", f.model, err)
	}
	token := os.Getenv(sidecar.TokenEnv)
	if token == "" {
		token = sidecar.NewToken()
		fmt.Fprintf(stderr, "token: %s\n", token)
	}
	srv, err := sidecar.NewServer(s, sidecar.ServerOptions{Token: token, MaxBody: f.maxBody, Logger: logger, OpenExecute: f.openExecute})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = sidecar.WatchParent(ctx) // a launched sidecar ends with its fuzzer
	logger.Info("serving", "model", m.Module.Name, "addr", ln.Addr().String())
	fmt.Fprintf(stdout, "%shttp://%s\n", sidecar.ReadyPrefix, ln.Addr())
	return srv.Serve(ctx, ln)
}
