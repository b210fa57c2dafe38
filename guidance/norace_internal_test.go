//go:build !race

package guidance

const raceOn = false
