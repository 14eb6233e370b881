/// The parameters and replies that move a vault's templates between user mode and the service
/// (ImportFinger for `system enable`, ExportFinger for `system disable`).
extension VarlinkParameters {
    /// One enrolled finger with its template (base64), as it moves in or out of the service.
    public struct FingerTemplate: Codable, Sendable, Equatable {
        public var finger: String
        public var reader: String
        public var template: String
        public var enrolled: Int
        public init(finger: String, reader: String, template: String, enrolled: Int) {
            self.finger = finger
            self.reader = reader
            self.template = template
            self.enrolled = enrolled
        }
    }

    public struct ImportFinger: Codable, Sendable, Equatable {
        public var vault: String
        public var stretched: String
        public var sealedSlot: String
        public var associatedData: String
        public var print: FingerTemplate
        public init(proof: PasscodeProof, print: FingerTemplate) {
            self.vault = proof.vault
            self.stretched = proof.stretched
            self.sealedSlot = proof.sealedSlot
            self.associatedData = proof.associatedData
            self.print = print
        }

        public var proof: PasscodeProof {
            PasscodeProof(vault: vault, stretched: stretched, sealedSlot: sealedSlot, associatedData: associatedData)
        }
    }

    public struct ImportFingerReply: Codable, Sendable, Equatable {
        public var enrolled: EnrolledFinger
        public init(enrolled: EnrolledFinger) { self.enrolled = enrolled }
    }

    /// The same proof and finger as ForgetFinger.
    public typealias ExportFinger = ForgetFinger

    public struct ExportFingerReply: Codable, Sendable, Equatable {
        public var print: FingerTemplate
        public init(print: FingerTemplate) { self.print = print }
    }
}
