---- MODULE IfCase ----
\* IF and CASE in an action: 0 -> 1 -> 2 -> 10 -> {0, 11}; 11 matches
\* OTHER -> FALSE and has no successor. 5 distinct, 1 + 5 = 6 generated,
\* depth 5.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == IF x < 2 THEN x' = x + 1
        ELSE CASE x = 2 -> x' = 10
               [] x = 10 -> x' \in {0, 11}
               [] OTHER -> FALSE
====
