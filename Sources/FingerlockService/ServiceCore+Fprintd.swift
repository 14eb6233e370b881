import AuthCore
import Crypto
public import FingerlockProtocol
import Fingerprint
import Logging

/// A vault whose fingers are the owner's fingers enrolled with fprintd: the service asks fprintd to
/// verify them as the owner (by name, which polkit grants the service user alone), and keeps, sealed
/// beside the templates, the set the vault accepted. fprintd lets its user add a finger with the login
/// password alone, so a touch releases the key only while fprintd's set is the accepted one; the
/// passcode, proven here, accepts a new set.
extension ServiceCore {
    /// `UseFprintdFingers`. Throws `VarlinkError`s.
    public func useFprintdFingers(_ parameters: VarlinkParameters.UseFprintdFingers, peer: PeerCredentials) async throws
        -> VarlinkParameters.UseFprintdFingersReply
    {
        let owner = try VaultOwner(uid: peer.uid, vault: parameters.vault)
        let secret = try registeredSecret(owner)
        guard parameters.use else {
            _ = try checkPasscode(parameters.proof, peer: peer)
            let accepted = try state { try dependencies.templates.acceptedFprintdFingers(owner, secret: secret) }
            if accepted != nil {
                try state { try dependencies.templates.setAcceptedFprintdFingers(nil, owner, secret: secret) }
                logger.notice("fprintd's fingers no longer used", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)"])
            }
            return .init(used: accepted != nil, device: accepted?.device ?? "", fingers: accepted?.fingers.map(\.rawValue) ?? [])
        }
        // fprintd first: no passcode attempt is spent on fingers fprintd does not have for the caller.
        let current: AcceptedFingers
        let reader: ReaderIdentity
        do {
            let source = try await fprintdSource(owner, accepted: nil)
            current = try await source.currentSet()
            reader = source.reader.identity
        } catch {
            throw varlinkError(error)
        }
        guard !current.fingers.isEmpty else { throw VarlinkError(.noFingerEnrolled, ["reader": .string(reader.description)]) }
        try checkReaderKind(reader, try toldPolicy(owner) ?? .defaults)
        _ = try checkPasscode(parameters.proof, peer: peer)
        try state { try dependencies.templates.setAcceptedFprintdFingers(current, owner, secret: secret) }
        logger.notice(
            "fprintd's fingers accepted",
            metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)", "fingers": "\(current.fingers.map(\.rawValue))"])
        return .init(used: true, device: current.device, fingers: current.fingers.map(\.rawValue))
    }

    /// After a proven passcode (UnlockWithPasscode), for a vault that takes fprintd's fingers:
    /// fprintd's set as it is now is accepted (the passcode is the owner's consent); what changed,
    /// if anything. Asked on the caller's connection thread, blocking (never Swift's cooperative
    /// threads, which a client in the same process may be holding); a failure to ask fprintd is
    /// logged, never fatal: the passcode unlock stands.
    func acceptFprintdChanges(_ owner: VaultOwner, secret: SymmetricKey) -> String? {
        let accepted: AcceptedFingers
        do {
            guard let read = try state({ try dependencies.templates.acceptedFprintdFingers(owner, secret: secret) }) else { return nil }
            accepted = read
        } catch {
            // A damaged record: the unlock stands, and the next touch reports it.
            logger.error("fprintd fingers record unreadable", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)"])
            return nil
        }
        let now: AcceptedFingers?
        do {
            guard let fprintd = dependencies.fprintd(owner.uid) else {
                throw FingerprintError(.noReader, "fingerlockd cannot ask fprintd for this user's fingers.")
            }
            now = try fprintd.fingersNow()
        } catch {
            now = nil
            logger.notice(
                "fprintd's fingers not checked after the passcode",
                metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)", "error": "\(varlinkError(error).name)"])
        }
        guard case .accept(let set, let change) = FprintdConsent.afterPasscode(accepted: accepted, now: now) else { return nil }
        do {
            try state { try dependencies.templates.setAcceptedFprintdFingers(set, owner, secret: secret) }
        } catch {
            logger.error("fprintd's changed fingers not kept", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)"])
            return nil
        }
        logger.notice(
            "fprintd's changed fingers accepted with the passcode",
            metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)", "change": "\(change.summary)"])
        return change.summary
    }

    /// The vault's fingers: fprintd's (with the set it accepted) or its templates on the service's reader.
    func fingerSource(_ owner: VaultOwner, secret: SymmetricKey, policy: ServiceVaultPolicy, timeout: Duration) async throws
        -> any FingerSource
    {
        do {
            return try await VaultFingers.source(
                kind: policy.kind, accepted: try state { try dependencies.templates.acceptedFprintdFingers(owner, secret: secret) },
                fprintd: { try await fprintdSource(owner, accepted: $0) },
                templates: {
                    // The reader is looked up in turn, never before: the lookup waits for libfprint's
                    // thread, which a running scan holds, and would let a later request in first.
                    let reader = try await currentReader(timeout: timeout)
                    return TemplateFingerSource(try state { try dependencies.templates.prints(owner, secret: secret) }, reader: reader)
                })
        } catch let wrong as VaultFingers.WrongKind {
            throw Self.wrongReaderKind(wrong.reader, wrong.kind)
        }
    }

    /// fprintd's fingers of `owner`, asked as them by name.
    func fprintdSource(_ owner: VaultOwner, accepted: AcceptedFingers?) async throws -> FprintdFingerSource {
        guard let fprintd = dependencies.fprintd(owner.uid) else {
            throw FingerprintError(.noReader, "fingerlockd cannot ask fprintd for this user's fingers.")
        }
        return try await FprintdFingerSource.open(fprintd, accepted: accepted)
    }
}
