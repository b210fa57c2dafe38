---- MODULE OutDegree ----
\* A state graph whose out-degrees vary: TLC's summary of them (average,
\* minimum, maximum, 95th percentile) is the expectation.
EXTENDS Naturals, FiniteSets
VARIABLES s, n
Init == s = {} /\ n = 0
Next == \/ \E e \in 1..6 \ s : s' = s \cup {e} /\ n' = n
        \/ n < 3 /\ n' = n + 1 /\ s' = s
Small == Cardinality(s) < 5
====
