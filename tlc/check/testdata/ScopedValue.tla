---- MODULE ScopedValue ----
\* A cfg value for a definition of an instantiated module
\* (NoVal = [ScopedValueDef]none), as the Examples' MCNano uses.
\* Reference TLC: 3 distinct states, 5 generated, depth 2.
VARIABLE y
I == INSTANCE ScopedValueDef WITH x <- y, S <- {1, 2}
Init == I!Init
Next == I!Next
====
