import AuthCore
import Crypto
public import FingerlockProtocol
import Fingerprint
import FoundationEssentials
import Logging

/// Fingerprint unlock through the service: a touch releases only a key the service already holds
/// (the passcode came first, as on a phone after a restart), matched against this vault's own
/// templates, counted once the reader has the finger, forgotten after too many failures.
extension ServiceCore {
    func longCall(_ method: ServiceInterface.Method, _ call: VarlinkCall, peer: PeerCredentials, name: String)
        -> LongCall
    {
        LongCall { [self] emit in
            do {
                let reply: Data
                switch method {
                case .unlockWithTouch:
                    let parameters = try call.parameters(VarlinkParameters.UnlockWithTouch.self)
                    let more = call.more
                    reply = VarlinkReply.encode(
                        try await whileAtSeat(peer, for: "UnlockWithTouch") { [self] in
                            try await unlockWithTouch(parameters, peer: peer) { holder in
                                // Only a client that asked for more replies is told.
                                guard more else { return }
                                let waiting = VarlinkParameters.UnlockWithTouchReply(
                                    key: "", finger: "", reader: "", busyWith: holder)
                                _ = emit(VarlinkReply.encode(waiting, continues: true))
                            }
                        })
                case .enrollFinger:
                    guard call.more else { throw VarlinkError(name: "org.varlink.service.ExpectedMore") }
                    let parameters = try call.parameters(VarlinkParameters.EnrollFinger.self)
                    reply = VarlinkReply.encode(
                        try await whileAtSeat(peer, for: "EnrollFinger") { [self] in
                            try await enrollFinger(parameters, peer: peer) { stage in
                                emit(VarlinkReply.encode(VarlinkParameters.EnrollFingerReply(stage: stage), continues: true))
                            }
                        })
                case .forgetFinger:
                    try await forgetFinger(call.parameters(VarlinkParameters.ForgetFinger.self), peer: peer)
                    reply = VarlinkReply.encode(VarlinkParameters.Empty())
                case .importFinger:
                    reply = VarlinkReply.encode(
                        try await importFinger(call.parameters(VarlinkParameters.ImportFinger.self), peer: peer))
                default:
                    throw VarlinkError.methodNotFound(method.qualifiedName)
                }
                logger.info("call", metadata: ["uid": "\(peer.uid)", "pid": "\(peer.pid)", "method": "\(name)"])
                return reply
            } catch is CancellationError {
                logger.info("call cancelled", metadata: ["uid": "\(peer.uid)", "pid": "\(peer.pid)", "method": "\(name)"])
                return nil
            } catch {
                let failure = varlinkError(error)
                logger.info(
                    "call failed",
                    metadata: [
                        "uid": "\(peer.uid)", "pid": "\(peer.pid)", "method": "\(name)", "error": "\(failure.name)",
                    ])
                return VarlinkReply.encode(failure)
            }
        }
    }

