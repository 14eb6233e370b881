import AuthCore
public import FingerlockProtocol
import Fingerprint
import FoundationEssentials
import Logging

/// Enrolling, listing and forgetting the fingers kept by the service. Changing the enrolled set
/// needs the passcode proof (counted like an unlock), never a touch or a cached key.
extension ServiceCore {
    /// `EnrollFinger`: each step goes to `emit` (false: the client is not reading, so it stops);
    /// the template is kept only once the reader made it. Throws `VarlinkError`s or `CancellationError`.
    public func enrollFinger(
        _ parameters: VarlinkParameters.EnrollFinger, peer: PeerCredentials,
        emit: @escaping @Sendable (VarlinkParameters.EnrollStage) -> Bool
    ) async throws -> VarlinkParameters.EnrollFingerReply {
        let owner = try VaultOwner(uid: peer.uid, vault: parameters.vault)
        let told = try toldPolicy(owner)
        let timeout = try touchTimeout(parameters.timeoutSeconds, told)
        let finger = try Self.finger(parameters.finger)
        let secret = try registeredSecret(owner)
        // The reader first: a passcode attempt is not spent on a reader that is not there, or of
        // the wrong kind for the vault.
        let reader = try await currentReader(timeout: timeout)
        try checkReaderKind(reader.identity, told ?? .defaults)
        // Only the user at the reader's seat enrolls: nobody else's touches become their template.
        // Before the passcode, which is then not counted.
        try await requireSeat(peer, for: "EnrollFinger")
        _ = try checkPasscode(parameters.proof, peer: peer)
        let old = try state { try dependencies.templates.prints(owner, secret: secret) }
            .first { $0.finger == finger && $0.reader == reader.identity }
        let label = PrintLabel.username(user: "uid\(owner.uid)", storeID: UUID(uuidString: owner.vault)!)
        let print: EnrolledPrint
        do {
            let waiting: (ServiceInterface.ReaderHolder) -> Void = { holder in
                _ = emit(.init(event: .waiting, completed: 0, total: 0, retry: "", busyWith: holder))
            }
            print = try await scans.run(for: owner.uid, .enrollment, waitingAtMost: timeout, waiting: waiting) {
                () async throws -> EnrolledPrint in
                // The seat may have changed hands while this one waited.
                try await takeReader(peer, for: "EnrollFinger")
                // An on-chip reader refuses a second copy of a print: the old one goes first.
                if let old, reader.info.hasStorage { try? await reader.deleteStoredPrint(old) }
                for try await event in reader.enroll(finger, username: label, timeout: timeout) {
                    let stage: VarlinkParameters.EnrollStage
                    switch event {
                    case .opened(let total): stage = .init(event: .opened, completed: 0, total: total, retry: "")
                    case .stage(let completed, let total):
                        stage = .init(event: .stage, completed: completed, total: total, retry: "")
                    case .retry(let reason): stage = .init(event: .retry, completed: 0, total: 0, retry: reason.rawValue)
                    case .enrolled(let print): return print
                    // Only the service itself says so (above), never a reader.
                    case .waitingForOtherUser: continue
                    }
                    // Leaving the loop ends the stream, which cancels the enrollment.
                    guard emit(stage) else { throw CancellationError() }
                }
                try Task.checkCancellation()
                throw FingerprintError(.deviceError, "Enrollment ended without a print.")
            }
        } catch {
            throw error is CancellationError ? error : varlinkError(error, timeout: timeout)
        }
        try state { try dependencies.templates.save(print, owner, secret: secret) }
        logger.info(
            "finger enrolled", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)", "finger": "\(finger)"])
        return .init(enrolled: Self.enrolledFinger(print))
    }

    /// `ListFingers`: names, readers and dates; no template leaves the service.
    public func listFingers(_ parameters: VarlinkParameters.Vault, peer: PeerCredentials) throws(VarlinkError)
        -> VarlinkParameters.ListFingersReply
    {
        let owner = try VaultOwner(uid: peer.uid, vault: parameters.vault)
        let secret = try registeredSecret(owner)
        if let accepted = try state({ try dependencies.templates.acceptedFprintdFingers(owner, secret: secret) }) {
            // fprintd's fingers, as the vault accepted them: fprintd does not say when (0).
            let reader = FprintdDevice.identity(named: accepted.device).description
            return .init(fingers: accepted.fingers.map { .init(finger: $0.rawValue, reader: reader, enrolled: 0) })
        }
        let prints = try state { try dependencies.templates.prints(owner, secret: secret) }
        return .init(fingers: prints.map(Self.enrolledFinger))
    }

    /// `ForgetFinger`: after the passcode proof, the template goes, and its copy on the reader's
    /// own storage when that reader is connected and can delete.
    public func forgetFinger(_ parameters: VarlinkParameters.ForgetFinger, peer: PeerCredentials) async throws {
        let owner = try VaultOwner(uid: peer.uid, vault: parameters.vault)
        let finger = try Self.finger(parameters.finger)
        let secret = try registeredSecret(owner)
        _ = try checkPasscode(parameters.proof, peer: peer)
        let prints = try state { try dependencies.templates.prints(owner, secret: secret) }
        guard let print = prints.first(where: { $0.finger == finger }) else {
            throw VarlinkError(.fingerNotEnrolled, ["finger": .string(finger.rawValue)])
        }
        if let reader = try? await dependencies.readers.current(), reader.identity == print.reader,
            reader.info.features.contains(.storageDelete)
        {
            // Best effort: the template is what unlocks; a copy left on a chip matches nothing of ours.
            try? await scans.run(for: owner.uid, waitingAtMost: .seconds(30)) {
                try await reader.deleteStoredPrint(print)
            }
        }
        _ = try state { try dependencies.templates.delete(finger, owner) }
        logger.info(
            "finger forgotten", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)", "finger": "\(finger)"])
    }

    static func enrolledFinger(_ print: EnrolledPrint) -> VarlinkParameters.EnrolledFinger {
        .init(
            finger: print.finger.rawValue, reader: print.reader.description,
            enrolled: Int(print.enrolled.timeIntervalSince1970))
    }
}
