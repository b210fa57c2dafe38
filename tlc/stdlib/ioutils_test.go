package stdlib

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

type envCtx struct {
	testCtx
	env map[string]string
}

func (c *envCtx) Env() map[string]string { return c.env }

func TestIOEnv(t *testing.T) {
	// The Context's environment, as a record.
	ctx := &envCtx{env: map[string]string{"JSON": "/tmp/t.ndjson", "MAX_TRACE": "12"}}
	v, err := callCtx(t, ctx, "IOUtils", "IOEnv")
	require.NoError(t, err)
	assert.Equal(t, `[JSON |-> "/tmp/t.ndjson", MAX_TRACE |-> "12"]`, str(t, v))
	// An empty environment is the empty record (<<>>), not the process's.
	ctx.env = map[string]string{}
	v, err = callCtx(t, ctx, "IOUtils", "IOEnv")
	require.NoError(t, err)
	assert.Equal(t, `<<>>`, str(t, v))

	// Without one, the process's environment.
	t.Setenv("MODELFUZZ_IOENV_TEST", "x y")
	v, err = call(t, "IOUtils", "IOEnv")
	require.NoError(t, err)
	x, found := v.(*value.Func).Field("MODELFUZZ_IOENV_TEST")
	require.True(t, found)
	assert.Equal(t, `"x y"`, x.String())
}

func TestAtoi(t *testing.T) {
	assert.Equal(t, "12", ok(t, "IOUtils", "atoi", "12"))
	assert.Equal(t, "-7", ok(t, "IOUtils", "atoi", "-7"))
	assert.Equal(t, "7", ok(t, "IOUtils", "atoi", "+7"))
	assert.Equal(t, "0", ok(t, "IOUtils", "atoi", "0"))
	failsWith(t, []string{"atoi", `"1x"`}, "IOUtils", "atoi", "1x")
	failsWith(t, []string{"atoi"}, "IOUtils", "atoi", "")
	failsWith(t, []string{"atoi"}, "IOUtils", "atoi", " 1")
	// Java's Integer.parseInt: 32 bits.
	failsWith(t, []string{"atoi"}, "IOUtils", "atoi", "2147483648")
	assert.Equal(t, "2147483647", ok(t, "IOUtils", "atoi", "2147483647"))
	failsWith(t, []string{"atoi", "string"}, "IOUtils", "atoi", 3)
}
