package supervisor

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// TestHelloTimedOut: only the run's own deadline passing before the
// hello is a timeout (doctor then hints to raise its --timeout), found by
// its type wherever it is wrapped, never by its words.
func TestHelloTimedOut(t *testing.T) {
	late := &noHelloError{within: 10 * time.Second, own: true}
	for name, tc := range map[string]struct {
		err  error
		hint bool
	}{
		"timed out":            {&Error{Verdict: protocol.Timeout, Err: fmt.Errorf("%w; the program was never sent", late)}, true},
		"hello after stdin":    {&noHelloError{within: time.Second, own: true, version: protocol.Version}, true},
		"part of a line":       {&noHelloError{within: time.Second, own: true, partial: true}, false},
		"another protocol":     {&noHelloError{within: time.Second, own: true, version: 1}, false},
		"a pool's start bound": {&noHelloError{within: time.Second}, false},
		"exited first":         {&noHelloError{exit: 1}, false},
		"the same words":       {errors.New(late.Error()), false},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, HelloTimedOut(tc.err), tc.hint)
		})
	}
}
