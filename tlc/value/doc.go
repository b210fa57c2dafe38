// Package value holds the runtime values of TLA+ with TLC's semantics: the
// values the evaluator computes and the model checker stores in states.
//
// It owns the representation of values, their canonical order (Compare),
// equality (Equal), fingerprints (Fingerprint, Hasher), printing in TLC's
// format, JSON conversion, and the operators of the standard modules that
// act on values alone (arithmetic, sets, functions, sequences, bags,
// symmetry permutations). It must not know about syntax, evaluation
// contexts or states: operators that need to evaluate an expression
// (SelectSeq, set comprehensions, CHOOSE) belong to the evaluator, which
// combines Enumerate and its own callbacks.
//
// # Representation
//
// Values are immutable and safe to share between goroutines. Scalars are
// plain Go values (Bool, Int, Str) or an interned pointer (ModelValue).
// Functions, records, tuples and sequences are one type, *Func, with one
// canonical representation per mathematical function (see Func), so that
// [a |-> 1] = [x \in {"a"} |-> 1] and <<1, 2>> = [i \in 1..2 |-> i] need no
// conversion. Finite sets are *Set, sorted by Compare without duplicates.
// Sets too large or infinite to list are lazy: *Interval, Nat, Integers,
// Strings, and SUBSET, [S -> T], [a : S], \X, Seq, \cup, \cap and \ over
// them; they answer Member without enumerating and Enumerate in canonical
// order when finite.
//
// # TLC semantics kept
//
//   - CHOOSE x \in S : P is the first element of S in canonical order that
//     satisfies P (TLC normalizes S, then enumerates it); Enumerate gives
//     that order.
//   - Model values sort before all other values and among themselves in
//     order of first creation; an untyped model value is unequal to every
//     other value, a typed one ("x_name") is an error to compare with a
//     non-model value or a model value of another type.
//   - Comparing values of different kinds for equality is an error
//     ("attempted to check equality of integer 1 with non-integer "a"").
//     <<>> = {} is such an error: the empty function is not the empty set.
//   - \div rounds toward negative infinity; a % b needs b > 0 and is in
//     0..b-1; 0^0 is an error.
//   - [f EXCEPT ![k] = v] with k outside DOMAIN f is f (TLC warns).
//   - Symmetry: the representative of a state is its least permutation,
//     compared variable by variable (Canonical).
//
// Differences from TLC: integers are 64-bit (TLC: 32-bit), with overflow an
// error in both; strings order by bytes, not by TLC's parse order (see
// Compare); values of different kinds have an order here (TLC fails), so a
// set like {1, "a"} exists here where TLC reports an error.
package value
