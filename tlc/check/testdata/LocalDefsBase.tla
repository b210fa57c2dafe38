---- MODULE LocalDefsBase ----
\* Extended by LocalDefs: its LOCAL definitions are not names of LocalDefs.
LOCAL INSTANCE Naturals
LOCAL Double(x) == 2 * x
Quad(x) == Double(Double(x))
====