    /// `UnlockWithTouch`. Throws `VarlinkError`s, or `CancellationError` when the scan was cancelled.
    /// `waiting` is told when another user's request holds the reader as this one arrives.
    public func unlockWithTouch(
        _ parameters: VarlinkParameters.UnlockWithTouch, peer: PeerCredentials,
        waiting: @escaping @Sendable (ServiceInterface.ReaderHolder) -> Void = { _ in }
    ) async throws -> VarlinkParameters.UnlockWithTouchReply {
        let owner = try VaultOwner(uid: peer.uid, vault: parameters.vault)
        let told = try toldPolicy(owner)
        let policy = told ?? .defaults
        let timeout = try touchTimeout(parameters.timeoutSeconds, told)
        let wanted = try parameters.finger.map { name throws(VarlinkError) in try Self.finger(name) }
        let secret = try registeredSecret(owner)
        let ledger = TouchLedger(try state { try dependencies.attempts(owner) })
        try checkTouchCanUnlock(owner, ledger)
        if parameters.reuse == true, let key = try reusedKey(owner, told) {
            return .init(key: key, finger: "", reader: "", reused: true, policyKnown: told != nil)
        }
        // Only the user at the reader's seat: a touch there is theirs, not a caller's elsewhere.
        try await requireSeat(peer, for: "UnlockWithTouch")
        let count = TouchCount(ledger)
        let scan: (result: ScanResult, prints: [EnrolledPrint], reader: ReaderIdentity, lost: LostPrints?)
        do {
            scan = try await scans.run(for: owner.uid, .scan, waitingAtMost: timeout, waiting: waiting) {
                // The seat may have changed hands while this one waited.
                try await takeReader(peer, for: "UnlockWithTouch")
                // Touches that ran while this one waited may have locked the vault out.
                try checkTouchCanUnlock(owner, ledger)
                // The reader is looked up in turn, never before: the lookup waits for libfprint's
                // thread, which the running scan holds, and would let a later request in first.
                let reader = try await currentReader(timeout: timeout)
                let prints = try touchPrints(owner, secret: secret, reader: reader, policy: policy, wanted: wanted)
                // Counted the moment the reader has a finger, before anyone learns the result: a
                // client killed at a no-match cannot skip it, while a scan that only waited, or
                // timed out without a finger, is not a touch.
                let result = try await reader.match(prints, timeout: timeout) { count.fingerRead() }
                // Whether "not in my storage" was about lost prints: asked while the reader is still ours.
                let lost = result == .notInReaderStorage ? await LostPrints.find(scanned: prints, on: reader) : nil
                return (result, prints, reader.identity, lost)
            }
        } catch {
            // A finger read before the scan failed or was cancelled stays counted, maybe as the
            // last one allowed.
            if let failures = count.made, failures >= TouchLedger.lockoutThreshold { forgetKey(owner) }
            throw error is CancellationError ? error : varlinkError(error, timeout: timeout)
        }
        switch scan.result {
        case .match(let print) where scan.prints.contains(print):
            try state { try ledger.matched() }
            // Locked, expired or forgotten while the finger was on the reader: nothing to release.
            guard let key = try state({ try sessions.keyAfterTouch(name: owner.cacheName) }) else {
                throw Self.passcodeRequired(.locked)
            }
            logger.info("unlocked with a touch", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)"])
            return .init(
                key: key.withUnsafeBytes { Data($0).base64EncodedString() }, finger: print.finger.rawValue,
                reader: scan.reader.description, policyKnown: told != nil)
        case .notInReaderStorage where scan.lost?.noneLeft == true:
            // No finger could have matched a print the reader lost: no failed touch. The user must
            // enroll again, as in user mode; the wire has no value of its own for it yet.
            try state { try count.undo() }
            let sentence = scan.lost?.sentence(on: scan.reader) ?? ""
            logger.notice(
                "touch of a print the reader no longer stores",
                metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)", "reader": "\(scan.reader)"])
            throw VarlinkError(
                .readerUnavailable,
                ["problem": .string(ServiceInterface.ReaderProblem.deviceError.rawValue), "message": .string(sentence)])
        case .match, .noMatch, .notInReaderStorage:
            let failures = try state { try count.failures() }
            if failures >= TouchLedger.lockoutThreshold { forgetKey(owner) }
            logger.notice(
                "touch did not match",
                metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)", "failures": "\(failures)"])
            throw VarlinkError(
                .noMatch,
                ["failedTouches": .int(failures), "touchesLeft": .int(TouchLedger.touchesLeft(after: failures))])
        case .retry(let reason):
            try state { try count.undo() }
            throw VarlinkError(.scanRetry, ["reason": .string(reason.rawValue)])
        }
    }

    /// The prints a touch on `reader` is matched against: the vault's for that reader (and of the
    /// reader's kind the vault accepts), only `wanted` when named, one when the reader cannot identify.
    private func touchPrints(
        _ owner: VaultOwner, secret: SymmetricKey, reader: any FingerprintReader, policy: ServiceVaultPolicy, wanted: Finger?
    ) throws(VarlinkError) -> [EnrolledPrint] {
        try checkReaderKind(reader, policy)
        let enrolled = try state { try dependencies.templates.prints(owner, secret: secret) }
        do {
            return try MatchCandidates(enrolled, reader: reader.identity, canIdentify: reader.info.canIdentify, wanted: wanted)
                .prints
        } catch {
            switch error {
            case .noneEnrolled(let reader):
                throw VarlinkError(.noFingerEnrolled, ["reader": .string(reader.description)])
            case .fingerNotEnrolled(let finger, _):
                throw VarlinkError(.fingerNotEnrolled, ["finger": .string(finger.rawValue)])
            }
        }
    }

