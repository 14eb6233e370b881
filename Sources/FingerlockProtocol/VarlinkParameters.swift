/// The parameters and replies of every method, as Codable values. Binary values travel as base64
/// strings; the service decodes and checks them (length, UUID form).
public enum VarlinkParameters {
    /// `{}`: for methods that take or return nothing.
    public struct Empty: Codable, Sendable, Equatable {
        public init() {}
    }

    public struct Vault: Codable, Sendable, Equatable {
        public var vault: String
        public init(vault: String) { self.vault = vault }
    }

    public struct RegisterVaultReply: Codable, Sendable, Equatable {
        public var created: Bool
        public init(created: Bool) { self.created = created }
    }

    public struct SealPasscodeSlot: Codable, Sendable, Equatable {
        public var vault: String
        public var stretched: String
        public var key: String
        public var associatedData: String
        /// The vault's key now, when `key` is a new one (rekey); nil when `key` is the current key.
        public var currentKey: String?
        /// Bind the slot to the service's TPM (nil: do not).
        public var tpm: TPMBinding?
        public init(
            vault: String, stretched: String, key: String, associatedData: String, currentKey: String? = nil,
            tpm: TPMBinding? = nil
        ) {
            self.vault = vault
            self.stretched = stretched
            self.key = key
            self.associatedData = associatedData
            self.currentKey = currentKey
            self.tpm = tpm
        }
    }

    /// How a slot is bound to the service's TPM: always to the TPM; `pcr7`, also to PCR 7.
    public struct TPMBinding: Codable, Sendable, Equatable {
        public var pcr7: Bool
        public init(pcr7: Bool) { self.pcr7 = pcr7 }
    }

    public struct SealPasscodeSlotReply: Codable, Sendable, Equatable {
        public var sealedSlot: String
        public init(sealedSlot: String) { self.sealedSlot = sealedSlot }
    }

    /// The passcode proof: the client's scrypt output, the sealed slot and its associated data.
    public struct PasscodeProof: Codable, Sendable, Equatable {
        public var vault: String
        public var stretched: String
        public var sealedSlot: String
        public var associatedData: String
        public init(vault: String, stretched: String, sealedSlot: String, associatedData: String) {
            self.vault = vault
            self.stretched = stretched
            self.sealedSlot = sealedSlot
            self.associatedData = associatedData
        }
    }

    public struct UnlockWithPasscode: Codable, Sendable, Equatable {
        public var vault: String
        public var stretched: String
        public var sealedSlot: String
        public var associatedData: String
        public var cacheSeconds: Int
        public init(vault: String, stretched: String, sealedSlot: String, associatedData: String, cacheSeconds: Int) {
            self.vault = vault
            self.stretched = stretched
            self.sealedSlot = sealedSlot
            self.associatedData = associatedData
            self.cacheSeconds = cacheSeconds
        }

        public var proof: PasscodeProof {
            PasscodeProof(vault: vault, stretched: stretched, sealedSlot: sealedSlot, associatedData: associatedData)
        }
    }

    public struct UnlockWithPasscodeReply: Codable, Sendable, Equatable {
        public var key: String
        public var cachedSeconds: Int
        /// What changed in fprintd's fingers, now accepted (a vault that takes fprintd's fingers).
        public var fprintdChange: String?
        public init(key: String, cachedSeconds: Int, fprintdChange: String? = nil) {
            self.key = key
            self.cachedSeconds = cachedSeconds
            self.fprintdChange = fprintdChange
        }
    }

    /// `Lock`: one vault, or (nil) every vault of the caller's.
    public struct Lock: Codable, Sendable, Equatable {
        public var vault: String?
        public init(vault: String?) { self.vault = vault }
    }

    public struct LockReply: Codable, Sendable, Equatable {
        public var wasUnlocked: Bool
        public init(wasUnlocked: Bool) { self.wasUnlocked = wasUnlocked }
    }

    public struct VaultStatus: Codable, Sendable, Equatable {
        public var registered: Bool
        public var unlocked: Bool
        public var unlockedSeconds: Int
        public var failedPasscodes: Int
        public var delaySeconds: Int
        public var failedTouches: Int
        public var touchLockedOut: Bool
        /// The policy the vault's owner told the service (nil: never told; the defaults apply).
        public var policy: VaultPolicy?
        /// Seconds left of the reuse window (0: a touch needs a scan; nil: the vault has none).
        public var reuseSeconds: Int?
        public init(
            registered: Bool, unlocked: Bool, unlockedSeconds: Int, failedPasscodes: Int, delaySeconds: Int,
            failedTouches: Int = 0, touchLockedOut: Bool = false, policy: VaultPolicy? = nil, reuseSeconds: Int? = nil
        ) {
            self.registered = registered
            self.unlocked = unlocked
            self.unlockedSeconds = unlockedSeconds
            self.failedPasscodes = failedPasscodes
            self.delaySeconds = delaySeconds
            self.failedTouches = failedTouches
            self.touchLockedOut = touchLockedOut
            self.policy = policy
            self.reuseSeconds = reuseSeconds
        }
    }

    public struct StatusReply: Codable, Sendable, Equatable {
        public var status: VaultStatus
        public init(status: VaultStatus) { self.status = status }
    }

    // org.varlink.service
    public struct Interface: Codable, Sendable, Equatable {
        public var interface: String
        public init(interface: String) { self.interface = interface }
    }

    public struct InterfaceDescription: Codable, Sendable, Equatable {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public struct Info: Codable, Sendable, Equatable {
        public var vendor: String
        public var product: String
        public var version: String
        public var url: String
        public var interfaces: [String]
        public init(vendor: String, product: String, version: String, url: String, interfaces: [String]) {
            self.vendor = vendor
            self.product = product
            self.version = version
            self.url = url
            self.interfaces = interfaces
        }
    }
}
