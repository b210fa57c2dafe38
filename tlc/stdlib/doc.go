// Package stdlib implements the operators of the standard TLA+ modules and
// of the TLA+ community modules natively, behind a registry the evaluator
// consults when a spec EXTENDS or INSTANCEs one of them.
//
// # Use
//
// For a module M named in EXTENDS, the evaluator imports Operators(M) and
// the operators of every module in Extends(M). A Builtin has a canonical
// name (as tlc/syntax produces it: "\\o", "=<", "-.", ":>", "(+)"), an
// arity, and the indexes of its operator parameters (OpParams); the
// evaluator calls Fn with evaluated arguments (Arg.V), and for operator
// parameters an Op (Arg.Op) through which the built-in calls back into the
// evaluator (SelectSeq's Test, FoldSet's op, SortSeq's order...). Errors
// from an Op are returned unchanged; the package's own errors name the
// operator ("Head: argument is the empty sequence") and the evaluator adds
// the position.
//
// A user definition should shadow a built-in of the same name: the
// community modules changed over time (SequencesExt now EXTENDS
// Functions, FiniteSetsExt, Bags, TLC... where it used to instantiate them
// LOCALly), so a spec may define an operator that a module brings in.
//
// BOOLEAN, STRING, set and function constructs, CHOOSE and the other
// built-in syntax are the evaluator's; this package has the operators
// defined in modules.
//
// # Modules
//
// Standard: Naturals, Integers, Reals, Sequences, FiniteSets, Bags, TLC
// (and RealTime, without operators).
//
// Community: SequencesExt, FiniteSetsExt, Functions, Folds, BagsExt,
// TLCExt, Json, Bitwise, Randomization and IOUtils (IOEnv, atoi) (partly),
// SVG (all but NodesOfDirectedMultiGraph, see svg.go), VectorClocks; CSV,
// Combinatorics, DyadicRationals, Statistics, Strings, ShiViz and Variants
// load but provide no operators.
//
// Written in TLA+ (tla/*.tla, parsed when a spec uses them and no module
// of the same name is beside it, see syntax.RegisterLibrary): Graphs,
// UndirectedGraphs and Relation.
//
// Proof libraries (no operators of their own): TLAPS, NaturalsInduction,
// WellFoundedInduction, FunctionTheorems, FiniteSetTheorems,
// SequenceTheorems, SequencesTheorems, SequencesExtTheorems, BagsTheorems,
// FiniteSetsExtTheorems, FoldTheorems.
//
// # Semantics where TLA+ leaves a choice, and differences from TLC
//
//   - Orders: folds over sets (FoldSet, FoldFunction, MapThenSumSet...) and
//     SetToSeq visit elements in canonical order (value.Enumerate, TLC's
//     CHOOSE order), the least element outermost: FoldSet(op, b, {1, 2, 3})
//     = op(1, op(2, op(3, b))). Canonical order differs from TLC's for
//     strings (see value.Compare), so non-commutative folds over sets of
//     strings may differ from TLC's results.
//   - Determinism: RandomElement(S) is the least element of S, JavaTime is
//     0, RandomSubset(k, S) is the k least elements.
//   - Reals: only integers. Real is Int, a / b is defined only when b
//     divides a ("real division is not supported").
//   - Any is not supported (an error when evaluated).
//   - Print and PrintT print one line (TLC breaks long values).
//   - Trace (TLCExt) needs a Context that implements TraceContext.
//   - Integers are 64-bit (value's arithmetic), not TLC's 32-bit.
//
// See the comment of each module's file for the operators it provides and
// their details.
package stdlib
