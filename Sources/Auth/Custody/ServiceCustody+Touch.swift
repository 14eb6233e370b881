import AuthCore
import Fingerprint
import Foundation
import Synchronization
import Vault

/// System mode's touches and fingers: fingerlockd owns the reader, the templates and the cached
/// key; the vault is opened only with the key the service released after a matching touch, and
/// every change to the enrolled set needs the passcode, proven to the service.
extension ServiceCustody {
    /// Up to `tries` touches through the service (nil: the vault's max-tries). The passcode is
    /// needed first (the service holds the key only after one); the service counts, matches,
    /// forgets the key after a lockout, and with `reuse` releases it without a scan within the
    /// vault's reuse window.
    func touchUnlock(finger: Finger?, tries: Int?, offerPasscode: Bool, reuse: Bool) async throws
        -> (vault: Vault, touch: SystemTouch)
    {
        let storeID = try environment.recordedStoreID
        // The vault's settings are sealed in it: the service applies what the owner told it (the
        // scan timeout whatever the client asks), and says them in the same round trip that asks
        // for a release within the reuse window (then no touch prompt is shown, as in user mode).
        // `verify` (one touch, no reuse) needs none of them: no round trip before its scan.
        var told: (tries: Int?, scanTimeout: Duration?)?
        var policyKnown: Bool?
        if reuse {
            switch try await environment.asyncSystemCall({ try await systemService.unlockWithoutScan(vault: storeID) }) {
            case .released(let key):
                let vault = try AuthError.mapped { try passcodes.open(withKey: key) }
                return (vault, SystemTouch(key: key, finger: nil, reader: nil))
            case .scanNeeded(let tries, let scanTimeout):
                told = tries == nil && scanTimeout == nil ? nil : (tries, scanTimeout)
                policyKnown = told != nil
            }
        }
        let defaults = SecuritySettings()
        let tries = tries ?? told?.tries ?? defaults.maxTries
        let timeout = told?.scanTimeout ?? defaults.scanTimeout
        let touch: SystemTouch = try await TouchSession(interaction: interaction).run(tries: tries, offerPasscode: offerPasscode) {
            [systemService, interaction] in
            do {
                return .matched(
                    try await systemService.unlockWithTouch(vault: storeID, finger: finger, timeout: timeout, reuse: reuse) {
                        interaction.notify(AuthError.readerBusy(with: $0, waiting: "your touch"))
                    })
            } catch let error as SystemServiceError {
                // fingerlockd applied the failed-touch rule (``TouchAttempt``); its verdict goes on to
                // the same tries as user mode's.
                switch error.code {
                case .noMatch(let failed, _, let lost): return .other(.noMatch(failures: failed, note: lost))
                case .printsLost(let sentence): return .other(.printsLost(sentence))
                case .retry(let reason): return .other(.retry(reason))
                default: throw AuthError.from(systemService: error)
                }
            }
        }
        // The released key must open this vault, as any key does: it is checked, never trusted.
        let vault = try AuthError.mapped { try passcodes.open(withKey: touch.key) }
        // A vault moved before fingerlockd took settings: it learns them now, the vault open
        // (also when the service did not say whether it knows them).
        if !(policyKnown ?? touch.policyKnown ?? false) { environment.tellServicePolicy(of: vault) }
        return (vault, touch)
    }

    /// The fingers fingerlockd keeps for this vault (`fingers`): no passcode, as the owner's own list.
    func fingersInService() throws -> [Enrollment.ListedFinger] {
        let storeID = try environment.recordedStoreID
        return try environment.systemCall { try systemService.fingers(vault: storeID) }.map(Self.listed)
    }

    /// Asks for the passcode and runs `body` with its proof, asking again (at a terminal) when the
    /// service says it was wrong; the service counts every attempt.
    func withSealedPasscodeSlot<T>(
        reason: String, _ body: (SealedPasscodeSlot) async throws -> T
    ) async throws -> T {
        try await PasscodePrompts(interaction: interaction).ask(prompt: "Passcode (\(reason)): ") { passcode in
            let proof = try AuthError.mapped { try passcodes.sealedPasscodeSlot(passcode: passcode, mode: .system) }
            do {
                return .accepted(try await body(proof))
            } catch let error as SystemServiceError {
                // The service counted it; its count is the command's last word.
                guard case .wrongPasscode = error.code else { throw AuthError.from(systemService: error) }
                return .refused(notice: "Wrong passcode, try again.", final: AuthError.from(systemService: error).message)
            }
        }
    }
}

extension ServiceCustody {
    /// Stands for the service's reader in enrollment's first update: its details stay in the service.
    static let serviceReaderInfo = ReaderInfo(
        name: "fingerlockd's fingerprint reader", driver: "fingerlockd", deviceID: "0", scanType: .press,
        enrollStages: 0, features: [])

    /// A finger the service keeps, by its name, reader and date (no template leaves the service).
    static func listed(_ finger: SystemEnrolledFinger) -> Enrollment.ListedFinger {
        Enrollment.ListedFinger(finger: finger.finger, reader: finger.reader, enrolled: finger.enrolled)
    }
}
