//go:build race

package etcdraft

// raceEnabled scales the property tests down under the race detector.
const raceEnabled = true
