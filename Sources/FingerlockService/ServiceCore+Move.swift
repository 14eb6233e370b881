public import FingerlockProtocol
import Fingerprint
import FoundationEssentials
import Logging

/// Moving a vault's templates in (`system enable`) and out (`system disable`): only the vault's
/// owner, only after the passcode proof (counted like an unlock), one finger per call so that
/// every message stays under the size limit.
extension ServiceCore {
    /// `ImportFinger`: the template is sealed exactly as an enrolled one. A template of another
    /// reader could never match on the service's: refused before the passcode attempt is spent.
    public func importFinger(_ parameters: VarlinkParameters.ImportFinger, peer: PeerCredentials) async throws
        -> VarlinkParameters.ImportFingerReply
    {
        let owner = try VaultOwner(uid: peer.uid, vault: parameters.vault)
        let print = try Self.print(parameters.print)
        let secret = try registeredSecret(owner)
        let reader = try? await dependencies.readers.current()
        guard let reader, reader.identity == print.reader else {
            throw VarlinkError(
                .readerMismatch,
                [
                    "reader": .string(print.reader.description),
                    "serviceReader": .string(reader?.identity.description ?? ""),
                ])
        }
        try checkReaderKind(reader.identity, try policy(owner))
        _ = try checkPasscode(parameters.proof, peer: peer)
        try state { try dependencies.templates.save(print, owner, secret: secret) }
        logger.info(
            "finger imported",
            metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)", "finger": "\(print.finger)"])
        return .init(enrolled: Self.enrolledFinger(print))
    }

    /// `ExportFinger`: one of the vault's templates, to its owner who proved the passcode (in user
    /// mode the template lives sealed in that owner's vault anyway).
    public func exportFinger(_ parameters: VarlinkParameters.ExportFinger, peer: PeerCredentials)
        throws(VarlinkError) -> VarlinkParameters.ExportFingerReply
    {
        let owner = try VaultOwner(uid: peer.uid, vault: parameters.vault)
        let finger = try Self.finger(parameters.finger)
        let secret = try registeredSecret(owner)
        _ = try checkPasscode(parameters.proof, peer: peer)
        guard
            let print = try state({ try dependencies.templates.prints(owner, secret: secret) })
                .first(where: { $0.finger == finger })
        else {
            throw VarlinkError(.fingerNotEnrolled, ["finger": .string(finger.rawValue)])
        }
        logger.info(
            "finger exported", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)", "finger": "\(finger)"])
        return .init(
            print: .init(
                finger: print.finger.rawValue, reader: print.reader.description,
                template: print.template.base64EncodedString(), enrolled: Int(print.enrolled.timeIntervalSince1970)))
    }

    static func print(_ template: VarlinkParameters.FingerTemplate) throws(VarlinkError) -> EnrolledPrint {
        let finger = try finger(template.finger)
        guard template.reader.utf8.count <= 256, let reader = ReaderIdentity(template.reader) else {
            throw .invalidParameter("reader")
        }
        let bytes = try bytes(template.template, "template", limit: ServiceInterface.maximumTemplateSize)
        guard !bytes.isEmpty else { throw .invalidParameter("template") }
        guard template.enrolled >= 0, template.enrolled <= Int(Int32.max) * 4 else { throw .invalidParameter("enrolled") }
        return EnrolledPrint(
            finger: finger, reader: reader, template: bytes,
            enrolled: Date(timeIntervalSince1970: TimeInterval(template.enrolled)))
    }
}
