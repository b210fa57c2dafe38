// Package output is what the TLA+ engine's commands print, as TLC prints
// it (TLC's tlc2.output, tlc2.tool.coverage and its state writers): the
// banner, progress and checkpoint lines, error traces whose steps name
// their action, the final counts, the --json result, the -coverage report
// and the -dump files.
//
// It formats what the checker (tlc/check) reports and must not decide
// anything about the check itself; exit codes are the checker's.
package output
