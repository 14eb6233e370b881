import AuthCore
import Crypto
public import FingerlockProtocol
import FoundationEssentials
import Logging
import Synchronization
import TrustedPlatform

extension ServiceCore {
    public func registerVault(_ parameters: VarlinkParameters.Vault, peer: PeerCredentials) throws(VarlinkError)
        -> VarlinkParameters.RegisterVaultReply
    {
        let owner = try VaultOwner(uid: peer.uid, vault: parameters.vault)
        let created = try state { try dependencies.secrets.register(owner) }
        if created { logger.info("vault registered", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)"]) }
        return .init(created: created)
    }

    public func sealPasscodeSlot(_ parameters: VarlinkParameters.SealPasscodeSlot, peer: PeerCredentials)
        throws(VarlinkError) -> VarlinkParameters.SealPasscodeSlotReply
    {
        let owner = try VaultOwner(uid: peer.uid, vault: parameters.vault)
        let stretched = try Self.key(parameters.stretched, "stretched")
        let key = try Self.key(parameters.key, "key")
        let associatedData = try Self.bytes(parameters.associatedData, "associatedData", limit: 4096)
        let currentKey = try parameters.currentKey.map { (text) throws(VarlinkError) in try Self.key(text, "currentKey") }
        let secret = try registeredSecret(owner)
        let existing = try state { try dependencies.secrets.binding(owner) }
        if let existing, !existing.authorizes(currentKey ?? key, secret: secret) {
            logger.notice("seal refused: not the vault's key", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)"])
            throw VarlinkError(.keyRequired)
        }
        let sealed: Data
        if let tpm = parameters.tpm {
            guard let vault = UUID(uuidString: owner.vault) else { throw .invalidParameter("vault") }
            do {
                sealed = try TPMBoundSlot.seal(
                    stretched: stretched, vault: vault, binding: TPMBinding(pcr7: tpm.pcr7), tpm: dependencies.tpm
                ) { slotKey in
                    let kek = SystemPasscodeSlot.keyEncryptionKey(stretched: slotKey, secret: secret, vault: owner.vault)
                    return try SystemPasscodeSlot.seal(key, with: kek, authenticating: associatedData)
                }
            } catch let error as TPMError {
                throw Self.tpmRefused(error)
            } catch {
                throw try state { throw error }
            }
        } else {
            let kek = SystemPasscodeSlot.keyEncryptionKey(stretched: stretched, secret: secret, vault: owner.vault)
            sealed = try state { try SystemPasscodeSlot.seal(key, with: kek, authenticating: associatedData) }
        }
        let binding =
            existing?.resealed(sealed, associatedData: associatedData, key: key, secret: secret)
            ?? SlotBinding.first(sealed, associatedData: associatedData, key: key, secret: secret)
        try state { try dependencies.secrets.setBinding(binding, for: owner) }
        return .init(sealedSlot: sealed.base64EncodedString())
    }

    public func unlockWithPasscode(_ parameters: VarlinkParameters.UnlockWithPasscode, peer: PeerCredentials)
        throws(VarlinkError) -> VarlinkParameters.UnlockWithPasscodeReply
    {
        guard (0...ServiceInterface.maximumCacheSeconds).contains(parameters.cacheSeconds) else {
            throw .invalidParameter("cacheSeconds")
        }
        let (owner, key) = try checkPasscode(parameters.proof, peer: peer)
        let cached = try cacheAfterPasscode(key, owner, requested: parameters.cacheSeconds)
        logger.info("unlocked with the passcode", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)"])
        let change = acceptFprintdChanges(owner, secret: try registeredSecret(owner))
        return .init(key: key.withUnsafeBytes { Data($0).base64EncodedString() }, cachedSeconds: cached, fprintdChange: change)
    }

    public func lock(_ parameters: VarlinkParameters.Lock, peer: PeerCredentials) throws(VarlinkError)
        -> VarlinkParameters.LockReply
    {
        guard let vault = parameters.vault else {
            // Every vault of the caller's (and of nobody else: the names start with the uid).
            let prefix = VaultOwner.cacheNamePrefix(uid: peer.uid)
            let forgotten = try state { try sessions.forgetAll(withPrefix: prefix) }
            return .init(wasUnlocked: forgotten > 0)
        }
        let owner = try VaultOwner(uid: peer.uid, vault: vault)
        let was = try state { try sessions.forget(name: owner.cacheName) }
        return .init(wasUnlocked: was)
    }

    public func status(_ parameters: VarlinkParameters.Vault, peer: PeerCredentials) throws(VarlinkError)
        -> VarlinkParameters.StatusReply
    {
        let owner = try VaultOwner(uid: peer.uid, vault: parameters.vault)
        guard try state({ try dependencies.secrets.contains(owner) }) else {
            return .init(
                status: .init(
                    registered: false, unlocked: false, unlockedSeconds: 0, failedPasscodes: 0, delaySeconds: 0))
        }
        let attempts = try state { try dependencies.attempts(owner).read() }
        let delay = PasscodeDelays.remaining(in: attempts, now: dependencies.now())?.components.seconds ?? 0
        let told = try toldPolicy(owner)
        let lockedOut = TouchLedger.isLockedOut(attempts)
        let window = (told ?? .defaults).reuseWindowSeconds
        let held = sessions.state(name: owner.cacheName, window: .seconds(window))
        let unlocked = held.keyLeft != nil
        let seconds = Int(held.keyLeft?.components.seconds ?? 0)
        let reuseLeft = lockedOut ? nil : held.reuseLeft
        return .init(
            status: .init(
                registered: true, unlocked: unlocked, unlockedSeconds: seconds,
                failedPasscodes: attempts.failedPasscodes, delaySeconds: Int(delay),
                failedTouches: attempts.failedTouches, touchLockedOut: lockedOut, policy: told?.wire,
                reuseSeconds: window > 0 ? Int(reuseLeft?.components.seconds ?? 0) : nil))
    }

    public func forgetVault(_ parameters: VarlinkParameters.PasscodeProof, peer: PeerCredentials) throws(VarlinkError) {
        let (owner, _) = try checkPasscode(parameters, peer: peer)
        _ = try? sessions.forget(name: owner.cacheName)
        try state { try dependencies.secrets.forget(owner) }
        logger.notice("vault forgotten", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)"])
    }

    /// Expiry is enforced on every read; this also drops (and so zeroes) a key nobody asks for again.
    /// One timer per cached vault at most (`keep` says when one must start: a user unlocking in a
    /// loop cannot pile up tasks), asleep until the entry's expiry rather than a periodic sweep, so an
    /// idle service never wakes up.
    func forgetWhenExpired(_ owner: VaultOwner) {
        let name = owner.cacheName
        Task.detached { [sessions] in
            while true {
                if let left = sessions.remainingLifetime(name: name) {
                    try? await Task.sleep(for: left + .seconds(1))
                    continue
                }
                // No lifetime left may mean expired but still held (a timer that starts late finds
                // it so): `expire` drops it, and ends the timer unless a key was kept again meanwhile.
                if sessions.expire(name: name) { return }
            }
        }
    }

    /// The passcode check shared by unlock and forget: the attempt is counted (durably) before the
    /// slot is tried and refused at once while a delay runs; a success clears the counters.
    func checkPasscode(_ proof: VarlinkParameters.PasscodeProof, peer: PeerCredentials)
        throws(VarlinkError) -> (VaultOwner, SymmetricKey)
    {
        let owner = try VaultOwner(uid: peer.uid, vault: proof.vault)
        let stretched = try Self.key(proof.stretched, "stretched")
        let sealed = try Self.bytes(proof.sealedSlot, "sealedSlot", limit: 1024)
        let associatedData = try Self.bytes(proof.associatedData, "associatedData", limit: 4096)
        let secret = try registeredSecret(owner)
        // Read before the attempt is counted: a state that cannot be read judges no passcode.
        let binding = try state { try dependencies.secrets.binding(owner) }
        let ledger = PasscodeLedger(try state { try dependencies.attempts(owner) }, now: dependencies.now)
        // A delay still running is refused here, as a `PasscodeDelayed` (see `state`).
        let attempt = try state { try ledger.checkDelayAndCount() }
        // In flight until judged: released early, a request beside this one would take it for wrong.
        defer { withExtendedLifetime(attempt) {} }
        // Only a slot the binding names is a proof (the one sealed last, or while that one is not yet
        // seen in use the one before it): a slot sealed for a passcode of someone's choosing, or an
        // old copy from before a passcode change, is a wrong passcode (and counted as one).
        let proven = binding?.proves(sealed, associatedData: associatedData, secret: secret)
        // A slot bound to the TPM: the TPM releases its secret for the right passcode only, counting
        // a wrong one itself (after this service counted it, never when one more failure would lock
        // the TPM, and only within the caller's share of the TPM's failures: see `boundSlotKey`).
        // A refusal that judged nothing does not count here either.
        var inner = sealed
        var slotKey = stretched
        if proven != nil, TPMBoundSlot.isBound(sealed) {
            do {
                let bound = try TPMBoundSlot(decoding: sealed)
                guard let vault = UUID(uuidString: owner.vault) else { throw VarlinkError.invalidParameter("vault") }
                slotKey = try boundSlotKey(bound, stretched: stretched, vault: vault, owner: owner)
                inner = bound.inner
            } catch let error as TPMError where error.code == .authorizationFailed {
                // The TPM counted a wrong passcode: a wrong passcode here too (below).
                slotKey = SymmetricKey(size: .bits256)
            } catch let error as TPMError {
                ledger.notJudged(attempt)
                logger.notice("TPM refused", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)", "why": "\(error.message)"])
                throw Self.tpmRefused(error)
            } catch let refusal as TPMShareRefusal {
                ledger.notJudged(attempt)
                logger.notice(
                    "TPM not asked: the caller's share of its failures, or the callers' part, is spent",
                    metadata: [
                        "uid": "\(owner.uid)", "vault": "\(owner.vault)", "reason": "\(refusal.reason)",
                        "standing": "\(refusal.standing)",
                        "secondsLeft": "\(refusal.secondsLeft.map(String.init) ?? "never")",
                    ])
                throw Self.shareRefused(refusal)
            } catch let error as VarlinkError {
                throw error
            } catch {
                // The ledger of TPM failures could not be used: nothing was asked, nothing judged.
                ledger.notJudged(attempt)
                throw try state { throw error }
            }
        }
        let kek = SystemPasscodeSlot.keyEncryptionKey(stretched: slotKey, secret: secret, vault: owner.vault)
        guard let proven, let binding, let key = SystemPasscodeSlot.open(inner, with: kek, authenticating: associatedData)
        else {
            let failures = attempt.failures
            logger.notice(
                "wrong passcode",
                metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)", "failures": "\(failures)"])
            throw VarlinkError(
                .wrongPasscode,
                ["failedPasscodes": .int(failures), "delaySeconds": .int(Int(attempt.delayIfWrong.components.seconds))])
        }
        try state { try ledger.succeeded() }
        // The slot sealed last was proven, so the vault holds it (the transaction that sealed it
        // committed): the slot and key before it prove and seal nothing more.
        if proven == .sealedLast, let inUse = binding.provenInUse {
            try state { try dependencies.secrets.setBinding(inUse, for: owner) }
            logger.info("the slot sealed last is in use", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)"])
        }
        return (owner, key)
    }

    func registeredSecret(_ owner: VaultOwner) throws(VarlinkError) -> SymmetricKey {
        guard let secret = try state({ try dependencies.secrets.secret(owner) }) else {
            throw VarlinkError(.vaultNotRegistered, ["vault": .string(owner.vault)])
        }
        return secret
    }

    /// Runs a state operation; Varlink errors pass, anything else is logged in full and reported
    /// to the client as a `ServiceFailure` without paths or details.
    func state<T>(_ body: () throws -> T) throws(VarlinkError) -> T {
        do {
            return try body()
        } catch let error as VarlinkError {
            throw error
        } catch let delay as PasscodeDelay {
            throw VarlinkError(
                .passcodeDelayed,
                ["secondsLeft": .int(Int(delay.left.components.seconds)), "failedPasscodes": .int(delay.failures)])
        } catch let busy as PasscodesStillInFlight {
            // Requests beside this one that did not end in time (here each is judged within
            // milliseconds of being counted): to the client, a delay of a second.
            throw VarlinkError(.passcodeDelayed, ["secondsLeft": .int(1), "failedPasscodes": .int(busy.failures)])
        } catch let error as ServiceStateError {
            if case .tooManyVaults(let limit) = error.code {
                throw VarlinkError(.tooManyVaults, ["limit": .int(limit)])
            }
            logger.error("state failure", metadata: ["error": "\(error)"])
            throw VarlinkError(.serviceFailure, ["reason": .string("the service cannot use its state; see its log")])
        } catch {
            logger.error("state failure", metadata: ["error": "\(error)"])
            throw VarlinkError(.serviceFailure, ["reason": .string("the service cannot use its state; see its log")])
        }
    }

    static func bytes(_ base64: String, _ name: String, limit: Int) throws(VarlinkError) -> Data {
        guard base64.utf8.count <= (limit / 3 + 1) * 4, let data = Data(base64Encoded: base64), data.count <= limit
        else {
            throw .invalidParameter(name)
        }
        return data
    }

    static func key(_ base64: String, _ name: String) throws(VarlinkError) -> SymmetricKey {
        var data = try bytes(base64, name, limit: SystemPasscodeSlot.keySize)
        defer { Zeroing.zero(&data) }
        guard data.count == SystemPasscodeSlot.keySize else { throw .invalidParameter(name) }
        return SymmetricKey(data: data)
    }
}

extension ServiceCore {
    /// The TPM's refusal as the interface says it (never a secret: the TSS's text and counts).
    static func tpmRefused(_ error: TPMError) -> VarlinkError {
        let (problem, seconds): (String, Int) =
            switch error.code {
            case .authorizationFailed: ("failed", 0)
            case .lockout(let seconds): ("lockout", seconds)
            case .nearLockout(let seconds): ("nearLockout", seconds)
            case .unreachable: ("unreachable", 0)
            case .foreignObject: ("foreignObject", 0)
            case .policyMismatch: ("policyMismatch", 0)
            case .malformed: ("malformed", 0)
            case .busy: ("busy", 0)
            case .failed: ("failed", 0)
            }
        return VarlinkError(
            .tpmRefused, ["problem": .string(problem), "message": .string(error.message), "secondsLeft": .int(seconds)])
    }
}
