// Package report turns fuzzing results into evidence a reader can check: the
// data model of a comparison of strategies over repeated campaigns (written
// as results.json by `modelfuzz compare`), its statistical analysis (Mann-
// Whitney U and Vargha-Delaney A12 from package stats), PNG figures, and
// self-contained HTML pages for a comparison and for a single campaign.
//
// It computes and renders into memory or an io.Writer; it must not read
// corpora, run campaigns or choose file names: the commands do that. The
// HTML it writes loads nothing from elsewhere (figures are data: URIs, styles
// are inline, a Content-Security-Policy forbids everything else) and needs no
// JavaScript, so a report can be mailed, archived and opened offline.
package report
