---- MODULE Print ----
\* Print and PrintT print when they are evaluated (one worker: in search
\* order); TLCGet("level") is the level of the state whose successors are
\* computed (initial states are level 1).
EXTENDS Naturals, TLC
VARIABLES x, lvl
Init == x = 0 /\ lvl = 0 /\ PrintT("init")
Next == /\ x < 2
        /\ x' = x + 1
        /\ lvl' = TLCGet("level")
        /\ Print(<<"step", x'>>, TRUE)
====
