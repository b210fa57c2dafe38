---- MODULE Channel ----
\* A module to instantiate: a bounded channel of messages from Msgs.
EXTENDS Sequences, Naturals
CONSTANTS Msgs, Cap
VARIABLE chan
ChInit == chan = <<>>
Send(m) == Len(chan) < Cap /\ chan' = Append(chan, m)
Recv == chan # <<>> /\ chan' = Tail(chan)
ChNext == (\E m \in Msgs : Send(m)) \/ Recv
Size == Len(chan)
====
