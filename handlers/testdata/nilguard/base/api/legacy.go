package api

// Legacy has dereferenced a nil user for a long time: the change must not be blamed for it.
func Legacy(u *User) string {
	if u == nil {
		return u.Email
	}
	return ""
}