    /// `ReleaseWithinReuseWindow`: the key without a scan, or what a touch needs.
    public func releaseWithinReuseWindow(_ parameters: VarlinkParameters.Vault, peer: PeerCredentials)
        throws(VarlinkError) -> VarlinkParameters.ReleaseWithinReuseWindowReply
    {
        let owner = try VaultOwner(uid: peer.uid, vault: parameters.vault)
        let told = try toldPolicy(owner)
        _ = try registeredSecret(owner)
        try checkTouchCanUnlock(owner, TouchLedger(try state { try dependencies.attempts(owner) }))
        if let key = try reusedKey(owner, told) { return .init(key: key) }
        var settings: [String: VarlinkError.Value] = [:]
        if let told { settings = ["maxTries": .int(told.maxTries), "scanTimeoutSeconds": .int(told.scanTimeoutSeconds)] }
        throw VarlinkError(.scanRequired, settings)
    }

    /// Refuses a touch that could release nothing: locked out, or no key held.
    private func checkTouchCanUnlock(_ owner: VaultOwner, _ ledger: TouchLedger) throws(VarlinkError) {
        // The lockout first: it also forgets the key, and is what the user must be told.
        if try state({ try ledger.isLockedOut() }) {
            forgetKey(owner)
            throw Self.passcodeRequired(.lockout)
        }
        // No key held, no scan: the touch could release nothing.
        guard try holdsKey(owner) else { throw Self.passcodeRequired(.locked) }
    }

    func holdsKey(_ owner: VaultOwner) throws(VarlinkError) -> Bool {
        try state { try sessions.key(name: owner.cacheName) } != nil
    }

    func forgetKey(_ owner: VaultOwner) {
        if (try? sessions.forget(name: owner.cacheName)) == true {
            logger.notice("cached key forgotten after failed touches", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)"])
        }
    }

    /// The reader in effect; a missing or unusable one is a `ReaderUnavailable`.
    func currentReader(timeout: Duration) async throws -> any FingerprintReader {
        do {
            return try await dependencies.readers.current()
        } catch {
            throw varlinkError(error, timeout: timeout)
        }
    }

    static func passcodeRequired(_ reason: ServiceInterface.PasscodeRequiredReason) -> VarlinkError {
        VarlinkError(.passcodeRequired, ["reason": .string(reason.rawValue)])
    }

    static func scanTimeout(_ seconds: Int) throws(VarlinkError) -> Duration {
        guard (1...ServiceInterface.maximumScanSeconds).contains(seconds) else { throw .invalidParameter("timeoutSeconds") }
        return .seconds(seconds)
    }

    static func finger(_ name: String) throws(VarlinkError) -> Finger {
        guard name.utf8.count <= 64, let finger = Finger(name: name) else { throw .invalidParameter("finger") }
        return finger
    }

    /// What a client is told about a failure: Varlink errors pass, reader errors say what the reader
    /// did (never a template), anything else is logged and reported as a `ServiceFailure`.
    func varlinkError(_ error: any Error, timeout: Duration? = nil) -> VarlinkError {
        switch error {
        case let error as VarlinkError:
            return error
        case let error as FingerprintError:
            let problem: ServiceInterface.ReaderProblem
            switch error.code {
            case .timedOut:
                return VarlinkError(.scanTimedOut, ["seconds": .int(Int(timeout?.components.seconds ?? 0))])
            case .noReader: problem = .noReader
            case .busy: problem = .busy
            case .unplugged: problem = .unplugged
            case .permissionDenied: problem = .noPermission
            default: problem = .deviceError
            }
            return VarlinkError(
                .readerUnavailable, ["problem": .string(problem.rawValue), "message": .string(error.message)])
        default:
            logger.error("failure", metadata: ["error": "\(error)"])
            return VarlinkError(.serviceFailure, ["reason": .string("the service failed; see its log")])
        }
    }
}
