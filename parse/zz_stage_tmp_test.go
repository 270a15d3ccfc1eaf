package parse_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/emit"
	"github.com/codemode-dev/codemode/enrich"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/parse"
)

func TestZZStages(t *testing.T) {
	for _, f := range []string{"stripe.yaml", "kubernetes-swagger.json", "github-rest.json"} {
		data, _ := os.ReadFile("../testdata/corpus/openapi/" + f)
		const n = 8
		var st [6]time.Duration
		var wt [6]time.Duration
		for i := 0; i < n+1; i++ {
			c0, w0 := cpuTime(), time.Now()
			svc, _ := parse.OpenAPI(f, data, parse.Options{})
			c1, w1 := cpuTime(), time.Now()
			enrich.Run(svc, enrich.Options{})
			c2, w2 := cpuTime(), time.Now()
			ir.Resolve(svc)
			c3, w3 := cpuTime(), time.Now()
			_, ms := emit.Emit(svc, string(svc.Name)+".py", nil)
			c4, w4 := cpuTime(), time.Now()
			manifest.Marshal(&manifest.Manifest{Version: manifest.Version, Services: []manifest.Service{ms}})
			c5, w5 := cpuTime(), time.Now()
			if i == 0 { continue }
			for j, d := range []time.Duration{c1 - c0, c2 - c1, c3 - c2, c4 - c3, c5 - c4, c5 - c0} { st[j] += d }
			for j, d := range []time.Duration{w1.Sub(w0), w2.Sub(w1), w3.Sub(w2), w4.Sub(w3), w5.Sub(w4), w5.Sub(w0)} { if wt[j] == 0 || d < wt[j] { wt[j] = d } }
		}
		fmt.Printf("%-24s cpu ms: parse %4d enrich %4d resolve %4d emit %4d marshal %4d total %4d | min wall ms: %4d %4d %4d %4d %4d total %4d\n", f,
			st[0].Milliseconds()/n, st[1].Milliseconds()/n, st[2].Milliseconds()/n, st[3].Milliseconds()/n, st[4].Milliseconds()/n, st[5].Milliseconds()/n,
			wt[0].Milliseconds(), wt[1].Milliseconds(), wt[2].Milliseconds(), wt[3].Milliseconds(), wt[4].Milliseconds(), wt[5].Milliseconds())
	}
}
