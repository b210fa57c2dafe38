---- MODULE GenCompose ----
\* Action composition A \cdot B: TLC counts each intermediate state (the
\* A-step) as generated, besides each composed step.
\* Reference TLC (tlc2.tool.impl.Tool.cdot=true): 5 distinct states,
\* 27 generated, depth 3.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Inc == x' \in {x + 1, x + 2}
Half == x' = x \div 2
Next == (x < 3 /\ Inc) \/ (Inc \cdot Half)
====
