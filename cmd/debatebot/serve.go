package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot"
	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/handlers"
	"github.com/debatebot/debatebot/handlers/appsetup"
	"github.com/debatebot/debatebot/review/evidence/redact"
	"github.com/debatebot/debatebot/review/pipeline"
)

// serve runs the GitHub App until ctx ends.
func serve(ctx context.Context, args []string, stderr io.Writer, getenv func(string) string) error {
	if len(args) > 0 {
		return &pipeline.UsageError{Msg: fmt.Sprintf("serve takes no arguments, got %q (configure it with the environment or DEBATEBOT_CONFIG)", args[0])}
	}
	cfg, err := config.LoadServer(getenv, os.ReadFile)
	if ce := (*config.Error)(nil); errors.As(err, &ce) && ce.Unregistered {
		cfg, err = registerApp(ctx, err, stderr, getenv)
	}
	if err != nil || cfg == nil {
		return err
	}
	level, err := zerolog.ParseLevel(cfg.LogLevel)
	if err != nil {
		return &pipeline.UsageError{Msg: fmt.Sprintf("DEBATEBOT_LOG_LEVEL: %v", err)}
	}
	log := zerolog.New(redact.RedactingWriter(stderr)).Level(level).With().Timestamp().Logger()
	srv, err := handlers.New(ctx, cfg, log, nil)
	if err != nil {
		return err
	}
	defer srv.Close()
	restore, err := ownWorkspace(log)
	if err != nil {
		return err
	}
	defer restore()
	workers, stop := context.WithCancel(context.Background())
	defer stop()
	srv.Start(workers)
	httpServer := &http.Server{Addr: cfg.Addr, Handler: srv.Handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- httpServer.ListenAndServe() }()
	log.Info().Str("addr", cfg.Addr).Str("app", srv.Slug).Msg("debatebot is serving.")
	select {
	case err := <-errc:
		return fmt.Errorf("failed to serve on %s: %w", cfg.Addr, err)
	case <-ctx.Done():
	}
	// Drain: the listener stays open and deliveries are answered 503 with Retry-After, so that
	// GitHub's delivery log shows a failure someone can redeliver rather than a refused
	// connection, until the running debates finish or the grace period ends.
	srv.Drain()
	httpServer.SetKeepAlivesEnabled(false)
	log.Info().Msg("Shutting down: deliveries are answered 503 while the running debates finish.")
	grace, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout) // DEBATEBOT_SHUTDOWN_TIMEOUT
	defer cancel()
	done := make(chan struct{})
	go func() { srv.Queue.Wait(); close(done) }()
	select {
	case <-done:
	case <-grace.Done():
		log.Warn().Msg("Debates still running at shutdown were stopped; they resume from their checkpoints on the next start.")
	}
	// Then the listener closes, after the requests in flight are answered.
	closing, cancelClose := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelClose()
	if err := httpServer.Shutdown(closing); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("failed to shut down: %w", err)
	}
	stop()
	srv.Queue.Stop()
	return nil
}

// registerApp serves the setup page until the App is registered by GitHub's manifest flow, then
// reads the configuration again, with the credentials it stored; unregistered is LoadServer's
// error, returned when the setup cannot run (no DEBATEBOT_PUBLIC_URL, say). A nil
// configuration and error: ctx ended first.
func registerApp(ctx context.Context, unregistered error, stderr io.Writer, getenv func(string) string) (*config.Server, error) {
	cfg, err := config.LoadSetup(getenv, os.ReadFile)
	if err != nil {
		return nil, unregistered
	}
	level, err := zerolog.ParseLevel(cfg.LogLevel)
	if err != nil {
		return nil, &pipeline.UsageError{Msg: fmt.Sprintf("DEBATEBOT_LOG_LEVEL: %v", err)}
	}
	log := zerolog.New(redact.RedactingWriter(stderr)).Level(level).With().Timestamp().Logger()
	setup, err := appsetup.New(appsetup.Options{AppYML: debatebot.AppManifest, PublicURL: cfg.PublicURL,
		WebURL: cfg.GitHub.WebURL, APIURL: cfg.GitHub.V3APIURL, AppFile: cfg.AppFile, Log: log})
	if err != nil {
		return nil, err
	}
	log.Info().Str("addr", cfg.Addr).Str("app_file", cfg.AppFile).Msg("The GitHub App is not registered yet: open the setup page to register it.")
	// The link carries the one-time token: printed as is, for the person who started serve.
	fmt.Fprintf(stderr, "\n  Register the GitHub App: open %s\n\n", setup.URL())
	if err := setup.Run(ctx, cfg.Addr); err != nil {
		if ctx.Err() != nil {
			return nil, nil
		}
		return nil, err
	}
	return config.LoadServer(getenv, os.ReadFile)
}

// WorkDir is the folder, in the temporary directory, where each `serve` process keeps its
// temporary files (the pull requests' trees, the analyzers' scratch) in a folder of its own.
const WorkDir = "debatebot-work"

// ownWorkspace removes the temporary files that processes which are gone left behind (a crash or
// kill -9 leaves a debate's trees), never a live replica's, and makes this process's temporary
// directory its own workspace, so that what it leaves is found at the next start; its child
// processes (git, go, python3, node) inherit it. restore puts the temporary directory back and
// removes the workspace.
func ownWorkspace(log zerolog.Logger) (restore func(), err error) {
	tmp := os.TempDir()
	ws, removed, err := handlers.OpenWorkspace(filepath.Join(tmp, WorkDir))
	if len(removed) > 0 {
		log.Info().Strs("removed", removed).Msg("Removed the temporary files that stopped processes left behind.")
	}
	if err != nil {
		if ws == nil {
			return nil, fmt.Errorf("failed to prepare the temporary directory (set TMPDIR to a writable directory): %w", err)
		}
		log.Warn().Err(err).Msg("Some left-over temporary files could not be removed.")
	}
	prev, had := os.LookupEnv("TMPDIR")
	if err := os.Setenv("TMPDIR", ws.Dir); err != nil {
		_ = ws.Close()
		return nil, fmt.Errorf("failed to set TMPDIR: %w", err)
	}
	return func() {
		if had {
			_ = os.Setenv("TMPDIR", prev)
		} else {
			_ = os.Unsetenv("TMPDIR")
		}
		if err := ws.Close(); err != nil {
			log.Warn().Err(err).Msg("Could not remove the temporary files.")
		}
	}, nil
}
