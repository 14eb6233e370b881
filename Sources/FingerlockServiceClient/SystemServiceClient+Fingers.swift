public import Auth
public import AuthCore
import FingerlockProtocol
public import Fingerprint
public import Foundation
public import Vault

/// The fingers fingerlockd keeps for a vault: enrolled on its reader, listed, forgotten, moved in
/// and out with the mode (after a passcode proof each).
extension SystemServiceClient {
    public func enroll(
        _ finger: Finger, proof: SealedPasscodeSlot, timeout: Duration,
        progress: @escaping @Sendable (EnrollEvent) -> Void
    ) async throws -> SystemEnrolledFinger {
        let enrolled = try await scanning(timeout: timeout) { client throws(ServiceClientError) in
            try client.enrollFinger(
                .init(proof: Self.proof(proof), finger: finger.rawValue, timeoutSeconds: Self.seconds(timeout))
            ) { stage in
                switch stage.event {
                case .opened: progress(.opened(stages: stage.total))
                case .stage: progress(.stage(completed: stage.completed, total: stage.total))
                // A reason this client does not know is still a retry; the reason only words the hint.
                case .retry: progress(.retry(RetryReason(rawValue: stage.retry) ?? .general))
                case .waiting:
                    let request = OtherUsersRequest(rawValue: (stage.busyWith ?? .scan).rawValue) ?? .scan
                    progress(.waitingForOtherUser(request))
                }
            }
        }
        return try Self.finger(enrolled)
    }

    public func fingers(vault: UUID) throws -> [SystemEnrolledFinger] {
        try call { client throws(ServiceClientError) in
            try client.listFingers(Self.id(vault))
        }.map(Self.finger)
    }

    public func forget(_ finger: Finger, proof: SealedPasscodeSlot) async throws {
        try await scanning(timeout: .seconds(30)) { client throws(ServiceClientError) in
            try client.forgetFinger(.init(proof: Self.proof(proof), finger: finger.rawValue))
        }
    }

    public func importPrint(_ print: EnrolledPrint, proof: SealedPasscodeSlot) async throws {
        let template = VarlinkParameters.FingerTemplate(
            finger: print.finger.rawValue, reader: print.reader.description,
            template: print.template.base64EncodedString(), enrolled: Int(print.enrolled.timeIntervalSince1970))
        _ = try await scanning(timeout: .seconds(30)) { client throws(ServiceClientError) in
            try client.importFinger(.init(proof: Self.proof(proof), print: template))
        }
    }

    public func exportPrint(_ finger: Finger, proof: SealedPasscodeSlot) throws -> EnrolledPrint {
        let print = try call { client throws(ServiceClientError) in
            try client.exportFinger(.init(proof: Self.proof(proof), finger: finger.rawValue))
        }
        guard let name = Finger(name: print.finger), name == finger, let reader = ReaderIdentity(print.reader),
            let template = Data(base64Encoded: print.template)
        else {
            throw Self.failure("fingerlockd sent a finger the interface does not know.")
        }
        return EnrolledPrint(
            finger: name, reader: reader, template: template,
            enrolled: Date(timeIntervalSince1970: TimeInterval(print.enrolled)))
    }

    public func useFprintdFingers(_ use: Bool, proof: SealedPasscodeSlot) async throws -> AcceptedFingers? {
        // fprintd is asked before the passcode is judged: its calls have their own time limits.
        let reply = try await scanning(timeout: .seconds(15)) { client throws(ServiceClientError) in
            try client.useFprintdFingers(.init(proof: Self.proof(proof), use: use))
        }
        guard reply.used else { return nil }
        let fingers = reply.fingers.compactMap(Finger.init(name:))
        guard fingers.count == reply.fingers.count else {
            throw Self.failure("fingerlockd named a finger the interface does not know.")
        }
        return AcceptedFingers(device: reply.device, fingers: fingers)
    }

    static func finger(_ finger: VarlinkParameters.EnrolledFinger) throws -> SystemEnrolledFinger {
        guard let name = Finger(name: finger.finger), let reader = ReaderIdentity(finger.reader) else {
            throw Self.failure("fingerlockd named a finger the interface does not know.")
        }
        return SystemEnrolledFinger(
            finger: name, reader: reader,
            enrolled: finger.enrolled == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(finger.enrolled)))
    }
}
