---- MODULE NoSymmetry ----
\* Symmetry's spec without the SYMMETRY: 8 distinct, 25 generated, depth 4.
EXTENDS Symmetry
====
