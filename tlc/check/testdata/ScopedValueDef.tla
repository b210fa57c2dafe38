---- MODULE ScopedValueDef ----
\* Instantiated by ScopedValue, whose cfg gives NoVal a value in this
\* module only (NoVal = [ScopedValueDef]none): TLC cannot evaluate the
\* unbounded CHOOSE.
CONSTANT S
VARIABLE x
NoVal == CHOOSE v : v \notin S
Init == x = NoVal
Next == \/ x = NoVal /\ x' \in S
        \/ x \in S /\ x' = NoVal
====
