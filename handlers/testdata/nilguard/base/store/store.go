// Package store keeps the shop's users; the change does not touch it.
package store

// Users are the accounts by name.
var Users = map[string]string{}
