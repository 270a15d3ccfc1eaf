package runtime_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/codemode-dev/codemode/internal/testpeer"
	"github.com/codemode-dev/codemode/pack"
	"github.com/codemode-dev/codemode/readgate"
	"github.com/codemode-dev/codemode/runtime"
)

// Compile a pack for the MCP reference server, start a runtime over it, and
// run one program: only what it prints comes back.
func Example() {
	ctx := context.Background()
	server, err := testpeer.NodeBin("mcp-server-everything")
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "codemode-example")
	defer os.RemoveAll(dir)
	pf := filepath.Join(dir, "codemode.yaml")
	os.WriteFile(pf, []byte("services:\n  - name: everything\n    mcp_command: "+server+" stdio\n"), 0o644)

	p, _ := pack.Load(pf)
	out, err := pack.Compile(ctx, p, pack.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	pack.WriteDir(p.Path(p.Out), out.Files)

	rt, err := p.OpenRuntime(ctx, func(c *runtime.Config) { c.ReadGate = readgate.Off })
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Close()
	res, _ := rt.Run(ctx, "session-1", `
sums = [api.everything.get_sum(a=i, b=i) for i in range(3)]
print(len(sums), "calls; last:", sums[-1])
`)
	fmt.Print(res.Text())
	// Output:
	// 3 calls; last: The sum of 2 and 2 is 4.
	// [3 tool calls]
}
