import GatewayCore
import Logging
import ServiceLifecycle

/// Moves the anchor's transfers on every `interval`: payments made, declined or left unpaid,
/// trustlines added, withdrawals' payments arrived, payouts to make.
public struct AnchorJanitor: Service {
    let transfers: TransferService
    let clock: any Clock<Duration>
    let interval: Duration
    let logger: Logger

    public init(transfers: TransferService, clock: any Clock<Duration>, interval: Duration, logger: Logger) {
        self.transfers = transfers
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        let transfers = transfers, logger = logger
        try await sweepEvery(interval, on: clock) {
            do {
                try await transfers.advanceDue()
            } catch is CancellationError {
                // Shutting down.
            } catch {
                logger.error("anchor janitor round failed", metadata: ["error": "\(error)"])
            }
        }
    }
}
