/// The steps a checkpoint takes to rewind a WAL grown past its threshold without holding
/// commits back for the database file's sync (pure: ``SQLiteLedgerStore`` runs the passes, the
/// syncs and the RESTART it asks for).
///
/// SQLite syncs the database file only after a checkpoint that copied the whole WAL, which a
/// passive one never does while commits come back to back. So the pages every passive pass
/// copied since the last rewind stay dirty in the kernel until the RESTART, which copies what
/// is left and then syncs the file while it holds the write lock: at a million accounts that
/// sync wrote back the pages of some 260,000 frames while every commit waited, 400-500 ms.
/// Instead, past the threshold, the checkpointing connection syncs the file itself (commits go
/// on), copies what was committed meanwhile, and syncs again, until a pass has copied little;
/// the RESTART then copies and syncs only what the last pass left.
struct WALRewind {
    /// What the checkpoint does after a passive pass.
    enum Step: Equatable {
        /// Nothing more: the WAL is within its threshold.
        case stop
        /// Sync the database file from the checkpointing connection, then copy again.
        case syncThenCopy
        /// Rewind the WAL (a RESTART checkpoint on the writer's connection).
        case restart
    }

    /// WAL frames past which the WAL is rewound.
    let threshold: Int
    /// The most frames the last pass may have copied (dirty, not yet synced) for the RESTART
    /// to follow.
    let backlog: Int
    /// The most passive passes before the RESTART follows whatever is left.
    let maxPasses: Int
    /// Passes seen so far.
    private(set) var passes = 0
    /// The frames copied from the WAL's start as of the last pass.
    private var backfilled = 0

    init(threshold: Int, backlog: Int, maxPasses: Int) {
        precondition(maxPasses >= 1, "at least the first pass")
        self.threshold = threshold
        self.backlog = backlog
        self.maxPasses = maxPasses
    }

    /// The step after a passive pass that answered `frames` in the WAL and `backfilled` of
    /// them copied into the database file (counted from the WAL's start, as SQLite answers).
    mutating func next(frames: Int, backfilled: Int) -> Step {
        passes += 1
        defer { self.backfilled = backfilled }
        // Within the threshold, or rewound meanwhile (a pass that caught up with an idle writer).
        guard frames > threshold else { return .stop }
        // The first pass's copies join those of the passes before it, unsynced: sync them all.
        guard passes > 1 else { return passes < maxPasses ? .syncThenCopy : .restart }
        let copiedSinceSync = backfilled - self.backfilled
        return copiedSinceSync <= backlog || passes >= maxPasses ? .restart : .syncThenCopy
    }
}
