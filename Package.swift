// swift-tools-version: 6.1
import Foundation
import PackageDescription

/// libfprint's and GLib's header directories: the compile flags only. `CFprint` does not name
/// `libfprint-2` as its pkg-config package because SwiftPM would then link its libraries into every
/// executable; fingerlock opens libfprint with dlopen when a reader is first needed
/// (`LibfprintLibrary`). What `pkg-config --cflags-only-I libfprint-2` says, then the directories
/// Debian and Fedora install to: SwiftPM caches this manifest's result, so a first build run before
/// `make deps` installed pkg-config and libfprint-2-dev must still find the headers afterwards.
func libfprintIncludeFlags() -> [String] {
    #if arch(arm64)
        let multiarch = "aarch64-linux-gnu"
    #else
        let multiarch = "x86_64-linux-gnu"
    #endif
    let usual = [
        "-I/usr/include/libfprint-2", "-I/usr/include/glib-2.0", "-I/usr/lib/\(multiarch)/glib-2.0/include",
        "-I/usr/lib64/glib-2.0/include", "-I/usr/lib/glib-2.0/include",
    ]
    return (pkgConfigIncludeFlags() + usual).flatMap { ["-Xcc", $0] }
}

func pkgConfigIncludeFlags() -> [String] {
    let pkgConfig = Process()
    pkgConfig.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    pkgConfig.arguments = ["pkg-config", "--cflags-only-I", "libfprint-2"]
    let output = Pipe()
    pkgConfig.standardOutput = output
    pkgConfig.standardError = FileHandle.nullDevice
    do { try pkgConfig.run() } catch { return [] }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    pkgConfig.waitUntilExit()
    guard pkgConfig.terminationStatus == 0 else { return [] }
    return text.split(whereSeparator: \.isWhitespace).map(String.init)
}

/// The release CLI's libstdc++ and libgcc linked in, as the Swift runtime, Foundation and BoringSSL
/// already are (issue 26): loading libstdc++.so, relocating it and binding its symbols took 1.3-2 ms
/// of every start (`--version` took 7-9 ms). Only for builds with `--static-swift-stdlib`, so it is
/// asked for by `FINGERLOCK_STATIC_LIBSTDCXX=1`, which the Makefile and the benchmarks set: without
/// that flag the Swift runtime loads libstdc++.so itself, and a second copy in the binary would
/// split its state. SwiftPM passes `-lstdc++` (BoringSSL has C++ files); the linker script
/// `Sources/fingerlock/StaticLibstdcxx/libstdc++.so`, found first through this `-L`, makes it the
/// archive (libstdc++-12-dev's libstdc++.a).
let staticLibstdcxxFlags: [String] =
    Context.environment["FINGERLOCK_STATIC_LIBSTDCXX"] == "1"
    ? ["-L", Context.packageDirectory + "/Sources/fingerlock/StaticLibstdcxx", "-Xclang-linker", "-static-libgcc"] : []

let upcoming: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    // Every target: any module that loads Fingerprint's (a test's @testable import, optimised builds'
    // cross-module inlining) may need CFprint's headers.
    .unsafeFlags(libfprintIncludeFlags()),
]

