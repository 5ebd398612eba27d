import Foundation
import StellarBase
import Testing
import WalletKit

/// Fees and reserves come from the network and are checked with overflow in mind.
@Suite("Wallet fees and reserves")
struct FeeAndReserveTests {
    func account(balance: String, subentries: Int, selling: String = "0.0000000") throws -> HorizonAccount {
        let json = """
            {"account_id": "GA", "sequence": "1", "subentry_count": \(subentries), "signers": [], "data": {},
             "balances": [{"balance": "\(balance)", "asset_type": "native", "buying_liabilities": "0.0000000", "selling_liabilities": "\(selling)"}]}
            """
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(HorizonAccount.self, from: Data(json.utf8))
    }

    @Test func feesOutsideOneToUInt32MaxAreRefused() throws {
        for fee: Int64 in [0, -1, Int64(UInt32.max) + 1, .max, .min] {
            #expect(throws: WalletError.self) { try Wallet.checkFee(fee) }
        }
        #expect(try Wallet.checkFee(1) == 1)
        #expect(try Wallet.checkFee(Int64(UInt32.max)) == UInt32.max)
        #expect(try Wallet.checkFee(nil) == nil)
    }

    @Test func theReserveIsTheNetworksAndNeverOverflows() throws {
        let alice = try account(balance: "100.0000000", subentries: 1, selling: "2.0000000")
        // (2 + 1) × reserve + selling liabilities, whatever the network's reserve is.
        #expect(Wallet.minimumBalance(alice, baseReserve: 5_000_000) == Int64(35_000_000))
        #expect(Wallet.minimumBalance(alice, baseReserve: 1_000_000) == Int64(23_000_000))
        #expect(Wallet.maximumSendable(alice, asset: .native, fee: 100, baseReserve: 5_000_000) == 1_000_000_000 - 35_000_000 - 100)
        // A server answering absurd numbers gets nothing sendable, not a trap.
        let huge = try account(balance: "922337203685.4775807", subentries: Int.max)
        #expect(Wallet.minimumBalance(huge, baseReserve: Int64(UInt32.max)) == nil)
        #expect(Wallet.maximumSendable(huge, asset: .native, fee: 100, baseReserve: Int64(UInt32.max)) == 0)
        #expect(Wallet.maximumSendable(alice, asset: .native, fee: .max, baseReserve: 5_000_000) == 0)
    }
}
