package gateway

// SetMaxReadLines lets tests cut reads short; it returns the old value.
func SetMaxReadLines(n int) int {
	old := maxReadLines
	maxReadLines = n
	return old
}
