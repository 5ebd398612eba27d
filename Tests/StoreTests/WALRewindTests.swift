import Testing
@testable import Store

@Suite("The WAL's rewind, step by step")
struct WALRewindTests {
    func rewind() -> WALRewind { WALRewind(threshold: 1_000, backlog: 100, maxPasses: 4) }

    @Test func withinTheThresholdNothingMoreHappens() {
        var rewind = rewind()
        #expect(rewind.next(frames: 1_000, backfilled: 900) == .stop)
        #expect(rewind.passes == 1)
    }

    /// Past the threshold the first pass is followed by a sync, even when it copied nothing
    /// itself: the passes before it left their pages unsynced.
    @Test func pastTheThresholdTheFileIsSyncedBeforeTheRestart() {
        var rewind = rewind()
        #expect(rewind.next(frames: 1_001, backfilled: 1_001) == .syncThenCopy)
    }

    /// Each later pass is judged by what it copied since the sync before it: much (commits went
    /// on during the sync) syncs again; little lets the RESTART follow.
    @Test func syncsUntilAPassCopiesLittle() {
        var rewind = rewind()
        #expect(rewind.next(frames: 5_000, backfilled: 5_000) == .syncThenCopy)
        #expect(rewind.next(frames: 5_400, backfilled: 5_400) == .syncThenCopy)
        #expect(rewind.next(frames: 5_500, backfilled: 5_500) == .restart)
        #expect(rewind.passes == 3)
    }

    @Test func theBacklogItselfIsLittleEnough() {
        var rewind = rewind()
        _ = rewind.next(frames: 5_000, backfilled: 4_990)
        #expect(rewind.next(frames: 5_101, backfilled: 5_090) == .restart)
    }

    /// Commits that outrun the syncs do not keep the WAL from its rewind: after the last pass
    /// allowed the RESTART follows, copying and syncing what is left.
    @Test func theRestartFollowsAfterTheLastPassAllowed() {
        var rewind = rewind()
        #expect(rewind.next(frames: 5_000, backfilled: 5_000) == .syncThenCopy)
        #expect(rewind.next(frames: 8_000, backfilled: 8_000) == .syncThenCopy)
        #expect(rewind.next(frames: 11_000, backfilled: 11_000) == .syncThenCopy)
        #expect(rewind.next(frames: 14_000, backfilled: 14_000) == .restart)
        var single = WALRewind(threshold: 1_000, backlog: 100, maxPasses: 1)
        #expect(single.next(frames: 5_000, backfilled: 5_000) == .restart)
    }

    /// A WAL rewound between two passes (a pass caught up with an idle writer, and the next
    /// commit started the WAL again) is within the threshold: nothing more.
    @Test func aWALRewoundMeanwhileEndsTheCheckpoint() {
        var rewind = rewind()
        #expect(rewind.next(frames: 5_000, backfilled: 5_000) == .syncThenCopy)
        #expect(rewind.next(frames: 40, backfilled: 40) == .stop)
    }
}
