/// The parameters and replies of the fingerprint methods (UnlockWithTouch, EnrollFinger,
/// ListFingers, ForgetFinger).
extension VarlinkParameters {
    public struct UnlockWithTouch: Codable, Sendable, Equatable {
        public var vault: String
        public var finger: String?
        public var timeoutSeconds: Int
        /// Whether an unlock within the vault's reuse window may be released without a scan.
        public var reuse: Bool?
        public init(vault: String, finger: String? = nil, timeoutSeconds: Int, reuse: Bool? = nil) {
            self.vault = vault
            self.finger = finger
            self.timeoutSeconds = timeoutSeconds
            self.reuse = reuse
        }
    }

    public struct UnlockWithTouchReply: Codable, Sendable, Equatable {
        public var key: String
        public var finger: String
        public var reader: String
        /// Released within the reuse window, without a scan (`finger` and `reader` are then empty).
        public var reused: Bool?
        /// Whether the vault's owner told the service its settings (SetVaultPolicy): false asks the
        /// client, which holds the key now, to tell them.
        public var policyKnown: Bool?
        /// A reply that continues (the call was made with "more"): another user's request holds the
        /// reader, and this touch waits its turn; `key`, `finger` and `reader` are empty.
        public var busyWith: ServiceInterface.ReaderHolder?
        public init(
            key: String, finger: String, reader: String, reused: Bool? = nil, policyKnown: Bool? = nil,
            busyWith: ServiceInterface.ReaderHolder? = nil
        ) {
            self.key = key
            self.finger = finger
            self.reader = reader
            self.reused = reused
            self.policyKnown = policyKnown
            self.busyWith = busyWith
        }
    }

    public struct ReleaseWithinReuseWindowReply: Codable, Sendable, Equatable {
        public var key: String
        public init(key: String) { self.key = key }
    }

    public struct EnrolledFinger: Codable, Sendable, Equatable {
        public var finger: String
        public var reader: String
        public var enrolled: Int
        public init(finger: String, reader: String, enrolled: Int) {
            self.finger = finger
            self.reader = reader
            self.enrolled = enrolled
        }
    }

    public struct EnrollFinger: Codable, Sendable, Equatable {
        public var vault: String
        public var stretched: String
        public var sealedSlot: String
        public var associatedData: String
        public var finger: String
        public var timeoutSeconds: Int
        public init(proof: PasscodeProof, finger: String, timeoutSeconds: Int) {
            self.vault = proof.vault
            self.stretched = proof.stretched
            self.sealedSlot = proof.sealedSlot
            self.associatedData = proof.associatedData
            self.finger = finger
            self.timeoutSeconds = timeoutSeconds
        }

        public var proof: PasscodeProof {
            PasscodeProof(vault: vault, stretched: stretched, sealedSlot: sealedSlot, associatedData: associatedData)
        }
    }

    public struct EnrollStage: Codable, Sendable, Equatable {
        /// An event the client does not know fails the reply's decoding: a protocol error.
        public var event: ServiceInterface.EnrollStageEvent
        public var completed: Int
        public var total: Int
        public var retry: String
        /// With `waiting`: what the other user's request that holds the reader does.
        public var busyWith: ServiceInterface.ReaderHolder?
        public init(
            event: ServiceInterface.EnrollStageEvent, completed: Int, total: Int, retry: String,
            busyWith: ServiceInterface.ReaderHolder? = nil
        ) {
            self.event = event
            self.completed = completed
            self.total = total
            self.retry = retry
            self.busyWith = busyWith
        }
    }

    public struct EnrollFingerReply: Codable, Sendable, Equatable {
        public var stage: EnrollStage?
        public var enrolled: EnrolledFinger?
        public init(stage: EnrollStage? = nil, enrolled: EnrolledFinger? = nil) {
            self.stage = stage
            self.enrolled = enrolled
        }
    }

    public struct ListFingersReply: Codable, Sendable, Equatable {
        public var fingers: [EnrolledFinger]
        public init(fingers: [EnrolledFinger]) { self.fingers = fingers }
    }

    public struct ForgetFinger: Codable, Sendable, Equatable {
        public var vault: String
        public var stretched: String
        public var sealedSlot: String
        public var associatedData: String
        public var finger: String
        public init(proof: PasscodeProof, finger: String) {
            self.vault = proof.vault
            self.stretched = proof.stretched
            self.sealedSlot = proof.sealedSlot
            self.associatedData = proof.associatedData
            self.finger = finger
        }

        public var proof: PasscodeProof {
            PasscodeProof(vault: vault, stretched: stretched, sealedSlot: sealedSlot, associatedData: associatedData)
        }
    }
}

extension VarlinkParameters {
}

/// `UseFprintdFingers`: a vault's fingers taken from fprintd, or its own again.
extension VarlinkParameters {
    public struct UseFprintdFingers: Codable, Sendable, Equatable {
        public var vault: String
        public var stretched: String
        public var sealedSlot: String
        public var associatedData: String
        public var use: Bool
        public init(proof: PasscodeProof, use: Bool) {
            self.vault = proof.vault
            self.stretched = proof.stretched
            self.sealedSlot = proof.sealedSlot
            self.associatedData = proof.associatedData
            self.use = use
        }

        public var proof: PasscodeProof {
            PasscodeProof(vault: vault, stretched: stretched, sealedSlot: sealedSlot, associatedData: associatedData)
        }
    }

    public struct UseFprintdFingersReply: Codable, Sendable, Equatable {
        /// Whether the vault takes (with `use`: now takes; without: took) fprintd's fingers.
        public var used: Bool
        /// fprintd's reader, by its name.
        public var device: String
        public var fingers: [String]
        public init(used: Bool, device: String, fingers: [String]) {
            self.used = used
            self.device = device
            self.fingers = fingers
        }
    }
}
