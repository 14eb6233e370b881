import AuthCore
import Crypto
import FingerlockTestSupport
import Foundation
import Synchronization
import Testing

@testable import Auth

func bytes(_ key: SymmetricKey) -> [UInt8] { key.withUnsafeBytes { Array($0) } }

/// The real kernel keyring (`@u`), as the CLI uses it.
@Suite(.timed, .serialized) struct KernelKeyringCacheTests {
    let cache = KernelKeyringCache(prefix: "fingerlock-test-\(UUID().uuidString)")

    @Test func isUsableHere() {
        #expect(cache.unavailableReason() == nil)
    }

    @Test func storesLoadsAndInvalidates() throws {
        let key = SymmetricKey(size: .bits256)
        try cache.store(key, name: "store", lifetime: .seconds(60))
        #expect(try cache.load(name: "store").map(bytes) == bytes(key))
        // A second store replaces the first (same description).
        let newer = SymmetricKey(size: .bits256)
        try cache.store(newer, name: "store", lifetime: .seconds(60))
        #expect(try cache.load(name: "store").map(bytes) == bytes(newer))
        #expect(try cache.invalidate(name: "store"))
        #expect(try cache.load(name: "store") == nil)
        #expect(try !cache.invalidate(name: "store"))
    }

    @Test(.timeLimit(.minutes(1))) func theKernelExpiresKeys() async throws {
        try cache.store(SymmetricKey(size: .bits256), name: "short", lifetime: .seconds(1))
        #expect(try cache.load(name: "short") != nil)
        try await Task.sleep(for: .milliseconds(2100))
        #expect(try cache.load(name: "short") == nil)
    }

    @Test func anotherProcessOfTheSameUserCanReadTheKey() throws {
        let key = SymmetricKey(size: .bits256)
        try cache.store(key, name: "shared", lifetime: .seconds(60))
        defer { _ = try? cache.invalidate(name: "shared") }
        // keyctl(1) in a new session keyring: found through @u with the user permissions we set.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "keyctl session - sh -c 'keyctl pipe $(keyctl search @u user \"$0\")' \"$DESC\""]
        process.environment = ["DESC": "\(cache.prefix):shared", "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        // The key, then the expiry the cache keeps with it (`ExpiryTrailer`).
        #expect(Array(data.prefix(32)) == bytes(key))
        #expect(Array(data.suffix(4)) == ExpiryTrailer.magic && data.count == 32 + ExpiryTrailer.length)
    }
}
