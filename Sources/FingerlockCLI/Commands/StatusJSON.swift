import Auth
import Fingerprint
import Vault

/// The `status --json` object. Every key is always there (null when unknown or not running), so
/// scripts can rely on the shape.
struct StatusJSON: Encodable {
    struct Finger: Encodable {
        var reader: String
        var finger: String
    }

    var setUp: Bool
    var unlocked: Bool
    var keyExpiresInSeconds: Int64?
    var reuseWindowSecondsLeft: Int64?
    var failedTouches: Int
    var lockedOut: Bool
    var failedPasscodes: Int
    var passcodeDelaySecondsLeft: Int64?
    var fingers: [Finger]?
    var kind: String?
    var mode: String
    var keyCacheUnavailable: String?
    /// Which fingerlock answered: scripts that log the object can tell versions apart.
    var version = FingerlockVersion.current
    /// System mode: fingerlockd's view (null in user mode).
    var service: Service?
    /// The passcode's binding to the TPM and, when bound, the TPM's lockout state.
    var tpm: TPMStatusJSON

    /// Every key always there; null where the service could not be asked.
    struct Service: Encodable {
        var socket: String
        var reachable: Bool
        var problem: String?
        var registered: Bool?
        var unlocked: Bool?
        var unlockedSecondsLeft: Int?
        var failedPasscodes: Int?
        var delaySecondsLeft: Int?

        init(_ service: VaultStatus.Service, socket: String) {
            self.socket = socket
            switch service {
            case .unreachable(let why):
                reachable = false
                problem = why
            case .answered(let known):
                reachable = true
                registered = known.registered
                unlocked = known.unlocked
                unlockedSecondsLeft = known.unlockedSeconds
                failedPasscodes = known.failedPasscodes
                delaySecondsLeft = known.delaySeconds
            }
        }

        enum CodingKeys: String, CodingKey {
            case socket, reachable, problem, registered, unlocked, unlockedSecondsLeft, failedPasscodes, delaySecondsLeft
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(socket, forKey: .socket)
            try container.encode(reachable, forKey: .reachable)
            try container.encode(problem, forKey: .problem)
            try container.encode(registered, forKey: .registered)
            try container.encode(unlocked, forKey: .unlocked)
            try container.encode(unlockedSecondsLeft, forKey: .unlockedSecondsLeft)
            try container.encode(failedPasscodes, forKey: .failedPasscodes)
            try container.encode(delaySecondsLeft, forKey: .delaySecondsLeft)
        }
    }

    init(_ status: VaultStatus, socket: String, tpm: TPMBindingManagement.Report) {
        self.tpm = TPMStatusJSON(tpm)
        setUp = status.setUp
        unlocked = status.unlocked
        keyExpiresInSeconds = status.keyExpiresIn?.components.seconds
        reuseWindowSecondsLeft = status.reuseWindowLeft?.components.seconds
        failedTouches = status.failedTouches
        lockedOut = status.lockedOut
        failedPasscodes = status.failedPasscodes
        passcodeDelaySecondsLeft = status.passcodeDelayLeft?.components.seconds
        fingers = status.enrolledFingers?.map { Finger(reader: $0.reader.description, finger: $0.finger.rawValue) }
        kind = status.kind?.rawValue
        mode = status.mode
        keyCacheUnavailable = status.keyCacheUnavailable
        service = status.service.map { Service($0, socket: socket) }
    }

    enum CodingKeys: String, CodingKey {
        case setUp, unlocked, keyExpiresInSeconds, reuseWindowSecondsLeft, failedTouches, lockedOut, failedPasscodes
        case passcodeDelaySecondsLeft, fingers, kind, mode, keyCacheUnavailable, version, service, tpm
    }

    /// Writes nulls too: a synthesized encoder would leave the key out.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(setUp, forKey: .setUp)
        try container.encode(unlocked, forKey: .unlocked)
        try container.encode(keyExpiresInSeconds, forKey: .keyExpiresInSeconds)
        try container.encode(reuseWindowSecondsLeft, forKey: .reuseWindowSecondsLeft)
        try container.encode(failedTouches, forKey: .failedTouches)
        try container.encode(lockedOut, forKey: .lockedOut)
        try container.encode(failedPasscodes, forKey: .failedPasscodes)
        try container.encode(passcodeDelaySecondsLeft, forKey: .passcodeDelaySecondsLeft)
        try container.encode(fingers, forKey: .fingers)
        try container.encode(kind, forKey: .kind)
        try container.encode(mode, forKey: .mode)
        try container.encode(keyCacheUnavailable, forKey: .keyCacheUnavailable)
        try container.encode(version, forKey: .version)
        try container.encode(service, forKey: .service)
        try container.encode(tpm, forKey: .tpm)
    }
}
