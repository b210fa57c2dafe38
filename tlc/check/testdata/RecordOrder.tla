---- MODULE RecordOrder ----
\* TLC prints a record's fields in the order its parser first saw their
\* names (zeta, alpha, type, val, mid here), not sorted.
EXTENDS Naturals
VARIABLE r
Init == r = [zeta |-> 1, alpha |-> 0, type |-> 3, val |-> 4, mid |-> 5]
Next == r' = [mid |-> 0, alpha |-> r.alpha + 1, zeta |-> 0, val |-> 0, type |-> 0]
Inv == r.alpha < 2
====
