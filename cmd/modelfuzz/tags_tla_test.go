//go:build with_tla

package main

// buildTags are the tags the test binary is built with: those of the test.
const buildTags = "with_tla"
