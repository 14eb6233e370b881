import AuthCore
import Crypto
public import FingerlockProtocol
import Fingerprint
import FoundationEssentials
import Logging
import Synchronization

/// The vault's own settings, applied by the service: the owner tells them (SetVaultPolicy) with the
/// vault's key as proof, since they are sealed in the vault; until then the design's defaults apply.
extension ServiceCore {
    public func setVaultPolicy(_ parameters: VarlinkParameters.SetVaultPolicy, peer: PeerCredentials)
        throws(VarlinkError) -> VarlinkParameters.SetVaultPolicyReply
    {
        let owner = try VaultOwner(uid: peer.uid, vault: parameters.vault)
        let policy = try ServiceVaultPolicy(parameters.policy)
        let carried = ServiceInterface.maximumCarriedCount
        if let touches = parameters.failedTouches, !(0...carried).contains(touches) {
            throw .invalidParameter("failedTouches")
        }
        if let passcodes = parameters.failedPasscodes, !(0...carried).contains(passcodes) {
            throw .invalidParameter("failedPasscodes")
        }
        let key = try Self.key(parameters.key, "key")
        let secret = try registeredSecret(owner)
        // The key of the slot sealed last is the proof of an open vault (never the one before a
        // rekey: an old backup's key must not loosen the settings); before any slot there is no
        // vault key here to compare with.
        guard let binding = try state({ try dependencies.secrets.binding(owner) }), binding.isCurrent(key, secret: secret)
        else {
            logger.notice("policy refused: not the vault's key", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)"])
            throw VarlinkError(.keyRequired)
        }
        try confirmKeyInUse(binding, owner)
        try state { try dependencies.secrets.setPolicy(policy, for: owner) }
        if parameters.failedTouches != nil || parameters.failedPasscodes != nil {
            try raiseCounters(owner, touches: parameters.failedTouches ?? 0, passcodes: parameters.failedPasscodes ?? 0)
        }
        let left = try limitCachedKey(owner, to: .seconds(policy.cacheExpirySeconds))
        logger.info("policy set", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)"])
        return .init(cachedSeconds: Int(left.components.seconds))
    }

    /// The vault's key was seen in use (a rekey committed): the key before it seals nothing more.
    func confirmKeyInUse(_ binding: SlotBinding, _ owner: VaultOwner) throws(VarlinkError) {
        guard let confirmed = binding.confirmed else { return }
        try state { try dependencies.secrets.setBinding(confirmed, for: owner) }
        logger.info("the key before the rekey is retired", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)"])
    }

    /// The vault's policy: as its owner set it, else the defaults.
    func policy(_ owner: VaultOwner) throws(VarlinkError) -> ServiceVaultPolicy {
        try toldPolicy(owner) ?? .defaults
    }

    /// The vault's policy as its owner set it (nil: never told). Read once per request: a scan's
    /// timeout, reader kind and reuse window all come from the one reading.
    func toldPolicy(_ owner: VaultOwner) throws(VarlinkError) -> ServiceVaultPolicy? {
        try state { try dependencies.secrets.policy(owner) }
    }

    /// Counts kept elsewhere only ever raise the service's: a client cannot wipe a count with them.
    private func raiseCounters(_ owner: VaultOwner, touches: Int, passcodes: Int) throws(VarlinkError) {
        let attempts = try state { try dependencies.attempts(owner) }
        try state { try PasscodeLedger(attempts, now: dependencies.now).raise(to: passcodes) }
        if try state({ try TouchLedger(attempts).raise(to: touches) }) { forgetKey(owner) }
    }

    /// Caches the key a passcode proof released, for the vault's cache-expiry (or `requested` when
    /// shorter; 0 keeps nothing), and starts the reuse window. Returns the seconds it is kept.
    func cacheAfterPasscode(_ key: SymmetricKey, _ owner: VaultOwner, requested: Int) throws(VarlinkError) -> Int {
        let seconds = min(requested, try policy(owner).cacheExpirySeconds)
        guard seconds > 0 else {
            _ = try? sessions.forget(name: owner.cacheName)
            return 0
        }
        if try state({ try sessions.keep(key, name: owner.cacheName, lifetime: .seconds(seconds)) }) {
            forgetWhenExpired(owner)
        }
        return seconds
    }

    /// Shortens the life of the vault's cached key to at most `limit` (never lengthens it); returns
    /// what is left.
    func limitCachedKey(_ owner: VaultOwner, to limit: Duration) throws(VarlinkError) -> Duration {
        try state { try sessions.limitLifetime(name: owner.cacheName, to: limit) }
    }

    /// The scan timeout of one touch: the vault's own once its owner set it (`told`), else the caller's.
    func touchTimeout(_ requested: Int, _ told: ServiceVaultPolicy?) throws(VarlinkError) -> Duration {
        let asked = try Self.scanTimeout(requested)
        guard let told else { return asked }
        return .seconds(told.scanTimeoutSeconds)
    }

    /// A reader of the wrong kind for the vault never scans for it.
    func checkReaderKind(_ reader: ReaderIdentity, _ policy: ServiceVaultPolicy) throws(VarlinkError) {
        if let kind = policy.kind, !kind.accepts(reader) { throw Self.wrongReaderKind(reader, kind) }
    }

    static func wrongReaderKind(_ reader: ReaderIdentity, _ kind: ReaderKind) -> VarlinkError {
        VarlinkError(.wrongReaderKind, ["reader": .string(reader.description), "kind": .string(kind.rawValue)])
    }

    /// The key (base64) released without a scan, within the reuse window (nil: a touch is needed).
    func reusedKey(_ owner: VaultOwner, _ told: ServiceVaultPolicy?) throws(VarlinkError) -> String? {
        let policy = told ?? .defaults
        guard
            let key = try state({
                try sessions.keyWithinReuseWindow(name: owner.cacheName, window: .seconds(policy.reuseWindowSeconds))
            })
        else { return nil }
        logger.info("unlocked within the reuse window", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)"])
        return key.withUnsafeBytes { Data($0).base64EncodedString() }
    }
}
