import Auth
import Crypto
import FingerlockProtocol
import Foundation
import Logging

@testable import FingerlockService

/// A service core over a fresh temporary state directory and a manual clock. The directory goes
/// with the last copy of the harness.
struct ServiceHarness: Sendable {
    let directory: String
    let clock: ManualClock
    let core: ServiceCore
    let dependencies: ServiceDependencies
    private let removal: DirectoryRemoval

    init(
        vaultLimits: VaultLimits = VaultLimits(), accounts: any UIDAccounts = SeparateUIDAccounts(),
        readers: ServiceReaders = .none
    ) throws {
        directory = try TemporaryDirectory.make()
        removal = DirectoryRemoval(directory)
        let clock = ManualClock()
        self.clock = clock
        var logger = Logger(label: "fingerlockd-test")
        logger.logLevel = .critical
        dependencies = try ServiceDependencies.files(
            stateDirectory: directory + "/state", readers: readers, now: { clock.now }, logger: logger,
            accounts: accounts, vaultLimits: vaultLimits)
        core = ServiceCore(dependencies: dependencies, version: "test")
    }

    static let alice = PeerCredentials(pid: 100, uid: 1001, gid: 1001)
    static let bob = PeerCredentials(pid: 200, uid: 1002, gid: 1002)
}

/// One vault's client-side values: the stretched passcode, the store master key, the AD.
struct ClientVault {
    var id = UUID().uuidString
    var stretched = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
    var key = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
    var associatedData = Data("fingerlock slot table v1".utf8)

    func seal(_ core: ServiceCore, as peer: PeerCredentials) throws -> String {
        try core.sealPasscodeSlot(
            .init(
                vault: id, stretched: stretched.base64EncodedString(), key: key.base64EncodedString(),
                associatedData: associatedData.base64EncodedString()), peer: peer
        ).sealedSlot
    }

    func unlock(
        _ core: ServiceCore, slot: String, as peer: PeerCredentials, stretched: Data? = nil, cacheSeconds: Int = 600
    ) throws(VarlinkError) -> VarlinkParameters.UnlockWithPasscodeReply {
        try core.unlockWithPasscode(
            .init(
                vault: id, stretched: (stretched ?? self.stretched).base64EncodedString(), sealedSlot: slot,
                associatedData: associatedData.base64EncodedString(), cacheSeconds: cacheSeconds), peer: peer)
    }

    func proof(slot: String, stretched: Data? = nil) -> VarlinkParameters.PasscodeProof {
        .init(
            vault: id, stretched: (stretched ?? self.stretched).base64EncodedString(), sealedSlot: slot,
            associatedData: associatedData.base64EncodedString())
    }

    static let wrong = Data(repeating: 7, count: 32)
}

/// Removes a test's temporary directory once nothing refers to it.
final class DirectoryRemoval: Sendable {
    let path: String
    init(_ path: String) { self.path = path }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

enum TemporaryDirectory {
    /// A new 0700 directory in `parent` (default: $TMPDIR): for tests whose other users must reach it,
    /// pass "/tmp", whose parents every user can traverse whatever $TMPDIR is.
    static func make(in parent: String = NSTemporaryDirectory()) throws -> String {
        var template = Array((parent + "/fingerlockd-test-XXXXXX").utf8CString)
        guard let path = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw POSIXError(.EIO)
        }
        return String(cString: path)
    }
}
