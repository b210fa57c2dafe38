//go:build !race

package etcdraft

const raceEnabled = false
