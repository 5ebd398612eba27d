// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Tender",
    // What the code needs: Synchronization's Mutex (the ledger's own-signature memo, the cores'
    // caches, the cluster) is macOS 15 and iOS 18. The client libraries (WalletKit,
    // PaymentEngine, CheckoutKit, Intents) use one lock type of Foundation's and build there too.
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "StellarBase", targets: ["StellarBase"]),
        .library(name: "Ledger", targets: ["Ledger"]),
        .library(name: "TenderServer", targets: ["TenderServer"]),
        .library(name: "WalletKit", targets: ["WalletKit"]),
        .library(name: "Gateway", targets: ["Gateway"]),
        .library(name: "Intents", targets: ["Intents"]),
        .library(name: "PaymentEngine", targets: ["PaymentEngine"]),
        .library(name: "Checkout", targets: ["Checkout"]),
        .library(name: "CheckoutKit", targets: ["CheckoutKit"]),
        .executable(name: "tender", targets: ["tender"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
    ],
    targets: [
        .target(
            name: "StellarBase",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "TenderJSON",
            path: "Sources/TenderJSON"
        ),
        .target(
            name: "TenderTesting",
            dependencies: ["WalletKit", .product(name: "Subprocess", package: "swift-subprocess")],
            path: "Sources/TenderTesting"
        ),
        .target(
            name: "Ledger",
            dependencies: [
                "StellarBase",
                "TenderJSON",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // A record's typed identifier, shared by the gateway's and the checkout's records. No
        // dependencies.
        .target(name: "Identifiers"),
        .target(
            name: "Gateway",
            dependencies: ["Identifiers", .product(name: "Crypto", package: "swift-crypto")],
            path: "Sources/Gateway"
        ),
        // Payments asked for in words: SiriKit's payments domain, the utterance parser in five
        // languages and their phrasebook. Pure Swift: no Foundation (its number and name handling
        // is wrong on Linux), no dependencies.
        .target(name: "Intents"),
        // Paylike's client engine for apps: card input, the engine, the form. No server
        // framework: the card rules and amounts come from Gateway, which links only swift-crypto.
        .target(name: "PaymentEngine", dependencies: ["Gateway"]),
        // The marketplace checkout's rules (issue 13, begun): totals, the bid and order state
        // machines, the escrow's release. Pure Swift, no dependencies.
        .target(name: "Checkout", dependencies: ["Identifiers"]),
        // The marketplace app's library: the checkout API's client and the payment screen's
        // model. Foundation only: no server framework.
        .target(name: "CheckoutKit"),
        // `sqlite3_config`'s page-cache options as plain C functions (Swift cannot call a
        // variadic one); SQLite itself comes from GRDBSQLite, linked by Store.
        .target(name: "CSQLiteConfig", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(
            name: "Store",
            dependencies: [
                "Ledger",
                "Gateway",
                "StellarBase",
                "CSQLiteConfig",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "PostgresStore",
            dependencies: [
                "Gateway",
                "Ledger",
                "Store",
                "StellarBase",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "LedgerService",
            dependencies: [
                "Ledger",
                "StellarBase",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The gateway's application core: its services, the desks that move money on the ledger,
        // the janitor and the webhook deliverer, its one failure type. No HTTP.
        .target(
            name: "GatewayCore",
            dependencies: [
                "Gateway",
                "Ledger",
                "LedgerService",
                "StellarBase",
                "TenderJSON",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The marketplace checkout's application core: marketplaces, users, listings, bids and
        // orders moved by their state machines, escrow on the ledger, its janitor, its one
        // failure type. No HTTP.
        .target(
            name: "Anchor",
            dependencies: ["StellarBase"]
        ),
        .target(
            name: "AnchorCore",
            dependencies: [
                "Anchor",
                "Gateway",
                "GatewayCore",
                "Ledger",
                "LedgerService",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                "StellarBase",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
        .target(
            name: "CheckoutCore",
            dependencies: [
                "Checkout",
                "Gateway",
                "GatewayCore",
                "Ledger",
                "LedgerService",
                "StellarBase",
                "TenderJSON",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "TenderServer",
            dependencies: [
                "Anchor",
                "AnchorCore",
                "GatewayCore",
                "CheckoutCore",
                "StellarBase",
                "Ledger",
                "LedgerService",
                "PostgresStore",
                "Store",
                "TenderJSON",
                "Gateway",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                "Checkout",
            ]
        ),
        .target(
            name: "WalletKit",
            dependencies: [
                "Anchor",
                "StellarBase",
                "Intents",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "tender",
            dependencies: [
                "StellarBase",
                "Ledger",
                "LedgerService",
                "Store",
                "TenderServer",
                "GatewayCore",
                "TenderJSON",
                "WalletKit",
                "Gateway",
                "Intents",
                "CheckoutKit",
                "PostgresStore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "StellarBaseTests",
            dependencies: [
                "StellarBase",
                "TenderTesting",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            resources: [.copy("Vectors")]
        ),
        .testTarget(
            name: "LedgerTests",
            dependencies: [
                "Ledger",
                "TenderJSON",
                "TenderTesting",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "GatewayTests",
            dependencies: ["Gateway", "TenderTesting"]
        ),
        .testTarget(
            name: "CoreTests",
            dependencies: [
                "GatewayCore", "CheckoutCore", "Checkout", "Gateway", "Store", "TenderTesting", "TenderJSON", "Ledger", "LedgerService", "StellarBase",
                "Anchor", "AnchorCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "CheckoutTests",
            dependencies: ["Checkout"]
        ),
        .testTarget(
            name: "CheckoutKitTests",
            dependencies: [
                "CheckoutKit", "TenderServer", "TenderTesting",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "IntentsTests",
            dependencies: ["Intents", .product(name: "PropertyBased", package: "swift-property-based")],
            resources: [.copy("Corpora")]
        ),
        .testTarget(
            name: "PaymentEngineTests",
            dependencies: [
                "PaymentEngine", "Gateway", "TenderServer", "TenderTesting", "Store",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "PostgresStoreTests",
            dependencies: ["PostgresStore", "Store", "Gateway", "Ledger", "StellarBase", "TenderTesting", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "AnchorTests",
            dependencies: ["Anchor", "AnchorCore", "Ledger", "StellarBase", "Store", "TenderTesting"]
        ),
        .testTarget(
            name: "StoreTests",
            dependencies: ["Store", "Ledger", "Gateway", "TenderTesting", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(
            name: "LedgerServiceTests",
            dependencies: [
                "LedgerService", "Store", "Ledger", "TenderTesting",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "TenderCLITests",
            dependencies: ["tender", "StellarBase", "Ledger", "Store", "TenderTesting", "PaymentEngine", "Gateway", "PostgresStore"],
            exclude: []
        ),
        .testTarget(
            name: "WalletKitTests",
            dependencies: [
                "Intents",
                "WalletKit",
                "StellarBase",
                "TenderServer",
                "PostgresStore",
                "TenderTesting",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "TenderServerTests",
            dependencies: [
                "TenderServer",
                "GatewayCore",
                "PostgresStore",
                "Checkout",
                "Ledger",
                "Store",
                "TenderTesting",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ]
        ),
    ]
)
