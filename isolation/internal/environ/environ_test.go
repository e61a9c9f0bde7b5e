package environ

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestLookupLastWins(t *testing.T) {
	env := []string{"A=1", "B", "A=2", "C=x=y"}
	v, ok := Lookup(env, "A")
	assert.Equal(t, v, "2")
	assert.Assert(t, ok)
	assert.Equal(t, Get(env, "C"), "x=y")
	_, ok = Lookup(env, "B") // no '=': not a setting
	assert.Assert(t, !ok)
	_, ok = Lookup(env, "D")
	assert.Assert(t, !ok)
	v, ok = Lookup([]string{"E="}, "E")
	assert.Equal(t, v, "")
	assert.Assert(t, ok)
}
