---------------------------- MODULE EtcdLibrary ----------------------------
(* raft.tla kept to two things etcd raft (go.etcd.io/raft/v3 v3.7.0) does *)
(* not do, for `modelfuzz generate --search-extend` (docs/generate.md):   *)
(* the states a schedule of the library can reach within a depth bound.  *)
EXTENDS raft

\* The library sends only to the servers in the sender's progress tracker
\* (raft.go: bcastAppend and bcastHeartbeat visit r.trk, campaign asks
\* r.trk.Voters; an answer goes to the request's sender), so a server in no
\* configuration has received nothing: its term is still 0.
ReceivedOnlyFromItsConfig ==
    \A s \in Servers \ InitVoters :
        currentTerm[s] = 0 \/ \E j \in Servers : s \in Members(config[j])

\* The library does not campaign (pre-vote or vote) while a committed
\* configuration entry is not applied (raft.go: hup, hasUnappliedConfChanges).
\* The bootstrap's entries, which every node applies in the system's first
\* step, count as applied while a server has applied none (configIndex 0).
NoCampaignWithConfToApply ==
    \A i \in Servers :
        (role'[i] \in {"candidate", "precandidate"} /\ (role'[i] # role[i] \/ currentTerm'[i] # currentTerm[i]))
            => (configIndex[i] = 0 \/ NextConfIn(i, configIndex[i], commitIndex[i]) = 0)
=============================================================================
