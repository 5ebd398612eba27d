import Foundation
import Subprocess
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// The programs a test starts (`tender`, Python clients, PostgreSQL's tools, curl, tmux), through
/// swift-subprocess rather than Foundation's `Process`. Foundation's copies every name in
/// `/proc/self/fd` through a 256-byte buffer before each launch, which reads past glibc's
/// directory buffer and crashes the whole test process once it holds about 1,350 descriptors (a
/// full parallel run peaks near 1,450); its pipes are inheritable, so a launch on another thread
/// hands a test's pipe to an unrelated child. Subprocess's pipes are close-on-exec and its
/// children close every descriptor above 2.
public enum ChildProcess {
    /// A program that ran to its end.
    public struct Finished: Sendable {
        /// The exit status, or the signal's number when ``signalled``.
        public let status: Int32
        public let signalled: Bool
        public let output: String
        /// Empty when the error was combined with the output.
        public let error: String
    }

    /// What a program's output may be at most (a test's output is far smaller).
    static let outputLimit = 64 << 20

    /// Runs `executable` with `arguments` (in `directory`, the package root by default; with
    /// `environment` added to this process's; `input` on its standard input) to its end; one
    /// still running after `timeout` seconds is terminated, so a command that hangs fails its test
    /// instead of hanging the suite. `combined` puts the standard error into ``Finished/output``.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        directory: String? = PythonScripts.packageRoot.path, input: String? = nil, combined: Bool = false,
        timeout: TimeInterval = 600
    ) async throws -> Finished {
        let configuration = Configuration(
            executable: .path(FilePath(executable)), arguments: Arguments(arguments),
            environment: Self.environment(environment), workingDirectory: directory.map { FilePath($0) })
        let watchdog = Watchdog(timeout: timeout)
        defer { watchdog.cancel() }
        func collect<Error: ErrorOutputProtocol>(_ error: Error) async throws -> ExecutionResult<Void, StringOutput<UTF8>, Error> {
            try await Subprocess.run(configuration, input: .string(input ?? ""), output: .string(limit: outputLimit), error: error) { execution in
                watchdog.watch(execution.processIdentifier.value)
            }
        }
        if combined {
            let result = try await collect(.combinedWithOutput)
            return Finished(result.terminationStatus, output: result.standardOutput, error: "")
        }
        let result = try await collect(.string(limit: outputLimit))
        return Finished(result.terminationStatus, output: result.standardOutput, error: result.standardError)
    }

    /// Runs `executable` to its end; its exit status and its standard output and error, together.
    public static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let finished = try await run(executable, arguments, combined: true)
        return (finished.status, finished.output)
    }

    static func environment(_ added: [String: String]) -> Subprocess.Environment {
        var updates: [Subprocess.Environment.Key: String?] = [:]
        for (name, value) in added {
            guard let key = Subprocess.Environment.Key(rawValue: name) else { continue }
            updates[key] = value
        }
        return updates.isEmpty ? .inherit : .inherit.updating(updates)
    }

    /// Sends SIGTERM to the process it watches once `timeout` seconds have passed, unless
    /// cancelled first.
    final class Watchdog: @unchecked Sendable {
        private let lock = NSLock()
        private var pid: pid_t?
        private var cancelled = false
        private var item: DispatchWorkItem?

        init(timeout: TimeInterval) {
            let item = DispatchWorkItem { [weak self] in self?.fire() }
            self.item = item
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: item)
        }

        func watch(_ pid: pid_t) { lock.withLock { self.pid = pid } }

        func cancel() {
            lock.withLock { cancelled = true }
            item?.cancel()
        }

        private func fire() {
            lock.withLock {
                // Still inside `run`, so the process has not been reaped and its pid is its own.
                if !cancelled, let pid { kill(pid, SIGTERM) }
            }
        }
    }
}

extension ChildProcess.Finished {
    init(_ termination: TerminationStatus, output: String, error: String) {
        switch termination {
        case .exited(let code): self.init(status: code, signalled: false, output: output, error: error)
        case .signaled(let signal): self.init(status: signal, signalled: true, output: output, error: error)
        }
    }
}

/// A program a test starts and talks to while it runs (a `tender serve`, a `curl` following a
/// stream): its standard output is kept as it arrives, its standard error goes to a file or
/// nowhere, its standard input is /dev/null.
public final class RunningChild: @unchecked Sendable {
    public enum Termination: Sendable, Equatable {
        case exit
        case uncaughtSignal
    }

    private let lock = NSLock()
    private var pid: pid_t = 0
    private var output = ""
    private var outputEnded = false
    private var termination: TerminationStatus?
    private var outputWaiters: [() -> Void] = []
    private var exitWaiters: [() -> Void] = []

    private init() {}

