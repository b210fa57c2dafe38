---- MODULE Level ----
\* TLCGet("level") in Next is the level of the current state: the state
\* reached after k steps has lvl = k (the initial state, level 1, sets
\* lvl' = 1 in its successor). Inv fails at lvl = 3, after 3 steps.
EXTENDS Naturals, TLC
VARIABLE lvl
Init == lvl = 0
Next == lvl' = TLCGet("level")
Inv == lvl < 3
====
