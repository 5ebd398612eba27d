import ArgumentParser
import Foundation
import Store
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The disk's own answer time now: reads of 8 KiB at random places of large files, one at a time,
/// past the page cache. A history query on a network larger than memory reads a page or two
/// from disk, so its p99 is the disk's of those seconds; on a virtual machine that moves from
/// second to second whatever the machine itself does. `bench scale` runs it in a process of its
/// own around each step's history queries (a SQLite store's locks are the process's, and closing
/// a descriptor of the ledger's file in the process that holds them would drop them).
struct DiskBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disk",
        abstract: "Read 8 KiB at random places of files past the page cache, one read at a time: the disk's latency percentiles now.",
        discussion: """
            Give a database's files (a SQLite ledger, or a PostgreSQL relation's segments in its \
            data directory): reads at random places of them are what a query on a network larger \
            than memory waits for. O_DIRECT on Linux, F_NOCACHE on macOS.
            """
    )

    @Option(name: .customLong("file"), help: "A file to read (repeat for several; a read picks a file by its size).")
    var files: [String] = []

    @Option(help: "Reads to time.")
    var reads = 500

    @Flag(help: "Print only p50,p99 in milliseconds.")
    var csv = false

    func run() throws {
        guard !files.isEmpty else { throw CommandFailure("give at least one --file") }
        guard reads > 0 else { throw CommandFailure("--reads must be above 0") }
        var rng = SystemRandomNumberGenerator()
        let times = try Self.randomReads(files, count: reads, using: &rng)
        func percentile(_ p: Int) -> Double { times[min(times.count - 1, times.count * p / 100)] }
        if csv {
            print(String(format: "%.3f,%.3f", percentile(50), percentile(99)))
        } else {
            print(String(format: "%d reads of 8 KiB past the page cache: p50 %.3f ms, p90 %.3f, p99 %.3f, max %.3f",
                         reads, percentile(50), percentile(90), percentile(99), times.last!))
        }
    }

    static let blockSize = 8_192

    #if canImport(Glibc)
    /// Linux's `O_DIRECT`, which Swift's Glibc module leaves out (it is a `_GNU_SOURCE` name).
    #if arch(x86_64) || arch(i386)
    static let direct: Int32 = 0o40000
    #else
    static let direct: Int32 = 0o200000
    #endif
    #endif

    /// `count` reads of a block at a random block-aligned place of the files (a file picked in
    /// proportion to its blocks), each past the page cache: their times in milliseconds, sorted.
    static func randomReads(_ paths: [String], count: Int, using rng: inout some RandomNumberGenerator) throws -> [Double] {
        var files: [(descriptor: Int32, blocks: Int)] = []
        defer { for file in files { close(file.descriptor) } }
        for path in paths {
            #if canImport(Glibc)
            let descriptor = open(path, O_RDONLY | Self.direct)
            #else
            let descriptor = open(path, O_RDONLY)
            #endif
            guard descriptor >= 0 else { throw CommandFailure("cannot open \(path) for reads past the page cache: \(String(cString: strerror(errno)))") }
            #if canImport(Darwin)
            _ = fcntl(descriptor, F_NOCACHE, 1)
            #endif
            var status = stat()
            guard fstat(descriptor, &status) == 0 else {
                close(descriptor)
                throw CommandFailure("cannot read the size of \(path)")
            }
            files.append((descriptor, Int(status.st_size) / blockSize))
        }
        let total = files.reduce(0) { $0 + $1.blocks }
        guard total > 0 else { throw CommandFailure("the files hold no whole block of \(blockSize) bytes") }
        // Reads past the page cache want a buffer aligned to the device's blocks.
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: blockSize, alignment: 4_096)
        defer { buffer.deallocate() }
        let clock = ContinuousClock()
        var times: [Double] = []
        times.reserveCapacity(count)
        for _ in 0..<count {
            var block = Int.random(in: 0..<total, using: &rng)
            var index = 0
            while block >= files[index].blocks { block -= files[index].blocks; index += 1 }
            let before = clock.now
            let read = pread(files[index].descriptor, buffer, blockSize, off_t(block * blockSize))
            let elapsed = clock.now - before
            guard read == blockSize else {
                throw CommandFailure("a read of \(paths[index]) past the page cache failed: " + (read < 0 ? String(cString: strerror(errno)) : "\(read) bytes"))
            }
            times.append(CommitBench.milliseconds(elapsed))
        }
        return times.sorted()
    }

    /// The p50 and p99 of `reads` such reads of `files`, from a `tender bench disk` process of
    /// its own; nil when it cannot read them (files not readable to this user, a file system that
    /// refuses reads past the page cache).
    static func inAnotherProcess(_ files: [String], reads: Int = 500) async -> (p50: Double, p99: Double)? {
        guard !files.isEmpty else { return nil }
        return await offThePool { () -> (p50: Double, p99: Double)? in
            guard let (succeeded, output) = try? ScaleBench.runThisExecutable(["bench", "disk", "--reads", String(reads), "--csv"] + files.flatMap { ["--file", $0] }, droppingErrors: true),
                  succeeded else { return nil }
            let fields = output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
            guard fields.count == 2, let p50 = Double(fields[0]), let p99 = Double(fields[1]) else { return nil }
            return (p50, p99)
        }
    }
}
