// Package web serves a few handlers.
package web

import (
	"database/sql"
	"net/http"
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

// Names looks up users by id with a bound parameter.
func (s *Server) Names(w http.ResponseWriter, r *http.Request) {
	rows, err := s.DB.Query("SELECT name FROM users WHERE id = ?", r.FormValue("id"))
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
