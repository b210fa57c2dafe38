---- MODULE ConstantsOnly ----
\* A model without variables: TLC evaluates the assumptions (printing what
\* they print) and reports success with no state at all.
\* Reference TLC: prints <<"sum", 6>>, then 0 states generated, 0 distinct,
\* depth 0, exit code 0.
EXTENDS Naturals, TLC
CONSTANT N
Sum[n \in 0..N] == IF n = 0 THEN 0 ELSE n + Sum[n - 1]
ASSUME N > 2
ASSUME PrintT(<<"sum", Sum[N]>>)
====
