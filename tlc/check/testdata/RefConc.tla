---- MODULE RefConc ----
\* A counter split in two, refining RefAbs through INSTANCE ... WITH of a
\* variable to an expression and of another to a definition.
EXTENDS Naturals
CONSTANT N
VARIABLES a, b, done
vars == <<a, b, done>>
Init == a = 0 /\ b = 0 /\ done = FALSE
IncA == ~done /\ a + b < N /\ a' = a + 1 /\ UNCHANGED <<b, done>>
IncB == ~done /\ a + b < N /\ b' = b + 1 /\ UNCHANGED <<a, done>>
Fin == ~done /\ a + b = N /\ done' = TRUE /\ UNCHANGED <<a, b>>
Term == done /\ UNCHANGED vars
Next == IncA \/ IncB \/ Fin \/ Term
Spec == Init /\ [][Next]_vars /\ WF_vars(Next)
pcBar == IF done THEN "done" ELSE "run"
A == INSTANCE RefAbs WITH total <- a + b, pc <- pcBar
ASpec == A!Spec
====
