package sentence

import (
	"runtime"
	"strings"
	"testing"
)

// query8 and query30 are queries of 8 and 30 words as an agent writes them.
const (
	query8  = "let the customer know by SMS about parcels"
	query30 = "find the operation that lists every open pull request in a repository which was created by a given user during the last week and has at least one failing check or a pending review"
)

func benchEmbed(b *testing.B, text string) {
	m := model(b)
	n := len(m.Tokenize(text))
	b.ReportAllocs()
	for b.Loop() {
		m.Embed(text)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/token")
	b.ReportMetric(float64(n), "tokens")
}

func BenchmarkEmbed8Words(b *testing.B)  { benchEmbed(b, query8) }
func BenchmarkEmbed30Words(b *testing.B) { benchEmbed(b, query30) }

// BenchmarkEmbedMany: 64 tool texts at a time, on every CPU.
func BenchmarkEmbedMany(b *testing.B) {
	m := model(b)
	var batch []string
	tokens := 0
	for i := range 64 {
		s := strings.Fields(query30)
		s = s[i%7 : 10+i%20]
		batch = append(batch, strings.Join(s, " "))
		tokens += len(m.Tokenize(batch[i]))
	}
	for b.Loop() {
		m.EmbedMany(batch)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(tokens), "ns/token")
}

// BenchmarkLoad: reading the npm package's files; heap-MB is what a
// loaded model keeps.
func BenchmarkLoad(b *testing.B) {
	dir := modelDir(b)
	b.ReportAllocs()
	var m *Model
	for b.Loop() {
		var err error
		if m, err = Load(dir); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var before, after runtime.MemStats
	m = nil
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, _ = Load(dir)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(m)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MB")
}
