package pack

import (
	"path/filepath"
	"testing"
)

// TestStoreLocation: the store: key is a postgres:// URL or a SQLite path
// relative to the pack, and "$VAR" / "${VAR}" take it from the
// environment (empty when the variable is unset: the default store).
func TestStoreLocation(t *testing.T) {
	t.Setenv("CODEMODE_STORE", "postgres://u@db:5432/cm")
	t.Setenv("CODEMODE_EMPTY", "")
	dir := t.TempDir()
	for key, want := range map[string]string{
		"":                  "",
		"${CODEMODE_STORE}": "postgres://u@db:5432/cm",
		"$CODEMODE_STORE":   "postgres://u@db:5432/cm",
		"${CODEMODE_EMPTY}": "",
		"state/cm.db":       filepath.Join(dir, "state/cm.db"),
		"/var/cm.db":        "/var/cm.db",
	} {
		p := &Pack{Dir: dir, Store: key}
		if got := p.StoreLocation(); got != want {
			t.Errorf("store: %q: got %q, want %q", key, got, want)
		}
	}
}
