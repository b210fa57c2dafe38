package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/hashicorp/go-hclog"
)

// listenLive opens the address of run --http ("" : none).
func listenLive(addr string) (net.Listener, error) {
	if addr == "" {
		return nil, nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("--http %s: want HOST:PORT, such as 127.0.0.1:8080", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--http %s: %v", addr, errors.Unwrap(err))
	}
	return ln, nil
}

// serveLive serves the live view on ln until the returned stop is called.
func serveLive(ln net.Listener, live interface {
	http.Handler
	Close()
}, logger hclog.Logger) (stop func()) {
	srv := &http.Server{Handler: live, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Warn("live view stopped", "error", err)
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
		live.Close()
	}
}