    /// Starts `executable` with `arguments`; its standard error is written to `errorLog` when
    /// given, else to /dev/null. Returns once the process is running; throws when it cannot start.
    public static func start(_ executable: String, _ arguments: [String], errorLog: String? = nil) async throws -> RunningChild {
        let child = RunningChild()
        let configuration = Configuration(executable: .path(FilePath(executable)), arguments: Arguments(arguments))
        let log = try errorLog.map {
            try FileDescriptor.open(FilePath($0), .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: [.ownerReadWrite])
        } ?? FileDescriptor.open("/dev/null", .writeOnly, options: [.closeOnExec])
        return try await withCheckedThrowingContinuation { (started: CheckedContinuation<RunningChild, any Error>) in
            let once = Once()
            // Not a child of the caller's task: the process outlives the call that starts it.
            Task.detached {
                do {
                    let result = try await Subprocess.run(
                        configuration, input: .none, output: .sequence, error: .fileDescriptor(log, closeAfterSpawningProcess: true)
                    ) { execution in try await child.follow(execution.processIdentifier.value, execution.standardOutput, once, started) }
                    child.ended(result.terminationStatus)
                } catch {
                    if once.claim() { started.resume(throwing: error) }
                    child.ended(.exited(-1))
                }
            }
        }
    }

    /// The body of the run: reports the start, then keeps the output until it ends.
    private func follow(
        _ pid: pid_t, _ stream: SubprocessOutputSequence, _ once: Once, _ started: CheckedContinuation<RunningChild, any Error>
    ) async throws {
        lock.withLock { self.pid = pid }
        if once.claim() { started.resume(returning: self) }
        do {
            for try await buffer in stream {
                let text = buffer.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
                let waiters = lock.withLock { () -> [() -> Void] in
                    output += text
                    return outputWaiters
                }
                for waiter in waiters { waiter() }
            }
        } catch {
            // A read that failed ends the output as its end would.
        }
        let waiters = lock.withLock { () -> [() -> Void] in
            outputEnded = true
            defer { outputWaiters = [] }
            return outputWaiters
        }
        for waiter in waiters { waiter() }
    }

    private func ended(_ status: TerminationStatus) {
        let waiters = lock.withLock { () -> [() -> Void] in
            outputEnded = true
            termination = status
            defer { exitWaiters = []; outputWaiters = [] }
            return exitWaiters + outputWaiters
        }
        for waiter in waiters { waiter() }
    }

    public var processIdentifier: pid_t { lock.withLock { pid } }
    public var isRunning: Bool { lock.withLock { termination == nil } }
    /// Everything the process has written to its standard output so far.
    public var outputSoFar: String { lock.withLock { output } }

    /// The exit status, or the signal's number after a signal; only once it has exited.
    public var terminationStatus: Int32 {
        switch lock.withLock({ termination }) {
        case .exited(let code): code
        case .signaled(let signal): signal
        case nil: preconditionFailure("still running")
        }
    }

    public var terminationReason: Termination {
        switch lock.withLock({ termination }) {
        case .exited: .exit
        case .signaled: .uncaughtSignal
        case nil: preconditionFailure("still running")
        }
    }

    /// Sends SIGTERM while the process runs.
    public func terminate() { signal(SIGTERM) }

    /// Sends `signal` while the process runs (not yet reaped, so the pid is still its own).
    public func signal(_ signal: Int32) {
        lock.withLock {
            if termination == nil, pid > 0 { kill(pid, signal) }
        }
    }

    /// Waits until the output holds a match for `pattern` (a regular expression) and returns the
    /// match, or nil when the output ends first. A process that shows none within `timeout`
    /// seconds is terminated, which ends its output.
    public func waitForOutput(matching pattern: String, timeout: TimeInterval) async -> String? {
        let watchdog = DispatchWorkItem { [self] in terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        return await withCheckedContinuation { continuation in
            let once = Once()
            let check: @Sendable () -> Void = { [self] in
                let (text, ended) = lock.withLock { (output, outputEnded) }
                if let range = text.range(of: pattern, options: .regularExpression) {
                    if once.claim() { continuation.resume(returning: String(text[range])) }
                } else if ended {
                    if once.claim() { continuation.resume(returning: nil) }
                }
            }
            lock.withLock { outputWaiters.append(check) }
            check()
        }
    }

    /// Waits until the process exits, at most `timeout` seconds; whether it exited.
    public func waitForExit(timeout: TimeInterval) async -> Bool {
        await withCheckedContinuation { continuation in
            let once = Once()
            let exited = lock.withLock { () -> Bool in
                if termination != nil { return true }
                exitWaiters.append { if once.claim() { continuation.resume(returning: true) } }
                return false
            }
            if exited {
                if once.claim() { continuation.resume(returning: true) }
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                if once.claim() { continuation.resume(returning: false) }
            }
        }
    }

    /// True for the first caller only: whoever claims it resumes a continuation.
    private final class Once: @unchecked Sendable {
        private let lock = NSLock()
        private var claimed = false
        func claim() -> Bool {
            lock.withLock {
                defer { claimed = true }
                return !claimed
            }
        }
    }
}
