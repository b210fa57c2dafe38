---- MODULE LocalDefs ----
\* LOCAL definitions and LOCAL INSTANCE are not extended: LocalDefs defines
\* its own Double and gets + from its own EXTENDS, while Quad keeps using
\* LocalDefsBase's Double.
\* Reference TLC: 4 distinct states, 4 generated, depth 4.
EXTENDS LocalDefsBase, Integers
Double(x) == x + x + 1
VARIABLE n
Init == n = 1
Next == n < 20 /\ n' = Quad(n) + Double(0) - 1
====
