import Foundation
import Testing

extension Tag {
    /// A suite that starts something outside the test process or waits on it: the `tender`
    /// binary, a throwaway PostgreSQL, Chromium, a Python client library. `swift test` runs them
    /// all (CI does); `TENDER_FAST_TESTS=1 swift test` leaves them out (``TestSpeed``).
    @Tag public static var slow: Self
}

/// The fast tests: `TENDER_FAST_TESTS=1 swift test` runs every suite but the ones tagged
/// ``Tag/slow`` (they are disabled by ``TestSpeed/slowSuites``), and the suites that run on both
/// databases on SQLite only (``TestDatabase/allCases``).
public enum TestSpeed {
    /// Whether only the fast tests run.
    public static let fastOnly = ProcessInfo.processInfo.environment["TENDER_FAST_TESTS"] == "1"

    /// The condition every slow suite carries beside its tag.
    public static var slowSuites: ConditionTrait {
        .enabled(if: !fastOnly, "a slow suite: TENDER_FAST_TESTS=1 runs the fast ones only")
    }
}
