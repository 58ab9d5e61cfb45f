package gin

import (
	"log"
	"net/http"
	"os"
	"time"
)

// Engine is the framework's instance.
type Engine struct {
	mux *http.ServeMux
}

// Handler returns the engine as an http.Handler.
func (engine *Engine) Handler() http.Handler { return engine.mux }

func resolveAddress(addr []string) string {
	switch len(addr) {
	case 0:
		if port := os.Getenv("PORT"); port != "" {
			return ":" + port
		}
		return ":8080"
	default:
		return addr[0]
	}
}

// Run attaches the router to a http.Server and starts listening and serving HTTP requests.
func (engine *Engine) Run(addr ...string) (err error) {
	address := resolveAddress(addr)
	log.Printf("Listening and serving HTTP on %s\n", address)

	server := &http.Server{
		Addr:        address,
		Handler:     engine.Handler(),
		ReadTimeout: 60 * time.Second,
	}
	err = server.ListenAndServe()
	return
}
