---- MODULE badview ----
\* A model whose VIEW cannot be evaluated: simulation fails (500).
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = x + 1
View == x + "a"
====
