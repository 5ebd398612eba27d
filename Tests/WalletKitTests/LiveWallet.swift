import Foundation
import StellarBase
import WalletKit

/// A wallet in `directory` talking to the Tender server on `port` (the keystore at the test cost).
func liveWallet(_ port: Int, _ directory: URL) -> Wallet {
    Wallet(
        horizon: HorizonClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!), network: .standalone,
        keystore: Keystore(storage: FileKeystoreStorage(url: directory.appendingPathComponent("keystore.json")), cost: .testing),
        contacts: ContactBook(storage: FileKeystoreStorage(url: directory.appendingPathComponent("contacts.json"))))
}
