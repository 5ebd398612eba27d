import Checkout
import Gateway

/// The checkout's kinds of object in the gateway's store, one per record type.
extension ObjectKind {
    package static let marketplace = ObjectKind(rawValue: "marketplace")
    package static let checkoutUser = ObjectKind(rawValue: "checkout_user")
    package static let listing = ObjectKind(rawValue: "listing")
    package static let bid = ObjectKind(rawValue: "bid")
    package static let checkoutOrder = ObjectKind(rawValue: "checkout_order")
}

// The checkout's records are the pure `Checkout` module's, which knows no store; they are
// stored records here, where the checkout meets the gateway's store.
extension MarketplaceRecord: StoredRecord { public static var kind: ObjectKind { .marketplace } }
extension CheckoutUserRecord: StoredRecord { public static var kind: ObjectKind { .checkoutUser } }
extension ListingRecord: StoredRecord { public static var kind: ObjectKind { .listing } }
extension BidRecord: StoredRecord { public static var kind: ObjectKind { .bid } }
extension OrderRecord: StoredRecord { public static var kind: ObjectKind { .checkoutOrder } }
