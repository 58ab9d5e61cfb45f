// Command shopd serves the shop's API.
package main

import (
	"context"
	"database/sql"
	"flag"
	"log"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"example.com/shop/api"
	"example.com/shop/store"
	"example.com/shop/worker"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "where to listen")
	dsn := flag.String("db", "", "the database's data source name")
	hook := flag.String("hook", "", "the confirmation webhook's URL")
	flag.Parse()
	db, err := sql.Open("shopdb", *dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	confirms := make(chan int64, 64)
	go worker.NewNotifier(*hook).Run(ctx, confirms, 4)
	srv := &http.Server{Addr: *addr, Handler: (&api.Server{Store: store.New(db), Confirms: confirms}).Handler(),
		ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil {
			log.Printf("shutdown: %v", err)
		}
	}()
	if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
