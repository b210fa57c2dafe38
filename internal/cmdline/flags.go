package cmdline

import (
	"fmt"
	"strings"
)

// FlagErrorText says a flag's bad value in a user's words: pflag passes on
// strconv's ("strconv.ParseInt: parsing "x": invalid syntax").
func FlagErrorText(err error) string {
	s := err.Error()
	if i := strings.Index(s, ": time: "); i >= 0 {
		return s[:i] + ": want a duration such as 30s, 10m or 8h"
	}
	if rest, ok := strings.CutPrefix(s, "unknown shorthand flag: "); ok {
		if _, arg, ok := strings.Cut(rest, " in "); ok {
			if len(arg) > 1 && arg[1] >= '0' && arg[1] <= '9' {
				return fmt.Sprintf("unknown flag %s: a negative number is no id (input ids are 1, 2, ...; bug ids B1, B2, ...)", arg)
			}
			return "unknown flag " + arg
		}
	}
	i := strings.Index(s, ": strconv.Parse")
	if i < 0 {
		return s
	}
	kind := "a number"
	switch {
	case strings.HasPrefix(s[i:], ": strconv.ParseInt"), strings.HasPrefix(s[i:], ": strconv.ParseUint"):
		kind = "a whole number"
	case strings.HasPrefix(s[i:], ": strconv.ParseBool"):
		kind = "true or false"
	}
	if strings.HasSuffix(s, "value out of range") {
		return s[:i] + ": out of range"
	}
	return s[:i] + ": want " + kind
}