let package = Package(
    name: "fingerlock",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "fingerlock", targets: ["fingerlock"]),
        .executable(name: "fingerlockd", targets: ["fingerlockd"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Exact: `CBoringSSLShim` declares BoringSSL functions that this version of swift-crypto links
        // in but does not export (`AESGCMOpenerTests` fails loudly if they move or change).
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // C libraries: module maps and thin shims only, no logic.
        // Headers only: libfprint is opened at run time (see `libfprintIncludeFlags`).
        .systemLibrary(
            name: "CFprint",
            providers: [.apt(["libfprint-2-dev", "libglib2.0-dev"])]
        ),
        .systemLibrary(
            name: "CKeyutils",
            providers: [.apt(["libkeyutils-dev"])]
        ),
        // tpm2-tss's ESAPI: the TPM that binds the passcode (issue 30).
        .systemLibrary(
            name: "CTSS2",
            providers: [.apt(["libtss2-dev"])]
        ),
        // GIO's D-Bus client, opened at run time as libfprint is: fingerlockd asks logind who sits at
        // the reader's seat (issue 38).
        .systemLibrary(
            name: "CGio",
            providers: [.apt(["libglib2.0-dev"])]
        ),
        // The system bus through GIO (dlopen'd): logind for fingerlockd's seat rule, fprintd for the
        // fingers a desktop keeps. Maps GLib only when a bus question is asked.
        .target(name: "SystemBus", dependencies: ["CGio"], swiftSettings: upcoming),
        // fprintd's client: the fingers a desktop keeps, behind AuthCore's finger seam. Apart from
        // Fingerprint, whose libfprint shim declares GLib's structs too (one module may own them).
        .target(name: "Fprintd", dependencies: ["Fingerprint", "SystemBus", "AuthCore"], swiftSettings: upcoming),
        // Declarations of BoringSSL's AEAD context functions, which swift-crypto links in but does
        // not export: one AES-GCM context per key for scans (see `AESGCMOpener`). No library of its own.
        .systemLibrary(name: "CBoringSSLShim"),

        // Private files done right: 0700/0600, atomic durable writes, flock.
        .target(
            name: "SafeFiles",
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
        // The TPM as fingerlock uses it: seal a secret under an authorization value, unseal it (the TPM
        // counting wrong ones), read the lockout state; and the TPM-bound passcode slot's format and
        // keys, shared by the CLI (user mode) and fingerlockd (system mode). FoundationEssentials only.
        .target(
            name: "TrustedPlatform",
            dependencies: ["CTSS2", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: upcoming
        ),
        .target(
            name: "Vault",
            dependencies: [
                "SafeFiles", "CBoringSSLShim",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's own API for the note scan's column reads (see `SealedNoteBatch`).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        // The policy's rules, written once and hosted by both modes (Auth in the CLI, fingerlockd):
        // the touch and passcode ledgers, delays, reuse window, reader kind, match candidates, the
        // settings' bounds, and the stores they keep their state in. No vault, no keyring, no SQLite.
        // Sync over git (issue 42): sealed change records, merge, per-device sequences; git is its
        // transport, behind `SyncRemote`.
        .target(
            name: "NoteSync",
            dependencies: ["Vault", "SafeFiles", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: upcoming
        ),
        .target(
            name: "AuthCore",
            dependencies: ["Fingerprint", "SafeFiles", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: upcoming
        ),
        .target(
            name: "Auth",
            dependencies: [
                "AuthCore", "Fingerprint", "Vault", "CKeyutils", "SafeFiles", "TrustedPlatform",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        // fingerlockd's client: the Varlink connection, the socket-trust rule, and the adapter behind
        // Auth's one `SystemService` seam.
        .target(
            name: "FingerlockServiceClient",
            dependencies: [
                "FingerlockProtocol", "Auth", "AuthCore", "Vault", "Fingerprint", "TrustedPlatform",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        // OTP codes (RFC 4226, RFC 6238) from the otpauth:// URIs notes keep.
        .target(
            name: "OneTimePassword", dependencies: [.product(name: "Crypto", package: "swift-crypto")], swiftSettings: upcoming),
        .target(
            name: "FingerlockCLI",
            dependencies: [
                "Fingerprint", "Vault", "AuthCore", "Auth", "SafeFiles", "FingerlockProtocol", "FingerlockServiceClient",
                "OneTimePassword", "TrustedPlatform", "NoteSync", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        .executableTarget(
            name: "fingerlock",
            dependencies: ["FingerlockCLI", "FingerlockServiceClient", "AuthCore", "Auth", "Fingerprint", "Fprintd", "SafeFiles", "Vault"],
            exclude: ["StaticLibstdcxx"],
            swiftSettings: upcoming,
            // Release start-up (every command pays it): the static binary exports none of its Swift
            // symbols, so the dynamic loader's symbol lookups and the runtime's start-up `dladdr` stay
            // cheap. Nothing looks them up by name. Then, when asked, libstdc++ linked in (below).
            linkerSettings: [
                .unsafeFlags(["-Xlinker", "--no-export-dynamic"] + staticLibstdcxxFlags, .when(configuration: .release))
            ]
        ),

        // System mode (issue 14). The Varlink protocol's types and interface: Foundation only, so the
        // CLI's client and the service share them without either importing the other.
        .target(name: "FingerlockProtocol", swiftSettings: upcoming),
        // The service's logic (state, policy, socket server), a peer of FingerlockCLI: tests run it in process.
        .target(
            name: "FingerlockService",
            dependencies: [
                // AuthCore, not Auth: the service hosts the rules and never opens a vault, so it links
                // neither GRDB/SQLite nor libkeyutils.
                "FingerlockProtocol", "AuthCore", "Fingerprint", "SafeFiles", "TrustedPlatform", "SystemBus",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: upcoming
        ),
        .executableTarget(
            name: "fingerlockd",
            dependencies: [
                "FingerlockService", "Fingerprint", "Fprintd", "SafeFiles", "TrustedPlatform",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: upcoming
        ),

        // Vault test helper (child process for crash and concurrency tests) and benchmark:
        // `swift run -c release vault-bench`.
        .executableTarget(name: "vault-stress", dependencies: ["Vault"], swiftSettings: upcoming),
        .executableTarget(name: "vault-bench", dependencies: ["Vault"], swiftSettings: upcoming),

        // Test-only helpers, declared as plain targets so several test targets can share them (a test
        // target cannot depend on another). Neither imports a fingerlock module.
        // The test clock every target's time-dependent tests move by hand, and the `.timed` trait every
        // top-level suite carries (each test's own duration, for the slowest-tests list).
        .target(
            name: "FingerlockTestSupport", dependencies: ["FingerprintTestSupport"], path: "Tests/FingerlockTestSupport",
            swiftSettings: upcoming),
        // What fingerlockd's tests in process and end to end both use: a bare Varlink client, a
        // client vault's values, temporary directories.
        .target(name: "FingerlockServiceTestSupport", path: "Tests/FingerlockServiceTestSupport", swiftSettings: upcoming),
        // The CLI run in the test process (`InProcessCLI`): the CLI tests' runner, and the end-to-end
        // tests' vault fixture (a vault made at the test KDF cost that the built binary then opens).
        .target(
            name: "FingerlockCLITestSupport",
            dependencies: ["FingerlockCLI", "Auth", "AuthCore", "Vault", "FingerlockServiceClient", "FingerlockTestSupport"],
            path: "Tests/FingerlockCLITestSupport",
            swiftSettings: upcoming
        ),

        .testTarget(
            name: "FprintdTests",
            dependencies: ["Fprintd", "Fingerprint", "FingerprintTestSupport", "FingerlockTestSupport"],
            swiftSettings: upcoming
        ),
        .testTarget(name: "SafeFilesTests", dependencies: ["FingerlockTestSupport", "SafeFiles"], swiftSettings: upcoming),
        .testTarget(name: "OneTimePasswordTests", dependencies: ["OneTimePassword"], swiftSettings: upcoming),
        .testTarget(
            name: "FingerprintTests",
            dependencies: ["Fingerprint", "FingerprintTestSupport", "fprint-probe", "FingerlockTestSupport"],
            resources: [],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "TrustedPlatformTests",
            dependencies: ["TrustedPlatform", "FingerlockTestSupport", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "NoteSyncTests", dependencies: ["NoteSync", "Vault", "FingerlockTestSupport", "SafeFiles"],
            swiftSettings: upcoming),
        .testTarget(
            name: "VaultTests", dependencies: ["Vault", "vault-stress", "FingerlockTestSupport"], swiftSettings: upcoming),
        .testTarget(
            name: "AuthCoreTests",
            dependencies: [
                "AuthCore", "Fingerprint", "SafeFiles", "FingerlockTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "AuthTests",
            dependencies: [
                "AuthCore", "Auth", "Fingerprint", "FingerprintTestSupport", "Vault", "FingerlockTestSupport", "TrustedPlatform",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: upcoming
        ),
        // The CLI's code in process: no binary, terminal or other user.
        .testTarget(
            name: "FingerlockCLITests",
            dependencies: [
                "FingerlockCLI", "AuthCore", "Auth", "Fingerprint", "SafeFiles", "Vault", "FingerlockServiceClient",
                "FingerlockTestSupport",
                "FingerlockCLITestSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: upcoming
        ),
        // The built `fingerlock` binary, run as a person or a script would: pipes, a pseudo-terminal,
        // editors, an X server, libfprint's virtual devices. Some walk the CLI's command tree in
        // process to know what to run.
        .testTarget(
            name: "FingerlockEndToEndTests",
            dependencies: [
                "FingerlockCLI", "fingerlock", "AuthCore", "Auth", "Fingerprint", "FingerprintTestSupport", "SafeFiles",
                "Vault", "FingerlockTestSupport", "FingerlockCLITestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: upcoming
        ),
        // fingerlockd's code in process: its core, server and client over a socket in a temporary
        // directory. No binary, no other user.
        .testTarget(
            name: "FingerlockServiceTests",
            dependencies: [
                "FingerlockService", "FingerlockProtocol", "FingerlockServiceClient", "AuthCore", "Auth", "Fingerprint",
                "FingerlockServiceTestSupport", "FingerlockTestSupport", "TrustedPlatform", "Fprintd", "FingerprintTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: upcoming
        ),
        // The built `fingerlockd`, run as a process: as a system user with login users as its clients
        // (setpriv, runuser, subordinate uids), under the systemd units, on libfprint's virtual devices,
        // and the built `fingerlock` run against it in system mode.
        .testTarget(
            name: "FingerlockServiceEndToEndTests",
            dependencies: [
                "FingerlockService", "FingerlockProtocol", "FingerlockServiceClient", "fingerlockd", "fingerlock",
                "FingerprintTestSupport", "FingerlockServiceTestSupport", "FingerlockTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // Python clients the tests run (the `varlink` package's, and a bare one run as login users).
            exclude: ["Fixtures"],
            swiftSettings: upcoming
        ),
        // The same unlock scenarios against both custodies: user mode, and fingerlockd in process over
        // its socket (reached through the CLI's own clients). Fails when either mode drifts from AuthCore.
        .testTarget(
            name: "CustodyParityTests",
            dependencies: [
                "Auth", "AuthCore", "Vault", "Fingerprint", "FingerlockServiceClient", "FingerlockService",
                "FingerlockTestSupport", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: upcoming
        ),
        // udev rules generator, rules syntax and `make install`: Foundation only (runs python3 and make).
        .testTarget(name: "UdevTests", dependencies: ["FingerlockTestSupport"], swiftSettings: upcoming),
    ]
)
