package cmdline

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// pflag's errors carry strconv's and time's words; the user gets ours.
func TestFlagErrorText(t *testing.T) {
	for in, want := range map[string]string{
		`invalid argument "foo" for "--coverage" flag: strconv.ParseInt: parsing "foo": invalid syntax`:  `invalid argument "foo" for "--coverage" flag: want a whole number`,
		`invalid argument "9x" for "--workers" flag: strconv.ParseUint: parsing "9x": invalid syntax`:    `invalid argument "9x" for "--workers" flag: want a whole number`,
		`invalid argument "maybe" for "--json" flag: strconv.ParseBool: parsing "maybe": invalid syntax`: `invalid argument "maybe" for "--json" flag: want true or false`,
		`invalid argument "1e99" for "--n" flag: strconv.ParseInt: parsing "1e99": value out of range`:   `invalid argument "1e99" for "--n" flag: out of range`,
		`invalid argument "soon" for "--duration" flag: time: invalid duration "soon"`:                   `invalid argument "soon" for "--duration" flag: want a duration such as 30s, 10m or 8h`,
		`unknown shorthand flag: '1' in -1`: `unknown flag -1: a negative number is no id (input ids are 1, 2, ...; bug ids B1, B2, ...)`,
		`unknown flag: --nope`:              `unknown flag: --nope`,
	} {
		require.Equal(t, want, FlagErrorText(errors.New(in)), in)
	}
}
