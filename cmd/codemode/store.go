package main

import (
	"context"
	"path/filepath"

	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/runtime"
	"github.com/codemode-dev/codemode/store"
)

// storeLocation is where a command keeps sessions, jobs and waits: the
// --store flag, else the pack's store: key, else the SQLite file in the
// --state directory, else def ("" lets the runtime keep a temporary one).
func storeLocation(p *pack.Pack, flag, state, def string) string {
	switch {
	case flag != "":
		if store.IsPostgres(flag) {
			return flag
		}
		abs, _ := filepath.Abs(flag)
		return abs
	case p != nil && p.StoreLocation() != "":
		return p.StoreLocation()
	case state != "":
		return filepath.Join(state, runtime.StoreFile)
	}
	return def
}

// namedStore is the store --store or the pack's store: names, "" when
// neither does.
func namedStore(p *pack.Pack, flag string) string {
	return storeLocation(p, flag, "", "")
}

// openStore opens the store at loc; nil for "".
func openStore(ctx context.Context, loc string, o store.Options) (store.Store, error) {
	if loc == "" {
		return nil, nil
	}
	return store.Open(ctx, loc, o)
}

// defaultStore is the SQLite file beside the pack.
func defaultStore(p *pack.Pack) string {
	return p.Path(filepath.Join(".codemode", runtime.StoreFile))
}
