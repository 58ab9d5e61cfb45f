package repo

import (
	"compress/gzip"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
)

// serviceRPC runs git-upload-pack or git-receive-pack for a smart HTTP request. The request
// body goes through a temporary file so that a large push is not held in memory.
func serviceRPC(w http.ResponseWriter, r *http.Request, dir, service string) {
	defer r.Body.Close()
	var reqBody io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(reqBody)
		if err != nil {
			log.Printf("HTTP.Get: fail to create gzip reader: %v", err)
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		reqBody = gz
	}

	tmpfile, err := os.CreateTemp("", "gogs-rpc-")
	if err != nil {
		log.Printf("HTTP.Get: fail to create temporary file: %v", err)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	defer os.Remove(tmpfile.Name())
	defer tmpfile.Close()

	if _, err = io.Copy(tmpfile, reqBody); err != nil {
		log.Printf("HTTP.Get: fail to save request body: %v", err)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	if _, err = tmpfile.Seek(0, io.SeekStart); err != nil {
		log.Printf("HTTP.Get: fail to rewind request body: %v", err)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}

	w.Header().Set("Content-Type", "application/x-git-"+service+"-result")
	cmd := exec.Command("git", service, "--stateless-rpc", dir)
	cmd.Dir = dir
	cmd.Stdin = tmpfile
	cmd.Stdout = w
	if err := cmd.Run(); err != nil {
		log.Printf("HTTP.serviceRPC: fail to serve RPC '%s': %v", service, err)
		return
	}
}
