import Auth
import AuthCore
import Crypto
import FingerlockProtocol
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import Logging
import TrustedPlatform

@testable import FingerlockService

/// A service core over a fresh temporary state directory and a manual clock. The directory goes
/// with the last copy of the harness.
struct ServiceHarness: Sendable {
    let directory: String
    let clock: TestClock
    let core: ServiceCore
    let dependencies: ServiceDependencies
    private let removal: DirectoryRemoval

    init(
        vaultLimits: VaultLimits = VaultLimits(), accounts: any UIDAccounts = SeparateUIDAccounts(),
        readers: ServiceReaders = .none, tpm: any TrustedPlatformModule = ESAPIModule(), stateDirectory: String? = nil,
        seat: any SeatAccess = AnyCallerMayScan(), fprintd: @escaping @Sendable (UInt32) -> (any FprintdFingers)? = { _ in nil }
    ) throws {
        directory = try TemporaryDirectory.make()
        removal = DirectoryRemoval(directory)
        let clock = TestClock()
        self.clock = clock
        var logger = Logger(label: "fingerlockd-test")
        logger.logLevel = .critical
        dependencies = try ServiceDependencies.files(
            stateDirectory: stateDirectory ?? directory + "/state", readers: readers, now: clock.now, logger: logger,
            accounts: accounts, vaultLimits: vaultLimits, tpm: tpm, seat: seat, fprintd: fprintd)
        core = ServiceCore(dependencies: dependencies, version: "test")
    }

    static let alice = PeerCredentials(pid: 100, uid: 1001, gid: 1001)
    static let bob = PeerCredentials(pid: 200, uid: 1002, gid: 1002)
}
