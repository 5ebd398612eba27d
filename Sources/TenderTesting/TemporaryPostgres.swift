import Foundation

/// A throwaway PostgreSQL cluster (Scripts/postgres.sh: Debian's packages, installed when
/// missing; initdb in a temporary directory as an unprivileged user; a free port on
/// 127.0.0.1). ``stop()`` removes it; one left running stops by itself after an hour.
public final class TemporaryPostgres: Sendable {
    public let url: String
    /// The cluster's directory (its data files under `data`).
    public let directory: String

    private init(url: String, directory: String) {
        self.url = url
        self.directory = directory
    }

    /// Starts a cluster.
    public static func start() async throws -> TemporaryPostgres {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tender-postgres-\(UUID().uuidString)").path
        let (status, output) = try await run(["start", directory])
        guard status == 0, let url = output.split(separator: "\n").last(where: { $0.hasPrefix("postgres://") }) else {
            throw TemporaryPostgresError(message: "Scripts/postgres.sh start failed (\(status)): \(output.suffix(2_000))")
        }
        return TemporaryPostgres(url: String(url), directory: directory)
    }

    /// Starts a streaming hot standby of this cluster (Scripts/postgres.sh standby).
    public func standby() async throws -> TemporaryPostgres {
        let standby = FileManager.default.temporaryDirectory.appendingPathComponent("tender-postgres-\(UUID().uuidString)").path
        let (status, output) = try await Self.run(["standby", directory, standby])
        guard status == 0, let url = output.split(separator: "\n").last(where: { $0.hasPrefix("postgres://") }) else {
            throw TemporaryPostgresError(message: "Scripts/postgres.sh standby failed (\(status)): \(output.suffix(2_000))")
        }
        return TemporaryPostgres(url: String(url), directory: standby)
    }

    /// Stops the cluster and removes its directory.
    public func stop() async {
        _ = try? await Self.run(["stop", directory])
    }

    static func run(_ arguments: [String]) async throws -> (Int32, String) {
        try await ChildProcess.run("/bin/bash", ["Scripts/postgres.sh"] + arguments)
    }
}

public struct TemporaryPostgresError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

extension TemporaryPostgres {
    /// Runs `body` with a throwaway primary and a streaming hot standby of it (their URLs), and
    /// stops both however `body` ends.
    public static func withStandby(_ body: (_ primary: String, _ standby: String) async throws -> Void) async throws {
        let primary = try await start()
        var standby: TemporaryPostgres?
        do {
            let started = try await primary.standby()
            standby = started
            try await body(primary.url, started.url)
        } catch {
            await standby?.stop()
            await primary.stop()
            throw error
        }
        await standby?.stop()
        await primary.stop()
    }
}
