// Package corpus stores a campaign in one badger database per directory:
// interesting inputs, coverage sets, bugs, campaign metadata and counters.
// It implements record.Store.
//
// Key layout (the only place it is written down):
//
//	m/campaign              JSON campaign.Settings (the stored part), written when the campaign starts, the same again every session (a copy in the newest table)
//	m/counters              JSON record.Counters, rewritten by every commit
//	i/<id: 8 bytes BE>      record.InputRecord, compact binary (record.go; JSON in corpora of earlier versions)
//	p/<id: 8 bytes BE>      empty: input <id> was imported and has not run yet
//	c/<measure>/<item: 8 bytes BE>   8 bytes BE: id of the input that reached it first (0: not kept)
//	b/<n: 4 bytes BE>       JSON record.BugRecord (ID "B<n>"), with its minimized input; a known
//	                        disagreement's (ID "K<n>") at n with the high bit set
//	s/<seq: 8 bytes BE>     JSON record.StatsRecord, a snapshot every --stats-every
//	q/<table>/<state: 8 bytes BE>   a learning strategy's entry (record.Learned: a Q-table row, encoded by the strategy)
//
// The directory also holds MODELFUZZ (a marker naming the format, so that
// --fresh never deletes a directory that is not a corpus) and modelfuzz.lock
// (an flock held by the process that has the corpus open, with its pid);
// modelfuzz.probe exists for an instant every second (the store checks that
// the directory still takes new files).
//
// Durability: every Commit is one badger transaction. Writes are not synced
// to disk (SyncWrites is off) but are in the operating system's page cache
// once Commit returns, so a kill -9 of modelfuzz loses nothing committed; a
// power loss may lose the last moments.
//
// Faults (watch.go): nothing lost, or told at once. The store watches its
// directory, at commits and every second between them: the directory or
// its database directory removed or replaced (the corpus is lost: its
// errors wrap record.ErrStoreLost), the directory made read-only, the lock
// file removed or replaced, the disk almost full, a write or a flush of
// the database that fails. The first fault closes Fault's channel, so the
// campaign stops within seconds, and every Commit returns it. Close is
// bounded: a database that cannot flush is left behind with an error (what
// was committed stays in its write-ahead log, as after a kill -9).
//
// Reading without the lock (snapshot.go): Options.ReadOnly opens a copy of
// the database taken now, in a temporary directory, so that the read-only
// commands work on a corpus a running campaign holds or nobody may write,
// and never keep a campaign from starting.
//
// Damage (integrity.go, tables.go, repair.go): badger reads a damaged
// file as older data, or deletes what a damaged MANIFEST no longer lists,
// without a word; so every Open checks the database first (the MANIFEST
// whole and the tables it lists present, every block of every table
// against its checksum, no table it does not list holding records found
// nowhere else, the logs' headers, the key registry) and refuses a damaged
// one with a DamagedError naming the file and "modelfuzz corpus repair".
// A corpus whose database directory is gone is refused too: a campaign
// never starts over by itself (--fresh does). The MODELFUZZ marker is
// written once the database exists. Repair rebuilds the database from
// every block that verifies, of every table file, and the memtable logs,
// keeps the old one as db.damaged, and reports what it kept, what it lost
// and which records it could only keep at an older version.
package corpus
