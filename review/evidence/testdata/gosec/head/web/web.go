// Package web serves a few handlers.
package web

import (
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
)

// Server holds the database.
type Server struct{ DB *sql.DB }

// Old already ran a program named by the request before the change.
func (s *Server) Old(w http.ResponseWriter, r *http.Request) {
	out, err := exec.Command(r.URL.Query().Get("tool")).Output()
	if err != nil {
		http.Error(w, "failed", http.StatusInternalServerError)
		return
	}
	_, _ = w.Write(out)
}

// Names looks up users by id, now with the id spliced into the query.
func (s *Server) Names(w http.ResponseWriter, r *http.Request) {
	query := fmt.Sprintf("SELECT name FROM users WHERE id = '%s'", r.FormValue("id"))
	rows, err := s.DB.Query(query)
	if err != nil {
		http.Error(w, "failed", http.StatusInternalServerError)
		return
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return
		}
		names = append(names, n)
	}
	_, _ = w.Write([]byte(strings.Join(names, ",")))
}

// ByIDs looks up several users: the placeholders are generated, the values bound.
func (s *Server) ByIDs(w http.ResponseWriter, r *http.Request) {
	ids := r.URL.Query()["id"]
	if len(ids) == 0 {
		return
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	marks := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
	rows, err := s.DB.Query("SELECT name FROM users WHERE id IN ("+marks+")", args...)
	if err != nil {
		http.Error(w, "failed", http.StatusInternalServerError)
		return
	}
	_ = rows.Close()
}

// Convert runs the converter the request names.
func (s *Server) Convert(w http.ResponseWriter, r *http.Request) {
	cmd := exec.Command("convert", r.FormValue("in"), "out.png")
	if err := cmd.Run(); err != nil {
		http.Error(w, "failed", http.StatusInternalServerError)
	}
}

// Download serves a file the request names.
func (s *Server) Download(w http.ResponseWriter, r *http.Request) {
	f, err := os.Open(r.URL.Query().Get("file"))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	_, _ = io.Copy(w, f)
}

// Proxy fetches the URL the request gives.
func (s *Server) Proxy(w http.ResponseWriter, r *http.Request) {
	resp, err := http.Get(r.FormValue("url"))
	if err != nil {
		http.Error(w, "failed", http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	_, _ = io.Copy(w, resp.Body)
}
