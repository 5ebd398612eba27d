import Dispatch

/// Runs `body` on a GCD thread while the caller suspends: for work that blocks (opening and
/// migrating a database, a system call, a pipe read), which must not hold a thread of Swift's
/// cooperative pool (it has one per core; a blocked one stalls every task behind it).
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}

/// ``offThePool(_:)`` for work that cannot fail.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: body()) }
    }
}
