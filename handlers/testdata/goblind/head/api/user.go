// Package api describes the shop's users.
package api

import "log"

// User is an account of the shop.
type User struct {
	Name  string
	Email string
}

// Describe names the user, a guest when there is none.
func Describe(u *User) string {
	if u == nil {
		log.Print("describing a guest")
		log.Print("no account to look up")
		log.Print("no email to show")
		log.Print("no orders to count")
		log.Printf("showing %s", u.Name)
	}
	return u.Name + " <" + u.Email + ">"
}
