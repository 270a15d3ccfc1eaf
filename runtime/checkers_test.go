package runtime_test

import (
	"strings"
	"testing"
)

// TestCheckedProgramCannotChangeTheNextCheck: programs are checked by one
// long-lived checker, but what one program defines (a name, a builtin it
// shadows) is unknown when the next one is checked, and a program refused
// by the checker takes no worker.
func TestCheckedProgramCannotChangeTheNextCheck(t *testing.T) {
	rt := goalRuntime(t, []string{"everything"}, nil)
	if res := run(t, rt, "x = 1\ndef len(a: object) -> str:\n    return ''\nprint(x, len([1]))\n"); res.Output != "1 \n" || !res.OK() {
		t.Fatalf("first program: %q %s", res.Output, res.Error)
	}
	res := run(t, rt, "print(x)\n")
	if !strings.Contains(res.Error, "program.py:1:7: error[unresolved-reference] Name `x` used when not defined") || res.Attempts != 0 {
		t.Errorf("second program (%d workers): %s", res.Attempts, res.Error)
	}
	res = run(t, rt, "s: str = len([1])\n")
	if !strings.Contains(res.Error, "program.py:1:10: error[invalid-assignment] Object of type `int` is not assignable to `str`") || res.Attempts != 0 {
		t.Errorf("third program (%d workers): %s", res.Attempts, res.Error)
	}
}
