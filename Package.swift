// swift-tools-version: 6.1
import PackageDescription

let upcoming: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "fingerlock",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "fingerlock", targets: ["fingerlock"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        // C libraries: module maps and thin shims only, no logic.
        .systemLibrary(
            name: "CFprint",
            pkgConfig: "libfprint-2",
            providers: [.apt(["libfprint-2-dev", "libglib2.0-dev"])]
        ),
        .systemLibrary(
            name: "CKeyutils",
            providers: [.apt(["libkeyutils-dev"])]
        ),

        // Private files done right: 0700/0600, atomic durable writes, flock.
        .target(
            name: "SafeFiles",
            dependencies: [.product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: upcoming
        ),
        .target(
            name: "Fingerprint",
            dependencies: ["CFprint", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: upcoming
        ),
        // Drives libfprint's virtual devices from tests (socket protocols, NIST images). No C.
        .target(name: "FingerprintTestSupport", swiftSettings: upcoming),
        // A child process for tests: verifies a print saved by another process.
        .executableTarget(name: "fprint-probe", dependencies: ["Fingerprint"], swiftSettings: upcoming),
        .target(
            name: "Vault",
            dependencies: [
                "SafeFiles",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "Auth",
            dependencies: [
                "Fingerprint", "Vault", "CKeyutils", "SafeFiles",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "FingerlockCLI",
            dependencies: [
                "Fingerprint", "Vault", "Auth", "SafeFiles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        .executableTarget(
            name: "fingerlock",
            dependencies: ["FingerlockCLI", "Auth", "Fingerprint"],
            swiftSettings: upcoming,
            // Release start-up: the static binary exports none of its Swift symbols, so the dynamic
            // loader's symbol lookups and the runtime's start-up `dladdr` stay cheap. Nothing looks
            // them up by name.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(configuration: .release))]
        ),

        // Vault test helper (child process for crash and concurrency tests) and benchmark:
        // `swift run -c release vault-bench`.
        .executableTarget(name: "vault-stress", dependencies: ["Vault"], swiftSettings: upcoming),
        .executableTarget(name: "vault-bench", dependencies: ["Vault"], swiftSettings: upcoming),

        .testTarget(name: "SafeFilesTests", dependencies: ["SafeFiles"], swiftSettings: upcoming),
        .testTarget(
            name: "FingerprintTests",
            // Auth and Vault for the tests of the policy on a real libfprint reader (shared storage), which
            // must run under the serialized libfprint suite.
            dependencies: ["Fingerprint", "FingerprintTestSupport", "fprint-probe", "Auth", "Vault"],
            resources: [],
            swiftSettings: upcoming
        ),
        .testTarget(name: "VaultTests", dependencies: ["Vault", "vault-stress"], swiftSettings: upcoming),
        .testTarget(
            name: "AuthTests",
            dependencies: [
                "Auth", "Fingerprint", "Vault", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "FingerlockCLITests",
            dependencies: [
                "FingerlockCLI", "fingerlock", "Auth", "Fingerprint", "FingerprintTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: upcoming
        ),
        // udev rules generator, rules syntax and `make install`: Foundation only (runs python3 and make).
        .testTarget(name: "UdevTests", swiftSettings: upcoming),
    ]
)
