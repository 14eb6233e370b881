import AuthCore
import Fingerprint
import Foundation
import Synchronization
import Vault

/// System mode's own fingers: fingerlockd's store and reader. It tells its owner the fingers without
/// the passcode; enrolling and forgetting need the passcode's proof, which the service counts.
extension ServiceCustody: OwnFingers {
    var ownFingers: any OwnFingers { self }

    /// The service's only reader.
    func enrollingReader() async throws -> ReaderIdentity? { nil }

    func enrolledBeforePasscode() async throws -> [Enrollment.ListedFinger]? {
        try fingersInService()
    }

    /// Always asked (the service asks its own proof, and counts it), again at a terminal when the
    /// service says it was wrong.
    func withPasscode<T: Sendable>(reason: String, recentOneStands: Bool, _ body: (any ProvenFingers) async throws -> T)
        async throws -> T
    {
        try PasscodeUnlock(environment).requirePasscodeSource()
        return try await withSealedPasscodeSlot(reason: reason) { proof in
            try await body(ProvenServiceFingers(custody: self, proof: proof))
        }
    }
}

/// fingerlockd's fingers for a vault, with the passcode's proof.
struct ProvenServiceFingers: ProvenFingers {
    let custody: ServiceCustody
    let proof: SealedPasscodeSlot

    var systemService: any SystemService { custody.systemService }

    func enrolled() async throws -> [Enrollment.ListedFinger] {
        try custody.fingersInService()
    }

    /// The service scans and keeps the template (replacing the old one itself), with the vault's
    /// scan timeout as it was told.
    func enroll(
        _ finger: Finger, replacing: Enrollment.ListedFinger?, username: String,
        updates: @escaping @Sendable (Enrollment.Update) -> Void
    ) async throws -> Enrollment.ListedFinger {
        let environment = custody.environment
        let storeID = try environment.recordedStoreID
        let timeout =
            try environment.systemCall { try systemService.policy(vault: storeID) }?.scanTimeout ?? SecuritySettings().scanTimeout
        let announced = Mutex(false)
        let enrolled = try await systemService.enroll(finger, proof: proof, timeout: timeout) { event in
            if announced.withLock({ value in
                defer { value = true }
                return !value
            }) {
                updates(.starting(ServiceCustody.serviceReaderInfo))
            }
            updates(.progress(event))
        }
        return ServiceCustody.listed(enrolled)
    }

    func forget(_ finger: Enrollment.ListedFinger) async throws -> Enrollment.ForgottenPrint {
        try await systemService.forget(finger.finger, proof: proof)
        return Enrollment.ForgottenPrint(finger: finger.finger, reader: finger.reader, onReader: .nothingLeft)
    }
}
