// Package api serves the shop's orders over HTTP.
package api

import (
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"strconv"
	"time"

	"example.com/shop/store"
)

// Server answers the shop's HTTP API.
type Server struct {
	Store    *store.Store
	Confirms chan<- int64
}

// Handler returns the API's routes.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /orders/{id}", s.order)
	mux.HandleFunc("GET /customers/{name}/orders", s.customerOrders)
	mux.HandleFunc("POST /orders", s.newOrder)
	return mux
}

func (s *Server) order(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		http.Error(w, "bad order ID", http.StatusBadRequest)
		return
	}
	o, err := s.Store.Order(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		log.Printf("order %d: %v", id, err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	writeJSON(w, o)
}

func (s *Server) customerOrders(w http.ResponseWriter, r *http.Request) {
	limit := 20
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			http.Error(w, "bad limit", http.StatusBadRequest)
			return
		}
		limit = n
	}
	ids, err := s.Store.ByCustomer(r.Context(), r.PathValue("name"), limit)
	if err != nil {
		log.Printf("orders of %s: %v", r.PathValue("name"), err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	writeJSON(w, ids)
}

type newOrder struct {
	Customer string       `json:"customer"`
	Items    []store.Item `json:"items"`
}

func (s *Server) newOrder(w http.ResponseWriter, r *http.Request) {
	var in newOrder
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in); err != nil {
		http.Error(w, "bad order", http.StatusBadRequest)
		return
	}
	o := &store.Order{Customer: in.Customer, Items: in.Items, Created: time.Now()}
	for _, it := range in.Items {
		o.Total += it.Price * int64(it.Count)
	}
	id, err := s.Store.Save(r.Context(), o)
	if err != nil {
		log.Printf("saving an order of %s: %v", in.Customer, err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	select {
	case s.Confirms <- id:
	default:
		log.Printf("order %d: confirmation queue full", id)
	}
	w.WriteHeader(http.StatusCreated)
	writeJSON(w, map[string]int64{"id": id})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		log.Printf("writing a response: %v", err)
	}
}
