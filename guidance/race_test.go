//go:build race

package guidance_test

const raceEnabled = true
